package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/tool"
)

// deferredStdioEnv makes the test binary a deferred gateway over stdio (see init).
const deferredStdioEnv = "GATEWAY_TEST_DEFERRED_STDIO"

func init() {
	if os.Getenv(deferredStdioEnv) == "" {
		return
	}
	cat, err := bigCatalog()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	g := gateway.New(cat, &gateway.Options{Deferred: deferredPolicy()})
	err = g.ServeStdio(context.Background())
	g.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// catalogTools are the distinctive tools of bigCatalog, which adds 40 fillers.
var catalogTools = []struct{ name, description string }{
	{"weather_forecast", "Get the weather forecast for a city: temperature, rain and wind for the coming days."},
	{"mail_send", "Send an email message to a recipient with a subject and a body."},
	{"clock_now", "Tell the current time in a time zone."},
	{"dns_lookup", "Resolve a host name to its IP addresses with a DNS query."},
}

// bigCatalog is a catalog of 44 local tools, each answering "ran NAME ARGS".
func bigCatalog() (*tool.Local, error) {
	l := tool.NewLocal()
	add := func(name, description string) error {
		return l.AddRaw(name, description, json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`),
			func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
				return tool.TextResult("ran " + name + " " + string(args)), nil
			})
	}
	for _, c := range catalogTools {
		if err := add(c.name, c.description); err != nil {
			return nil, err
		}
	}
	for i := range 40 {
		if err := add(fmt.Sprintf("filler_%02d", i), fmt.Sprintf("Filler tool number %d that counts sheep.", i)); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// deferredPolicy defers always, with clock_now pinned.
func deferredPolicy() *deferred.Policy {
	return &deferred.Policy{Mode: deferred.Always, Pinned: func(t tool.Tool) bool { return t.Name == "clock_now" }}
}

// deferredList is what a session lists before it has found anything.
var deferredList = []string{deferred.SearchToolName, deferred.RegexToolName, deferred.CallToolName, "clock_now"}

func newDeferredGateway(t *testing.T) *gateway.Gateway {
	t.Helper()
	cat, err := bigCatalog()
	if err != nil {
		t.Fatal(err)
	}
	g := gateway.New(cat, &gateway.Options{Logger: quiet, Deferred: deferredPolicy()})
	t.Cleanup(func() { g.Close() })
	return g
}

// deferredClient is a client session with the notifications it got.
type deferredClient struct {
	*mcp.ClientSession
	changed chan struct{} // a tools/list_changed each
	acked   chan struct{} // a subscriptions/acknowledged each (protocol 2026-07-28)
}

// connectDeferred connects an SDK client on transport; version "" is the SDK's
// default (2026-07-28, falling back to initialize where the server refuses it).
func connectDeferred(t *testing.T, transport mcp.Transport, version string) *deferredClient {
	t.Helper()
	dc := &deferredClient{changed: make(chan struct{}, 16), acked: make(chan struct{}, 16)}
	c := mcp.NewClient(&mcp.Implementation{Name: "deferred-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { signal(dc.changed) },
	})
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				signal(dc.acked)
			}
			return next(ctx, method, req)
		}
	})
	ctx, cancel := context.WithCancel(context.Background()) // the SSE stream lives as long
	t.Cleanup(cancel)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := c.Connect(ctx, transport, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	dc.ClientSession = cs
	return dc
}

// waitChanged waits for one tools/list_changed.
func (dc *deferredClient) waitChanged(t *testing.T, why string) {
	t.Helper()
	select {
	case <-dc.changed:
	case <-time.After(10 * time.Second):
		t.Fatalf("no notifications/tools/list_changed after %s", why)
	}
}

// search calls a search tool and returns the names it found, checking that its
// text says how to call them both ways.
func (dc *deferredClient) search(t *testing.T, name string, args map[string]any) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	res, err := dc.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if text := tool.Text(res); res.IsError {
		t.Fatalf("%s %v: error %s", name, args, text)
	} else if !strings.Contains(text, "now loaded") || !strings.Contains(text, deferred.CallToolName) {
		t.Errorf("%s %v: the result does not say the tools are loaded and how to call them through %s:\n%s", name, args, deferred.CallToolName, text)
	}
	var found struct {
		Tools []deferred.Found `json:"tools"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &found); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, raw, err)
	}
	var names []string
	for _, f := range found.Tools {
		names = append(names, f.Name)
	}
	return names
}

