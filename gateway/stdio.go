package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport is the SDK's stdio transport with two things a stdio client
// should get that the SDK does not give it:
//
//   - A request sent before the client is initialized gets its error reply at
//     once. The SDK refuses it too, but with code 0, and its reply is lost when
//     the client closes stdin right after (the SDK writes nothing once its read
//     side has ended). Initialized means what the client's protocol makes it:
//     an initialize request sent (before 2026-07-28), or the protocol version in
//     the request's own _meta (2026-07-28, SEP-2575, which has no initialize).
//   - Input that is not JSON-RPC gets a JSON-RPC error reply (id null), and the
//     session ends with an error saying what stdin must carry: the SDK stops
//     reading at the first such line.
type stdioTransport struct{}

func (stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := (&mcp.StdioTransport{}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &gatedConn{Connection: c}, nil
}

type gatedConn struct {
	mcp.Connection
	initialized bool // read by Read only (one reader)
}

func (c *gatedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			// A read that failed (stdin closed, by the client or by our own shutdown
			// after stdout broke) is the client leaving, not junk: only what was read
			// and could not be decoded gets the reply below.
			var pathErr *fs.PathError
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) || errors.As(err, &pathErr) || ctx.Err() != nil {
				return nil, err
			}
			code, what := jsonrpc.CodeInvalidRequest, "Invalid Request"
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				code, what = jsonrpc.CodeParseError, "Parse error"
			}
			_ = c.Connection.Write(ctx, &jsonrpc.Response{Error: &jsonrpc.Error{Code: int64(code), Message: what + ": " + err.Error()}})
			return nil, fmt.Errorf("stdin is not JSON-RPC (%w): an MCP client sends one JSON-RPC message per line", err)
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() || c.initialized || rawRequestIs2026(req) {
			return msg, nil
		}
		switch req.Method {
		case "initialize":
			c.initialized = true
			return msg, nil
		case "ping", "server/discover": // allowed before initialize
			return msg, nil
		}
		reply := &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{
			Code:    int64(jsonrpc.CodeInvalidRequest),
			Message: fmt.Sprintf("%s before initialize: send initialize first (protocol 2026-07-28: the protocol version, client info and capabilities in each request's _meta)", req.Method),
		}}
		if err := c.Connection.Write(ctx, reply); err != nil {
			return nil, err
		}
	}
}

// rawRequestIs2026 is requestIs2026 for a request not yet decoded by the SDK.
func rawRequestIs2026(req *jsonrpc.Request) bool {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return false
	}
	v, _ := p.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v >= protocol2026
}
