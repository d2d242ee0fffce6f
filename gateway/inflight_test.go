package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// A client's call ends, and the server's call with it, once no answer can reach the
// client: when the client deletes its session, when its legacy SSE stream ends, and
// when the gateway closes. Neither the DELETE nor Close waits for the call (the SDK's
// closing of a session waits for the requests under way, which would have taken
// the server's 30-s sleep, up to its tool timeout of a minute).
func TestCallsEndWithTheirClient(t *testing.T) {
	t.Parallel()
	ts := testserver.Stdio(t, "ts")
	ts.ToolTimeout = time.Minute
	h, g, url := proxyGateway(t, proxyOpts{}, ts)
	started := 0 // sleeps the server has started
	// sleep connects a client on tr with ctx and starts a 30-s sleep, once the
	// server runs it; the call's error comes on the channel.
	sleep := func(ctx context.Context, tr mcp.Transport) (*mcp.ClientSession, <-chan error) {
		t.Helper()
		c := mcp.NewClient(&mcp.Implementation{Name: "inflight-test", Version: "1"}, nil)
		cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		called := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 30000}})
			called <- err
		}()
		started++
		testenv.WaitFor(t, "the server to start the sleep", 10*time.Second, func() bool { return serverSaidTimes(h, "ts", "sleep started") >= started })
		return cs, called
	}
	// ended waits for what ends the call to return, for the client's call to fail,
	// and for the server to see its call cancelled.
	ended := func(what string, done <-chan struct{}, called <-chan error) {
		t.Helper()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s still waits after 10 s", what)
		}
		select {
		case err := <-called:
			if err == nil {
				t.Errorf("%s: the client's call returned no error", what)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s: the client's call still waits after 10 s", what)
		}
		testenv.WaitFor(t, "the server to see the cancellation", 10*time.Second, func() bool {
			return serverSaidTimes(h, "ts", "sleep cancelled after") >= started
		})
	}
	run := func(fn func()) <-chan struct{} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			fn()
		}()
		return done
	}

	// The Go SDK's ClientSession.Close waits for its calls before it sends the DELETE;
	// other clients (the TypeScript SDK's terminateSession) do not.
	cs, called := sleep(context.Background(), &mcp.StreamableClientTransport{Endpoint: url})
	ended("the DELETE of the client's session", run(func() {
		req, err := http.NewRequest(http.MethodDelete, url, nil)
		if err != nil {
			t.Error(err)
			return
		}
		req.Header.Set("Mcp-Session-Id", cs.ID())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("DELETE: %v", err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("DELETE: %s, want 204", resp.Status)
		}
	}), called)

	sseCtx, endStream := context.WithCancel(context.Background())
	defer endStream()
	_, called = sleep(sseCtx, &mcp.SSEClientTransport{Endpoint: strings.TrimSuffix(url, "/mcp") + "/sse"})
	ended("the end of the SSE stream", run(endStream), called)

	_, called = sleep(context.Background(), &mcp.StreamableClientTransport{Endpoint: url})
	ended("the gateway's Close", run(func() { g.Close() }), called)
}
