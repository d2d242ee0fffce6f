package deferred

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/tool"
)

func schema(t *testing.T, props map[string]string, required ...string) json.RawMessage {
	t.Helper()
	p := map[string]any{}
	for n, typ := range props {
		p[n] = map[string]any{"type": typ, "description": "the " + n}
	}
	b, err := json.Marshal(map[string]any{"type": "object", "properties": p, "required": required})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// catalog is a few tools of several servers, as search's tests have them.
func catalog(t *testing.T) []tool.Tool {
	return []tool.Tool{
		{Name: "github_create_issue", OriginalName: "create_issue", Server: "github", Description: "Create a new issue in a repository.",
			InputSchema: schema(t, map[string]string{"repo": "string", "title": "string", "body": "string"}, "repo", "title")},
		{Name: "github_list_issues", OriginalName: "list_issues", Server: "github", Description: "List issues of a repository.",
			InputSchema: schema(t, map[string]string{"repo": "string", "state": "string"}, "repo")},
		{Name: "weather_get_forecast", OriginalName: "getForecast", Server: "weather", Description: "Get the weather forecast for a city.",
			InputSchema: schema(t, map[string]string{"city": "string", "days": "integer"}, "city")},
		{Name: "dns_lookup", OriginalName: "lookup", Server: "dns", Description: "Resolve a DNS zone's records.",
			InputSchema: schema(t, map[string]string{"zone": "string", "format": "string"}, "zone")},
	}
}

// localCatalog is a tool.Local with the test catalog's tools, each answering with
// its own name, plus n filler tools.
func localCatalog(t *testing.T, n int) *tool.Local {
	t.Helper()
	l := tool.NewLocal()
	for _, c := range catalog(t) {
		name := c.Name
		if err := l.AddRaw(name, c.Description, c.InputSchema, func(context.Context, json.RawMessage) (*tool.Result, error) {
			return tool.TextResult("ran " + name), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		name := fmt.Sprintf("filler_%03d", i)
		if err := l.AddRaw(name, fmt.Sprintf("Filler tool number %d that counts sheep.", i), nil, func(context.Context, json.RawMessage) (*tool.Result, error) {
			return tool.TextResult("ran " + name), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func listed(ts tool.Toolset) []string {
	var out []string
	for _, t := range ts.Tools() {
		out = append(out, t.Name)
	}
	return out
}

func callText(t *testing.T, ts tool.Toolset, name, args string) (string, bool) {
	t.Helper()
	res, err := ts.Call(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return tool.Text(res), res.IsError
}

func TestDeferredModes(t *testing.T) {
	small := localCatalog(t, 0)  // 4 tools
	large := localCatalog(t, 20) // 24 tools
	for _, c := range []struct {
		name   string
		inner  tool.Toolset
		policy Policy
		want   bool
	}{
		{"auto below the threshold", small, Policy{}, false},
		{"auto at the threshold", large, Policy{}, true},
		{"auto with a threshold of its own", large, Policy{Threshold: 30}, false},
		{"always", small, Policy{Mode: Always}, true},
		{"never", large, Policy{Mode: Never}, false},
		// 24 small definitions are about 1,300 tokens: over 1% of 128k, under 10%.
		{"share under", large, Policy{Share: 0.10}, false},
		{"share over", large, Policy{Share: 0.001}, true},
		{"share of a small window", large, Policy{Share: 0.10, ContextWindow: 4000}, true},
	} {
		d := New(c.inner, c.policy)
		if got := d.Active(); got != c.want {
			t.Errorf("%s: Active() = %v, want %v (%d tools, ~%d tokens)", c.name, got, c.want, len(c.inner.Tools()), EstimateTokens(c.inner.Tools()))
		}
		v := d.View(nil, nil)
		got := listed(v)
		if c.want {
			if !slices.Equal(got, []string{SearchToolName, RegexToolName}) {
				t.Errorf("%s: deferred view lists %v, want only the search tools", c.name, got)
			}
		} else if len(got) != len(c.inner.Tools()) {
			t.Errorf("%s: view lists %d tools, want the whole catalog (%d)", c.name, len(got), len(c.inner.Tools()))
		}
	}
}

func TestDeferredSearchLoads(t *testing.T) {
	inner := localCatalog(t, 20)
	var saved [][]string
	d := New(inner, Policy{Pinned: func(t tool.Tool) bool { return t.Name == "dns_lookup" }})
	v := d.View([]string{"filler_007"}, func(l []string) { saved = append(saved, l) })
	defer v.Close()
	want := []string{SearchToolName, RegexToolName, "dns_lookup", "filler_007"}
	if got := listed(v); !slices.Equal(got, want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
	changed := v.Changed()

	text, isErr := callText(t, v, SearchToolName, `{"query": "weather forecast for Paris", "limit": 1}`)
	if isErr || !strings.Contains(text, "weather_get_forecast (server local): Get the weather forecast for a city.") ||
		!strings.Contains(text, "parameters: city: string (required), days: integer") || !strings.Contains(text, "now loaded") {
		t.Fatalf("tool_search result (error %v):\n%s", isErr, text)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("Changed was not closed by a load")
	}
	want = []string{SearchToolName, RegexToolName, "weather_get_forecast", "dns_lookup", "filler_007"} // catalog order
	if got := listed(v); !slices.Equal(got, want) {
		t.Fatalf("after the search: listed %v, want %v", got, want)
	}
	if len(saved) != 1 || !slices.Equal(saved[0], []string{"filler_007", "weather_get_forecast"}) {
		t.Errorf("saved %v, want one save of the sorted set", saved)
	}

	// By exact name: works unlisted, and loads.
	text, isErr = callText(t, v, "github_list_issues", `{"repo": "a/b"}`)
	if isErr || text != "ran github_list_issues" {
		t.Fatalf("calling an unlisted catalog tool: %q (error %v)", text, isErr)
	}
	if !slices.Contains(listed(v), "github_list_issues") {
		t.Errorf("a call by name did not load the tool: %v", listed(v))
	}
	// The regex tool, on parameters too.
	text, isErr = callText(t, v, RegexToolName, `{"pattern": "ZONE"}`)
	if isErr || !strings.Contains(text, "dns_lookup") {
		t.Errorf("tool_search_regex on a parameter name: %q (error %v)", text, isErr)
	}
	// Another session's view is its own.
	if other := listed(d.View(nil, nil)); !slices.Equal(other, []string{SearchToolName, RegexToolName, "dns_lookup"}) {
		t.Errorf("a second view lists %v: loads leaked between sessions", other)
	}
}

func TestDeferredErrorsForTheModel(t *testing.T) {
	v := New(localCatalog(t, 20), Policy{CallTool: true}).View(nil, nil)
	for _, c := range []struct{ name, args, want string }{
		{SearchToolName, `{"query": "  "}`, "query is empty"},
		{SearchToolName, `{}`, `needs "query"`},
		{SearchToolName, `{"query": "x", "limit": 2.5}`, "not a whole number"},
		{SearchToolName, `{"query": "x", "limit": 51}`, "out of range"},
		{SearchToolName, `[1]`, "takes an object"},
		{RegexToolName, `{"pattern": "(unclosed"}`, "not a valid regular expression"},
		{RegexToolName, `{"pattern": "` + strings.Repeat("a", 201) + `"}`, "the limit is 200"},
		{CallToolName, `{"arguments": {}}`, `needs "name"`},
		{CallToolName, `{"name": "nope"}`, `unknown tool "nope"`},
		{CallToolName, `{"name": "tool_search"}`, "call tool_search directly"},
	} {
		text, isErr := callText(t, v, c.name, c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s(%s) = %q (error %v), want an error result containing %q", c.name, c.args, text, isErr, c.want)
		}
	}
	text, isErr := callText(t, v, SearchToolName, `{"query": "zzzqqq"}`)
	if isErr || !strings.Contains(text, "No tools matched") || !strings.Contains(text, RegexToolName) {
		t.Errorf("no match: %q (error %v), want a hint that is not an error", text, isErr)
	}
	text, isErr = callText(t, v, CallToolName, `{"name": "dns_lookup", "arguments": {"zone": "x"}}`)
	if isErr || text != "ran dns_lookup" || !slices.Contains(listed(v), "dns_lookup") {
		t.Errorf("tool_call: %q (error %v); listed %v", text, isErr, listed(v))
	}
}

// A loaded tool that leaves the catalog leaves every list; back under its name, it
// returns, with the index following the catalog.
func TestDeferredFollowsCatalog(t *testing.T) {
	inner := localCatalog(t, 20)
	d := New(inner, Policy{})
	v := d.View([]string{"dns_lookup"}, nil)
	if !slices.Contains(listed(v), "dns_lookup") {
		t.Fatal("loaded tool not listed")
	}
	if text, _ := callText(t, v, SearchToolName, `{"query": "resolve dns zone records"}`); !strings.Contains(text, "dns_lookup") {
		t.Fatalf("search before the removal: %s", text)
	}
	inner.Remove("dns_lookup")
	if slices.Contains(listed(v), "dns_lookup") {
		t.Error("a tool gone from the catalog is still listed")
	}
	if text, _ := callText(t, v, SearchToolName, `{"query": "resolve dns zone records"}`); strings.Contains(text, "dns_lookup") {
		t.Errorf("the index still finds a removed tool: %s", text)
	}
	if err := inner.AddRaw("dns_lookup", "Resolve a DNS zone's records.", nil, func(context.Context, json.RawMessage) (*tool.Result, error) {
		return tool.TextResult("back"), nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(listed(v), "dns_lookup") {
		t.Error("a loaded tool that came back is not listed again")
	}
	if text, _ := callText(t, v, SearchToolName, `{"query": "resolve dns zone records"}`); !strings.Contains(text, "dns_lookup") {
		t.Errorf("the index did not follow the tool's return: %s", text)
	}
}

// Views of one catalog searched and loaded from many goroutines (run with -race).
func TestDeferredConcurrent(t *testing.T) {
	inner := localCatalog(t, 200)
	d := New(inner, Policy{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := d.View(nil, nil)
			defer v.Close()
			_ = v.Changed()
			for j := range 20 {
				q := fmt.Sprintf(`{"query": "filler tool number %d"}`, i*20+j)
				if _, isErr := callText(t, v, SearchToolName, q); isErr {
					t.Errorf("search %s failed", q)
				}
				_ = v.Tools()
			}
			if got := len(v.Loaded()); got == 0 {
				t.Error("nothing loaded")
			}
		}()
	}
	wg.Wait()
}

// The search tools tell the model what the catalog holds, in words it reads.
func TestDeferredDescriptions(t *testing.T) {
	tools := New(localCatalog(t, 20), Policy{CallTool: true}).View(nil, nil).Tools()
	want := []string{
		"Search the tool catalog (24 tools from the server local) in natural language",
		"Find tools in the catalog (24 tools from the server local) whose name, description or parameters match",
		"Call any tool of the catalog by its exact name",
	}
	if len(tools) != 3 {
		t.Fatalf("listed %d tools, want the three meta tools", len(tools))
	}
	for i, w := range want {
		if !strings.HasPrefix(tools[i].Description, w) {
			t.Errorf("%s's description %q, want it to start %q", tools[i].Name, tools[i].Description, w)
		}
	}
}

// Deferreds of one Catalog, under different policies, share its index: built once,
// and once again after a change.
func TestCatalogShared(t *testing.T) {
	inner := localCatalog(t, 20)
	cat := NewCatalog(inner)
	always := cat.Views(Policy{Mode: Always, CallTool: true})
	never := cat.Views(Policy{Mode: Never})
	ix := always.Index()
	if never.Index() != ix || cat.Index() != ix {
		t.Fatal("Deferreds of one Catalog built an index each")
	}
	if !always.Active() || never.Active() {
		t.Errorf("Active: always %v, never %v; each keeps its own policy", always.Active(), never.Active())
	}
	if err := inner.AddRaw("fax_send", "Send a fax.", nil, func(context.Context, json.RawMessage) (*tool.Result, error) {
		return tool.TextResult("sent"), nil
	}); err != nil {
		t.Fatal(err)
	}
	after := never.Index()
	if after == ix || always.Index() != after || after.Len() != ix.Len()+1 {
		t.Errorf("after a change: a new index of %d tools shared by both, want %d", after.Len(), ix.Len()+1)
	}
	if text, _ := callText(t, always.View(nil, nil), SearchToolName, `{"query": "send a fax"}`); !strings.Contains(text, "fax_send") {
		t.Errorf("search after the change: %s", text)
	}
}
