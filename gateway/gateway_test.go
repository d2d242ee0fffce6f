package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

var quiet = slog.New(slog.DiscardHandler)

func localTools(t *testing.T) *tool.Local {
	t.Helper()
	l := tool.NewLocal()
	type echoIn struct {
		Text string `json:"text"`
	}
	if err := tool.Func(l, "echo", "Echoes text.", func(_ context.Context, in echoIn) (string, error) { return in.Text, nil }); err != nil {
		t.Fatal(err)
	}
	return l
}

func newGateway(t *testing.T, ts tool.Toolset) *gateway.Gateway {
	t.Helper()
	g := gateway.New(ts, &gateway.Options{Logger: quiet})
	t.Cleanup(func() { g.Close() })
	return g
}

// connect opens an SDK client session on transport and records list_changed.
func connect(t *testing.T, transport mcp.Transport) (*mcp.ClientSession, <-chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 16)
	c := mcp.NewClient(&mcp.Implementation{Name: "gateway-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	// The SSE client ties its stream to the context given to Connect: it must outlive
	// the connect call.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs, err := c.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, changed
}

func inMemory(t *testing.T, g *gateway.Gateway) (*mcp.ClientSession, <-chan struct{}) {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := g.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return connect(t, ct)
}

func listNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return tool.Text(res), res.IsError
}

func TestToolsAndCalls(t *testing.T) {
	l := localTools(t)
	cs, _ := inMemory(t, newGateway(t, l))
	if names := listNames(t, cs); len(names) != 1 || names[0] != "echo" {
		t.Fatalf("tools = %v", names)
	}
	if got, isErr := callText(t, cs, "echo", map[string]any{"text": "through the gateway"}); isErr || got != "through the gateway" {
		t.Errorf("echo = %q (error %v)", got, isErr)
	}
	// Failures are results the client sees, as the toolset makes them.
	if got, isErr := callText(t, cs, "echo", map[string]any{"text": 3}); !isErr || !strings.Contains(got, "invalid arguments") {
		t.Errorf("bad arguments: %q (error %v)", got, isErr)
	}
}

func TestListChangedReachesClients(t *testing.T) {
	l := localTools(t)
	cs, changed := inMemory(t, newGateway(t, l))
	listNames(t, cs)
	if err := tool.Func(l, "late", "Added later.", func(context.Context, struct{}) (string, error) { return "late", nil }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after a tool was added")
	}
	names := listNames(t, cs)
	if len(names) != 2 {
		t.Fatalf("tools after the change = %v", names)
	}
	if got, _ := callText(t, cs, "late", map[string]any{}); got != "late" {
		t.Errorf("late = %q", got)
	}
	l.Remove("echo")
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no list_changed after a tool was removed")
	}
	if names := listNames(t, cs); len(names) != 1 || names[0] != "late" {
		t.Errorf("tools after removal = %v", names)
	}
}

func TestHTTPTransportsAndToken(t *testing.T) {
	g := newGateway(t, localTools(t))
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprint("stateless=", stateless), func(t *testing.T) {
			b, err := g.Listen("127.0.0.1:0", &gateway.HTTPOptions{Stateless: stateless})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			cs, _ := connect(t, &mcp.StreamableClientTransport{Endpoint: b.URL()})
			if got, _ := callText(t, cs, "echo", map[string]any{"text": "http"}); got != "http" {
				t.Errorf("streamable echo = %q", got)
			}
			if !stateless {
				sse, _ := connect(t, &mcp.SSEClientTransport{Endpoint: b.SSEURL()})
				if got, _ := callText(t, sse, "echo", map[string]any{"text": "sse"}); got != "sse" {
					t.Errorf("sse echo = %q", got)
				}
			}
		})
	}

	t.Run("token", func(t *testing.T) {
		b, err := g.Listen("127.0.0.1:0", &gateway.HTTPOptions{Token: "s3cret-token"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		for _, auth := range []string{"", "Bearer wrong", "s3cret-token"} {
			req, _ := http.NewRequest("POST", b.URL(), strings.NewReader(`{}`))
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
			}
			wantJSONRPCError(t, resp, "bearer token")
		}

		// The scheme in any case, as RFC 7235 has it.
		for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
			client := &http.Client{Transport: bearer{scheme, "s3cret-token"}}
			cs, _ := connect(t, &mcp.StreamableClientTransport{Endpoint: b.URL(), HTTPClient: client})
			if got, _ := callText(t, cs, "echo", map[string]any{"text": "authorised"}); got != "authorised" {
				t.Errorf("echo with %q and the token = %q", scheme, got)
			}
		}
	})

	t.Run("dns rebinding and cross-origin", func(t *testing.T) {
		b, err := g.Listen("127.0.0.1:0", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		for _, h := range []struct{ host, origin string }{{"evil.example", ""}, {"", "http://evil.example"}} {
			req, _ := http.NewRequest("POST", b.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if h.host != "" {
				req.Host = h.host
			}
			if h.origin != "" {
				req.Header.Set("Origin", h.origin)
				req.Header.Set("Sec-Fetch-Site", "cross-site")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("host %q origin %q: status %d, want 403", h.host, h.origin, resp.StatusCode)
			}
			wantJSONRPCError(t, resp, "")
		}
		// A path the gateway does not serve: a JSON-RPC 404, not net/http's text.
		resp, err := http.Post(strings.TrimSuffix(b.URL(), "/mcp")+"/other", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST /other: status %d, want 404", resp.StatusCode)
		}
		wantJSONRPCError(t, resp, "/mcp")
	})

	t.Run("non-loopback needs a token", func(t *testing.T) {
		if _, err := g.Listen("0.0.0.0:0", nil); !errors.Is(err, gateway.ErrTokenRequired) {
			t.Errorf("Listen on 0.0.0.0 without a token: err = %v", err)
		}
		b, err := g.Listen("0.0.0.0:0", &gateway.HTTPOptions{Token: "t0ken-value"})
		if err != nil {
			t.Fatal(err)
		}
		b.Close()
	})
}

// wantJSONRPCError fails unless resp's body is a JSON-RPC error with no id whose
// message has sub: the refusal an MCP client can read. It closes the body.
func wantJSONRPCError(t *testing.T, resp *http.Response, sub string) {
	t.Helper()
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var b struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      *json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || json.Unmarshal(data, &b) != nil ||
		b.JSONRPC != "2.0" || b.ID != nil || b.Error.Code == 0 || !strings.Contains(b.Error.Message, sub) {
		t.Errorf("status %d, Content-Type %q: %s; want a JSON-RPC error with no id naming %q", resp.StatusCode, ct, data, sub)
	}
}

type bearer struct{ scheme, token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", b.scheme+" "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:80": true, "localhost:1": true, "[::1]:9": true, "127.1.2.3:4": true,
		"0.0.0.0:80": false, ":80": false, "10.0.0.1:80": false, "example.com:80": false, "nonsense": false,
	} {
		if got := gateway.IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v", addr, got)
		}
	}
}