// exerciseDeferred runs the deferred scenario on two sessions of one gateway:
// a's search loads a tool, which a (and only a) is told of and then lists; b's
// list stays as it was; calls by exact name and through tool_call work without a
// re-list; b's own call by name of a tool it never found loads it for b alone.
func exerciseDeferred(t *testing.T, a, b *deferredClient) {
	t.Helper()
	for _, c := range []*deferredClient{a, b} {
		if got := listNames(t, c.ClientSession); !slices.Equal(got, deferredList) {
			t.Fatalf("tools/list = %v, want the search tools and the pinned tool %v", got, deferredList)
		}
	}

	found := a.search(t, deferred.SearchToolName, map[string]any{"query": "weather forecast for a city", "limit": 1})
	if !slices.Equal(found, []string{"weather_forecast"}) {
		t.Fatalf("tool_search found %v, want [weather_forecast]", found)
	}
	a.waitChanged(t, "a search that loaded weather_forecast")
	want := append(slices.Clone(deferredList), "weather_forecast")
	if got := listNames(t, a.ClientSession); !sameSet(got, want) {
		t.Errorf("after the search, a lists %v, want %v", got, want)
	}
	if got := listNames(t, b.ClientSession); !slices.Equal(got, deferredList) {
		t.Errorf("a's search changed b's list: %v, want %v", got, deferredList)
	}

	// Both ways of calling, neither needing a re-list.
	if got, isErr := callText(t, a.ClientSession, "weather_forecast", map[string]any{"city": "Paris"}); isErr || got != `ran weather_forecast {"city":"Paris"}` {
		t.Errorf("weather_forecast by name = %q (error %v)", got, isErr)
	}
	got, isErr := callText(t, a.ClientSession, deferred.CallToolName, map[string]any{"name": "weather_forecast", "arguments": map[string]any{"city": "Oslo"}})
	if isErr || got != `ran weather_forecast {"city":"Oslo"}` {
		t.Errorf("tool_call weather_forecast = %q (error %v)", got, isErr)
	}

	// b calls a tool by its exact name without any search: it runs, and b alone is
	// told its list grew. A notification of a's load would have come before it (one
	// stream, handled in order), so b has had exactly one.
	if got, isErr := callText(t, b.ClientSession, "dns_lookup", map[string]any{}); isErr || got != "ran dns_lookup {}" {
		t.Errorf("dns_lookup by name = %q (error %v)", got, isErr)
	}
	b.waitChanged(t, "a call by name that loaded dns_lookup")
	if n := len(b.changed); n != 0 {
		t.Errorf("b got %d more tools/list_changed: another session's searches reached it", n)
	}
	if got, want := listNames(t, b.ClientSession), append(slices.Clone(deferredList), "dns_lookup"); !sameSet(got, want) {
		t.Errorf("b lists %v, want %v", got, want)
	}
	if n := len(a.changed); n != 0 {
		t.Errorf("a got %d more tools/list_changed: b's call reached it", n)
	}
}

// sameSet reports whether a and b hold the same names (a view lists the catalog's
// tools in catalog order, after the search tools).
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// neverRelists searches and calls what it found both ways without ever listing
// tools, as the many clients that ignore tools/list_changed do.
func neverRelists(t *testing.T, c *deferredClient) {
	t.Helper()
	found := c.search(t, deferred.RegexToolName, map[string]any{"pattern": "^mail_send$"})
	if !slices.Equal(found, []string{"mail_send"}) {
		t.Fatalf("tool_search_regex found %v, want [mail_send]", found)
	}
	got, isErr := callText(t, c.ClientSession, deferred.CallToolName, map[string]any{"name": found[0], "arguments": map[string]any{"city": "Rome"}})
	if isErr || got != `ran mail_send {"city":"Rome"}` {
		t.Errorf("tool_call %s = %q (error %v)", found[0], got, isErr)
	}
	if got, isErr := callText(t, c.ClientSession, found[0], map[string]any{}); isErr || got != "ran mail_send {}" {
		t.Errorf("%s by name = %q (error %v)", found[0], got, isErr)
	}
	// Unknown names are errors the model can act on, through tool_call as directly.
	if got, isErr := callText(t, c.ClientSession, deferred.CallToolName, map[string]any{"name": "no_such_tool"}); !isErr || !strings.Contains(got, deferred.SearchToolName) {
		t.Errorf("tool_call no_such_tool = %q (error %v), want an error that points at %s", got, isErr, deferred.SearchToolName)
	}
}

