package upstream

//lint:file-ignore SA1019 logging is deprecated in the 2026-07-28 protocol but lives on in it: a client sets the level in each request's _meta.

import (
	"context"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay"
)

// protocol2026 is the first protocol version without sessions (SEP-2575): the
// client discovers the server with server/discover instead of initialize and sends
// its version, identity and capabilities in every request's _meta.
const protocol2026 = "2026-07-28"

// The methods of the handshake, as the SDK sends them.
const (
	methodDiscover   = "server/discover"
	methodInitialize = "initialize"
)

// modern reports whether cs negotiated the 2026-07-28 protocol or a later one. Such
// a server has no logging/setLevel, resources/subscribe or roots notifications: the
// log level travels in each request's _meta, subscriptions are subscriptions/listen
// streams (the SDK opens them), and the server asks for roots, sampling and
// elicitation in input requests (mrtr_servers.go).
func modern(cs *mcp.ClientSession) bool {
	r := cs.InitializeResult()
	return r != nil && r.ProtocolVersion >= protocol2026
}

// requestEra is the sending middleware of connection c that adapts each request to
// the protocol the handshake settled on. The SDK asks a server with server/discover
// first and falls back to initialize for a server of an older version.
func (s *Supervisor) requestEra(c *conn) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case methodDiscover:
				res, err := next(ctx, method, req)
				if signInNeeded(err) != nil {
					c.refuse(err)
				}
				return res, err
			case methodInitialize:
				// The SDK falls back to initialize on any failure of server/discover;
				// after a refusal (a 401 that needs a sign-in, refused credentials, a
				// certificate nobody trusts) initialize would only be refused again, and
				// a sign-in asked for twice.
				if err := c.refusal(); err != nil {
					return nil, err
				}
				return next(ctx, method, req)
			}
			cs, _ := req.GetSession().(*mcp.ClientSession)
			if cs != nil && !modern(cs) {
				if caller, ok := relay.ClientCapabilitiesOf(ctx); ok {
					if p := req.GetParams(); p != nil && !isNilParams(p) {
						// A server of an older revision is not told its client's
						// capabilities in each request, but may read them there (the
						// key is MCP's own, which older servers leave alone; the Go
						// SDK's servers of every revision read it): with it, a server
						// that needs one the caller lacks can say so (-32021), as it
						// can to a caller of 2026-07-28 — not only what the whole
						// connection can answer.
						m := p.GetMeta()
						if m == nil {
							m = map[string]any{}
							p.SetMeta(m)
						}
						m[mcp.MetaKeyClientCapabilities] = narrowed(s.clientCapabilities(), caller)
					}
				}
			}
			if cs != nil && modern(cs) {
				s.mu.Lock()
				level := s.logLevel
				s.mu.Unlock()
				// "To receive log messages for a specific request, include
				// io.modelcontextprotocol/logLevel in the request's _meta. The server MUST
				// NOT emit notifications/message for a request that does not include this
				// field." (2026-07-28, logging). The map is the request's own: the SDK
				// has put its keys in it already.
				if p := req.GetParams(); p != nil {
					if m := p.GetMeta(); m != nil {
						if _, set := m[mcp.MetaKeyLogLevel]; !set && level != "" {
							m[mcp.MetaKeyLogLevel] = level
						}
						if caller, ok := relay.ClientCapabilitiesOf(ctx); ok {
							// The server reads the client's capabilities in each request
							// (SEP-2575): those of the client the request is for, as far
							// as this connection can answer for them.
							m[mcp.MetaKeyClientCapabilities] = narrowed(s.clientCapabilities(), caller)
						}
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// capabilitiesWire is ClientCapabilities as the 2026-07-28 wire has it: roots an
// object when declared and absent when not (the SDK's own wire type is unexported;
// its Roots field cannot be absent, see relay.CanAnswer).
type capabilitiesWire struct {
	mcp.ClientCapabilities
	Roots *mcp.RootCapabilities `json:"roots,omitempty"`
}

// narrowed is own, the connection's capabilities, with sampling, elicitation and
// roots only where the caller declares them too, as the caller declares them (its
// sub-capabilities: sampling with tools, elicitation by form or URL).
func narrowed(own, caller *mcp.ClientCapabilities) capabilitiesWire {
	c := *own
	c.RootsV2, c.Roots = nil, mcp.ClientCapabilities{}.Roots
	if own.Sampling == nil || caller.Sampling == nil {
		c.Sampling = nil
	} else {
		c.Sampling = caller.Sampling
	}
	if own.Elicitation == nil || caller.Elicitation == nil {
		c.Elicitation = nil
	} else {
		c.Elicitation = caller.Elicitation
	}
	w := capabilitiesWire{ClientCapabilities: c}
	if relay.CanAnswer(own, relay.MethodListRoots) && relay.CanAnswer(caller, relay.MethodListRoots) {
		w.Roots = &mcp.RootCapabilities{ListChanged: caller.RootsV2 != nil && caller.RootsV2.ListChanged || caller.Roots.ListChanged}
	}
	return w
}

// isNilParams reports whether p is a nil pointer of a params type (a request the
// SDK sends without params).
func isNilParams(p mcp.Params) bool {
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
