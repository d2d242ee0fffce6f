package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/tool"
)

// hangGuard bounds each wait on a raw connection here: not a speed assertion, the
// point where a server that never answers fails the test instead of hanging it.
const hangGuard = 30 * time.Second

// rawRequest sends head (a request's first line and headers, and whatever part of
// the body) on a new connection to b and returns the response's status, then whether
// the server closed the connection after it.
func rawRequest(t *testing.T, b *gateway.Bridge, head string) (status int, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", b.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(hangGuard))
	rd := bufio.NewReader(c)
	res, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	_, err = rd.Read(make([]byte, 1))
	return res.StatusCode, err == io.EOF
}

// TestHTTPTimeouts: the gateway's own listener cuts a body that does not arrive in
// time, answers a request without the token before its body, and closes idle
// keep-alive connections; its streams (a legacy SSE session, a Streamable HTTP call
// answered as a stream) run well past the read and write timeouts.
func TestHTTPTimeouts(t *testing.T) {
	l := localTools(t)
	type sleepIn struct {
		MS int `json:"ms"`
	}
	if err := tool.Func(l, "sleep", "Sleeps.", func(ctx context.Context, in sleepIn) (string, error) {
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			return "slept", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}); err != nil {
		t.Fatal(err)
	}
	g := newGateway(t, l)
	const timeout = 300 * time.Millisecond
	listen := func(opts *gateway.HTTPOptions) *gateway.Bridge {
		b, err := g.Listen("127.0.0.1:0", opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	b := listen(&gateway.HTTPOptions{ReadTimeout: timeout, WriteTimeout: timeout, IdleTimeout: timeout})

	post := "POST /mcp HTTP/1.1\r\nHost: " + b.Addr().String() + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	t.Run("slow body", func(t *testing.T) {
		status, closed := rawRequest(t, b, post+"Content-Length: 100\r\n\r\n{\"jsonrpc\"")
		if status < 400 || !closed {
			t.Errorf("a body that stopped coming: status %d, closed %v; want an error and the connection closed", status, closed)
		}
	})

	t.Run("idle", func(t *testing.T) {
		status, closed := rawRequest(t, b, "GET /nowhere HTTP/1.1\r\nHost: "+b.Addr().String()+"\r\n\r\n")
		if status != http.StatusNotFound || !closed {
			t.Errorf("a keep-alive connection left idle: status %d, closed %v; want 404 and closed", status, closed)
		}
	})

	t.Run("401 before the body", func(t *testing.T) {
		// No body deadline: without the fix the 401 would never come.
		tb := listen(&gateway.HTTPOptions{Token: "tok-gw-Rr5", ReadTimeout: -1})
		status, closed := rawRequest(t, tb, strings.Replace(post, b.Addr().String(), tb.Addr().String(), 1)+"Content-Length: 100000\r\n\r\n")
		if status != http.StatusUnauthorized || !closed {
			t.Errorf("no token, body unsent: status %d, closed %v; want 401 and closed", status, closed)
		}
	})

	t.Run("streams", func(t *testing.T) {
		for name, transport := range map[string]mcp.Transport{
			"streamable": &mcp.StreamableClientTransport{Endpoint: b.URL(), MaxRetries: -1},
			"sse":        &mcp.SSEClientTransport{Endpoint: b.SSEURL()},
		} {
			cs, _ := connect(t, transport)
			for i := range 2 {
				if got, isErr := callText(t, cs, "sleep", map[string]any{"ms": 1000}); isErr || got != "slept" {
					t.Errorf("%s call %d past the timeouts: %q (error %v)", name, i, got, isErr)
				}
			}
			if got, _ := callText(t, cs, "echo", map[string]any{"text": fmt.Sprint(name, " still open")}); got != name+" still open" {
				t.Errorf("%s after the calls: %q", name, got)
			}
		}
	})
}