// TestDeferredHTTP: sessions over Streamable HTTP and legacy SSE each have their
// own deferred list, and a client that never re-lists completes a search-then-call.
func TestDeferredHTTP(t *testing.T) {
	g := newDeferredGateway(t)
	b, err := g.Listen("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	// A session's own list needs a session: 2025-11-25's (a client of 2026-07-28 has
	// none, and gets what a client of --stateless gets, below).
	t.Run("streamable and sse", func(t *testing.T) {
		exerciseDeferred(t,
			connectDeferred(t, &mcp.StreamableClientTransport{Endpoint: b.URL()}, "2025-11-25"),
			connectDeferred(t, &mcp.SSEClientTransport{Endpoint: b.SSEURL()}, ""))
	})
	t.Run("sse and streamable", func(t *testing.T) {
		exerciseDeferred(t,
			connectDeferred(t, &mcp.SSEClientTransport{Endpoint: b.SSEURL()}, ""),
			connectDeferred(t, &mcp.StreamableClientTransport{Endpoint: b.URL()}, "2025-11-25"))
	})
	t.Run("never re-lists", func(t *testing.T) {
		neverRelists(t, connectDeferred(t, &mcp.StreamableClientTransport{Endpoint: b.URL()}, ""))
	})
	t.Run("stateless", func(t *testing.T) {
		// Each request is a session of its own: what a search loads is not kept, and
		// nothing says otherwise; calls by name work all the same.
		sl, err := g.Listen("127.0.0.1:0", &gateway.HTTPOptions{Stateless: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sl.Close() })
		for _, tc := range []struct{ url, version string }{{sl.URL(), ""}, {sl.URL(), "2025-11-25"}, {b.URL(), ""}} {
			version := tc.version
			c := connectDeferred(t, &mcp.StreamableClientTransport{Endpoint: tc.url}, version)
			neverRelists(t, c)
			if got := listNames(t, c.ClientSession); !slices.Equal(got, deferredList) {
				t.Errorf("protocol %q: stateless tools/list = %v, want %v", version, got, deferredList)
			}
			if n := len(c.changed); n != 0 {
				t.Errorf("protocol %q: a client without sessions got %d tools/list_changed for loads no later request sees", version, n)
			}
		}
	})
}

// TestDeferredStdio runs the gateway as a child process over stdio (this test binary,
// see init), in both protocol eras: 2025-11-25 (list changes on the session) and
// 2026-07-28 (on the client's subscriptions/listen).
func TestDeferredStdio(t *testing.T) {
	stdio := func(t *testing.T, version string) *deferredClient {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), deferredStdioEnv+"=1")
		c := connectDeferred(t, &mcp.CommandTransport{Command: cmd}, version)
		if version == "" {
			// The listen is sent without waiting for it; a load before it is
			// acknowledged would have nowhere to be told.
			select {
			case <-c.acked:
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/subscriptions/acknowledged for the client's listen")
			}
		}
		return c
	}
	for _, version := range []string{"", "2025-11-25"} {
		name := version
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			exerciseDeferred(t, stdio(t, version), stdio(t, version))
			neverRelists(t, stdio(t, version))
		})
	}
}

// TestDeferredInMemory covers a session served by Server().Connect, as a program
// serving the gateway on a transport of its own does, and the end of its view with it.
func TestDeferredInMemory(t *testing.T) {
	g := newDeferredGateway(t)
	a := func() *deferredClient {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := g.Server().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		return connectDeferred(t, ct, "2025-11-25")
	}
	exerciseDeferred(t, a(), a())
}

// signal records a notification on ch without ever blocking the client's handler:
// a full channel already says something arrived, and a handler that blocked would
// hold the client's Close forever (catalog changes may come in numbers under load).
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
