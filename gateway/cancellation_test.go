package gateway_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
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
		started++
		return cs, startSleep(t, context.Background(), h, cs, started)
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
		awaitSleepCancelled(t, h, started)
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

// A server's request that the gateway has passed to a client, and the client has
// not answered, ends (with an error to the server) once no answer can come back:
// when the gateway closes, when the client deletes its session, when its SSE
// stream ends. Else closing the client's session waited for the answer, and a
// gateway's Close hung for as long as a person left an elicitation form open. The
// request may come during a call of the client's, or outside any (a server asking
// on its own, here once the client has its tool's result).
func TestServerRequestsEndWithTheirClient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		tool string // ask_now: during the call; ask_later: after it
		sse  bool   // the client on legacy SSE, else Streamable HTTP
		end  string // "close", "delete" or "stream"
	}{
		{"close during a call", "ask_now", false, "close"},
		{"close outside calls", "ask_later", false, "close"},
		{"delete during a call", "ask_now", false, "delete"},
		{"delete outside calls", "ask_later", false, "delete"},
		{"sse stream during a call", "ask_now", true, "stream"},
		{"sse stream outside calls", "ask_later", true, "stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The server: each tool elicits, now or once later is closed; the
			// outcome of the elicitation comes on asked.
			asked, later := make(chan error, 1), make(chan struct{})
			elicit := func(ss *mcp.ServerSession) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				_, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: &jsonschema.Schema{Type: "object"}})
				asked <- err
			}
			server := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "ask_now"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				elicit(req.Session)
				return &mcp.CallToolResult{}, nil, nil
			})
			mcp.AddTool(server, &mcp.Tool{Name: "ask_later"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				go func() {
					<-later
					elicit(req.Session)
				}()
				return &mcp.CallToolResult{}, nil, nil
			})
			hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
			t.Cleanup(hs.Close)
			t.Cleanup(func() {
				for ss := range server.Sessions() {
					ss.Close()
				}
			})
			_, g, url := proxyGateway(t, proxyOpts{}, config.Server{Name: "asker", Transport: config.HTTP, URL: hs.URL, ToolTimeout: time.Minute})

			// The client: it never answers the elicitation.
			arrived, release := make(chan struct{}, 1), make(chan struct{})
			t.Cleanup(func() { close(release) })
			c := mcp.NewClient(&mcp.Implementation{Name: "silent", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					arrived <- struct{}{}
					select {
					case <-ctx.Done():
					case <-release:
					}
					return nil, errors.New("no answer")
				},
			})
			streamCtx, endStream := context.WithCancel(context.Background())
			defer endStream()
			var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: url}
			if tc.sse {
				tr = &mcp.SSEClientTransport{Endpoint: strings.TrimSuffix(url, "/mcp") + "/sse"}
			}
			cs, err := c.Connect(streamCtx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			if tc.tool == "ask_now" {
				go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool})
			} else {
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool}); err != nil {
					t.Fatal(err)
				}
				close(later)
			}
			select {
			case <-arrived:
			case <-time.After(10 * time.Second):
				t.Fatal("the elicitation did not reach the client")
			}

			ended := make(chan struct{})
			go func() {
				defer close(ended)
				switch tc.end {
				case "close":
					g.Close()
				case "delete":
					req, _ := http.NewRequest(http.MethodDelete, url, nil)
					req.Header.Set("Mcp-Session-Id", cs.ID())
					if resp, err := http.DefaultClient.Do(req); err != nil {
						t.Errorf("DELETE: %v", err)
					} else {
						resp.Body.Close()
					}
				case "stream":
					endStream()
				}
			}()
			select {
			case <-ended:
			case <-time.After(10 * time.Second):
				t.Fatalf("the %s still waits after 10 s", tc.end)
			}
			select {
			case err := <-asked:
				if err == nil {
					t.Error("the server's elicitation got an answer")
				}
			case <-time.After(10 * time.Second):
				t.Error("the server's elicitation still waits after 10 s")
			}
		})
	}
}

// A call whose client went away without a word (its connection dropped mid-call,
// which over Streamable HTTP with sessions is no cancellation) runs on at the server
// until the gateway closes the client's session as idle; then it ends, and the
// server's call with it. Before, closing the session waited for the call, up to its
// tool timeout, which may be longer than the session timeout.
func TestCallOfAnExpiredSessionEnds(t *testing.T) {
	t.Parallel()
	ts := testserver.Stdio(t, "ts")
	ts.ToolTimeout = time.Minute
	h, g, url := proxyGateway(t, proxyOpts{http: &gateway.HTTPOptions{SessionTimeout: time.Second}}, ts)

	// A client that opens no stream (nothing keeps its session), whose call is sent
	// by hand so that dropping it sends nothing either: no cancellation, no DELETE.
	cs := stateClient(t, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true})
	session := cs.ID()
	callCtx, drop := context.WithCancel(context.Background())
	defer drop()
	req, err := http.NewRequestWithContext(callCtx, http.MethodPost, url,
		strings.NewReader(`{"jsonrpc":"2.0","id":1000,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":30000}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("MCP-Protocol-Version", cs.InitializeResult().ProtocolVersion)
	called := make(chan struct{})
	go func() {
		defer close(called)
		// The call's POST ends when the client drops it: before its response's
		// headers or while its body is read (an error either way).
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	testenv.WaitFor(t, "the server to start the sleep", 10*time.Second, func() bool { return serverSaidTimes(h, "ts", "sleep started") >= 1 })
	drop() // the client is gone
	<-called

	awaitSleepCancelled(t, h, 1)
	testenv.WaitFor(t, "the session to be closed", 10*time.Second, func() bool { return !slices.Contains(sessionIDs(g), session) })
}
