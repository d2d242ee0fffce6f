package deferred

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/tool"
)

// TestViewOnly: a view with keep (a caller's profiles) lists, finds and calls only
// what keep allows, deferred or not; its search tools count only those tools, and a
// search returns the best of them even when others rank higher.
func TestViewOnly(t *testing.T) {
	inner := localCatalog(t, 20)
	keep := func(t tool.Tool) bool { return t.Name == "dns_lookup" || t.Name == "github_list_issues" }
	for _, mode := range []Mode{Always, Never} {
		v := New(inner, Policy{Mode: mode, CallTool: true}).ViewOnly(keep, []string{"filler_001"}, nil)
		t.Cleanup(func() { v.Close() })
		got := listed(v)
		if mode == Never {
			if !slices.Equal(got, []string{"github_list_issues", "dns_lookup"}) {
				t.Errorf("not deferred: lists %v", got)
			}
			continue
		}
		if !slices.Equal(got, []string{SearchToolName, RegexToolName, CallToolName}) {
			t.Errorf("deferred: lists %v (a loaded tool it does not reach included?)", got)
		}
		if d := v.Tools()[0].Description; !strings.Contains(d, "2 tools from the server local") {
			t.Errorf("tool_search counts what the caller cannot reach: %s", d)
		}
		text, isErr := callText(t, v, SearchToolName, `{"query": "create an issue in a repository", "limit": 1}`)
		if isErr || !strings.Contains(text, "github_list_issues") || strings.Contains(text, "github_create_issue") {
			t.Errorf("tool_search: %s", text)
		}
		text, _ = callText(t, v, RegexToolName, `{"pattern": "filler|issue"}`)
		if strings.Contains(text, "filler_") || strings.Contains(text, "create_issue") || !strings.Contains(text, "github_list_issues") {
			t.Errorf("tool_search_regex: %s", text)
		}
		for _, call := range [][2]string{{"github_create_issue", `{"repo": "r", "title": "t"}`}, {CallToolName, `{"name": "filler_003"}`}} {
			if text, isErr := callText(t, v, call[0], call[1]); !isErr || !strings.Contains(text, "unknown tool") {
				t.Errorf("%s %s ran: %s", call[0], call[1], text)
			}
		}
		if text, isErr := callText(t, v, "dns_lookup", `{"zone": "z"}`); isErr || text != "ran dns_lookup" {
			t.Errorf("dns_lookup: %s", text)
		}
		if _, ok := v.Lookup("filler_002"); ok {
			t.Error("Lookup finds a tool the view does not reach")
		}
		if !slices.Contains(listed(v), "dns_lookup") || slices.Contains(listed(v), "filler_001") {
			t.Errorf("after the call: %v", listed(v))
		}
	}
}

// TestFind: without keep, Find is the search tools' search; with it, the best of
// what keep allows, up to the limit (the default when 0), and the same errors.
func TestFind(t *testing.T) {
	ix := NewCatalog(localCatalog(t, 20)).Index()
	ctx := context.Background()
	all, err := Find(ctx, ix, nil, "filler sheep", false, 0, nil)
	if err != nil || len(all) != 5 {
		t.Fatalf("no keep: %d results, %v", len(all), err)
	}
	odd := func(t tool.Tool) bool { return strings.HasSuffix(t.Name, "1") || strings.HasSuffix(t.Name, "3") }
	some, err := Find(ctx, ix, nil, "filler sheep", false, 3, odd)
	if err != nil || len(some) != 3 {
		t.Fatalf("keep: %v, %v", some, err)
	}
	for _, r := range some {
		if !odd(r.Tool) {
			t.Errorf("kept %s", r.Tool.Name)
		}
	}
	if _, err := Find(ctx, ix, nil, " ", false, 0, odd); err == nil || !strings.Contains(err.Error(), "query is empty") {
		t.Errorf("empty query: %v", err)
	}
	if _, err := Find(ctx, ix, nil, "(", true, 0, odd); err == nil || !strings.Contains(err.Error(), "not a valid regular expression") {
		t.Errorf("bad pattern: %v", err)
	}
	if _, err := Find(ctx, ix, nil, "x", false, 51, odd); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("bad limit: %v", err)
	}
}
