package gateway_test

//lint:file-ignore SA1019 sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

// Several gateways on one hub (a program serving its catalog over stdio and HTTP at
// once, or one gateway per team toolset): each gateway's clients get what their own
// calls cause, and the servers' state (subscriptions, the log level) is what all
// the gateways' clients together want.

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/tool"
)

// anotherGateway starts one more gateway on h, on loopback HTTP, and returns it
// with its URL.
func anotherGateway(t *testing.T, h *hub.Hub) (*gateway.Gateway, string) {
	t.Helper()
	g := gateway.New(h, &gateway.Options{Logger: quiet})
	t.Cleanup(func() { g.Close() })
	b, err := g.Listen("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return g, b.URL()
}

// sampleThrough has c call the server's sampling tool with prompt and checks that
// c answered it.
func sampleThrough(t *testing.T, c *proxyClient, prompt string) {
	t.Helper()
	text, isErr := callText(t, c.cs, "test_sampling", map[string]any{"prompt": prompt})
	if isErr || !strings.Contains(text, "sampled: "+prompt) {
		t.Fatalf("sampling through the gateway: %q (error %v)", text, isErr)
	}
}

// A server's requests and log messages go to the client, on whichever gateway,
// whose call caused them; closing one gateway leaves the other working. (With one
// peer per hub, only the newest gateway's clients could be asked, and closing it
// left the hub with none.)
func TestTwoGatewaysOnOneHub(t *testing.T) {
	t.Parallel()
	h, _, urlA := proxyGateway(t, proxyOpts{protocol: sessionEra}, conf(t, "conf"))
	gB, urlB := anotherGateway(t, h)
	a, b := connectProxyClient(t, urlA), connectProxyClient(t, urlB)
	for _, c := range []*proxyClient{a, b} {
		if err := c.cs.SetLoggingLevel(ctx15(t), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
	}

	sampleThrough(t, a, "for a")
	sampleThrough(t, b, "for b")
	if _, isErr := callText(t, a.cs, "test_tool_with_logging", map[string]any{}); isErr {
		t.Fatal("logging tool failed")
	}
	a.awaitLogs(t, "client a's log messages", 3)
	a.snapshot(func(c *proxyClient) {
		if !slices.Equal(c.sampled, []string{"for a"}) {
			t.Errorf("client a sampled %q", c.sampled)
		}
	})
	b.snapshot(func(c *proxyClient) {
		if !slices.Equal(c.sampled, []string{"for b"}) {
			t.Errorf("client b sampled %q", c.sampled)
		}
		if len(c.logs) != 0 {
			t.Errorf("client b got %d log messages of a's call", len(c.logs))
		}
	})

	// Progress tokens differ between the gateways (every gateway sees every
	// progress notification, and keeps those whose token it gave).
	var tokens []string
	for _, c := range []*proxyClient{a, b} {
		res, err := c.cs.CallTool(ctx15(t), &mcp.CallToolParams{Meta: mcp.Meta{"progressToken": "mine"}, Name: "test_tool_with_progress"})
		if err != nil || res.IsError {
			t.Fatalf("progress tool: %v %+v", err, res)
		}
		tokens = append(tokens, tool.Text(res)) // the token the server saw
	}
	if tokens[0] == tokens[1] {
		t.Errorf("both gateways sent the server progress token %q", tokens[0])
	}

	// The program's own call is still no client's.
	if res, err := h.Call(ctx15(t), "test_sampling", json.RawMessage(`{"prompt":"the program's own"}`)); err == nil && !res.IsError {
		t.Errorf("the program's own sampling call succeeded: %q", tool.Text(res))
	}

	// The newer gateway closes: the older one's client is still asked.
	gB.Close()
	sampleThrough(t, a, "for a again")
}

// The servers' subscriptions and log level follow the clients of every gateway: a
// subscription ends when the last holder on any gateway lets go, and the level is
// the most verbose any client on any gateway (or the program) set. (With one level per hub, the last
// gateway to set one won, and one gateway's unsubscribe ended another's
// subscription.)
func TestGatewaysShareServerState(t *testing.T) {
	t.Parallel()
	st := startStateServer(t)
	srv := config.Server{Name: "state", Transport: config.HTTP, URL: st.url + "/mcp", InitTimeout: 10 * time.Second, ToolTimeout: 10 * time.Second}
	h, _, urlA := proxyGateway(t, proxyOpts{}, srv)
	_, urlB := anotherGateway(t, h)
	a := stateClient(t, &mcp.StreamableClientTransport{Endpoint: urlA})
	b := stateClient(t, &mcp.StreamableClientTransport{Endpoint: urlB})

	ctx := ctx15(t)
	if err := a.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	st.await(t, "level debug")
	if err := b.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*mcp.ClientSession{a, b} {
		if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}); err != nil {
			t.Fatal(err)
		}
	}
	st.await(t, "subscribe "+watchedURI)
	// a lets go of the subscription b still holds, and leaves: the level is now
	// b's, and the subscription stays.
	if err := a.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	st.await(t, "level error")
	if got := st.since(); len(got) > 0 {
		t.Errorf("after the level, the server saw %q", got)
	}
	if events := st.all(); slices.Contains(events, "unsubscribe "+watchedURI) || slices.Index(events, "level error") != len(events)-1 {
		t.Errorf("server saw %q: b's level should come only when a left, and the subscription stay", events)
	}
	// The last holder leaves: the subscription ends.
	b.Close()
	st.await(t, "unsubscribe "+watchedURI)

	// The program's own level counts too: a client may ask for more, and when it
	// leaves the servers go back to the program's.
	if err := h.SetLogLevel(ctx, "warning"); err != nil {
		t.Fatal(err)
	}
	st.await(t, "level warning")
	c := stateClient(t, &mcp.StreamableClientTransport{Endpoint: urlB})
	if err := c.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	st.await(t, "level info")
	c.Close()
	st.await(t, "level warning")
}