// The gateway fronts a hub whose upstream crashes and recovers while a client stays
// connected: the crash is a result naming the server, the next call succeeds.
func TestUpstreamCrashWhileClientConnected(t *testing.T) {
	cfg := &config.Config{Servers: []config.Server{testserver.Stdio(t, "fragile")}}
	h := hub.New(cfg, &hub.Options{Logger: quiet, Upstream: testserver.Fast()})
	t.Cleanup(func() { h.Close() })
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	g := newGateway(t, h)
	b, err := g.Listen("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	cs, _ := connect(t, &mcp.StreamableClientTransport{Endpoint: b.URL()})

	pid, _ := callText(t, cs, "pid", map[string]any{})
	got, isErr := callText(t, cs, "crash", map[string]any{})
	if !isErr || !strings.Contains(got, `server "fragile"`) {
		t.Errorf("crash = %q (error %v), want an error result naming the server", got, isErr)
	}
	if got, isErr := callText(t, cs, "echo", map[string]any{"text": "recovered"}); isErr || got != "recovered" {
		t.Fatalf("echo after the crash = %q (error %v)", got, isErr)
	}
	pid2, _ := callText(t, cs, "pid", map[string]any{})
	if pid2 == pid {
		t.Errorf("still pid %s after the crash", pid)
	}
	if n, err := strconv.Atoi(pid); err == nil && testserver.ProcessAlive(n) {
		if p, err := os.FindProcess(n); err == nil {
			p.Kill()
		}
		t.Errorf("crashed server %d still alive", n)
	}
}

// The union handed to the gateway gives an external agent exactly the tools a native
// agent sees: same names, descriptions and schemas.
func TestGatewayMatchesNativeToolset(t *testing.T) {
	agent, team := localTools(t), tool.NewLocal()
	type q struct {
		Query string `json:"query" jsonschema:"what to look for"`
	}
	tool.Func(team, "echo", "The team's echo.", func(_ context.Context, in q) (string, error) { return in.Query, nil })
	tool.Func(team, "lookup", "Looks up.", func(_ context.Context, in q) (string, error) { return in.Query, nil })
	u := tool.Union("auto", agent, team)
	t.Cleanup(func() { u.Close() })
	cs, _ := inMemory(t, newGateway(t, u))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	external := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		external[tl.Name] = tl
	}
	native := u.Tools()
	if len(external) != len(native) {
		t.Fatalf("gateway lists %d tools, the union %d", len(external), len(native))
	}
	for _, n := range native {
		e, ok := external[n.Name]
		if !ok {
			t.Errorf("native tool %q missing from the gateway", n.Name)
			continue
		}
		schema, _ := json.Marshal(e.InputSchema)
		if e.Description != n.Description || !jsonSame(schema, n.InputSchema) {
			t.Errorf("%s: gateway (%q, %s) differs from native (%q, %s)", n.Name, e.Description, schema, n.Description, n.InputSchema)
		}
	}
}

func jsonSame(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// An HTTP client with no GET stream open gets no notifications (the protocol allows
// it): a catalog change is no warning per such session, only a debug line each.
func TestUndeliveredNotificationsAreNotWarnings(t *testing.T) {
	var logs testenv.Buffer
	l := localTools(t)
	g := gateway.New(l, &gateway.Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	t.Cleanup(func() { g.Close() })
	b, err := g.Listen("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	const idle = 3
	for range idle {
		c := mcp.NewClient(&mcp.Implementation{Name: "no-stream", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: b.URL(), DisableStandaloneSSE: true},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
	}
	if err := tool.Func(l, "late", "Added later.", func(context.Context, struct{}) (string, error) { return "late", nil }); err != nil {
		t.Fatal(err)
	}
	undelivered := func(level string) int {
		n := 0
		for line := range strings.Lines(logs.String()) {
			if strings.Contains(line, "undelivered message") && strings.Contains(line, "level="+level) {
				n++
			}
		}
		return n
	}
	testenv.WaitFor(t, "a debug line per session without a stream", 10*time.Second, func() bool {
		return undelivered("DEBUG")+undelivered("WARN") >= idle
	})
	if n := undelivered("WARN"); n > 0 {
		t.Errorf("%d warnings for notifications that had no stream to go on:\n%s", n, logs.String())
	}
}
