package search

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/tool"
)

// fuzzTools reads a catalog from fuzz input: one tool a line, fields split by
// tabs: name, description, then parameter name and description pairs. Names
// are made unique as a catalog's exposed names are.
func fuzzTools(s string) []tool.Tool {
	var tools []tool.Tool
	seen := map[string]bool{}
	for i, line := range strings.Split(s, "\n") {
		if i >= 40 {
			break
		}
		f := strings.Split(line, "\t")
		name := f[0]
		if seen[name] {
			continue
		}
		seen[name] = true
		t := tool.Tool{Name: name, OriginalName: name, Server: "s" + string(rune('a'+i%3))}
		if len(f) > 1 {
			t.Description = f[1]
		}
		props := map[string]any{}
		for j := 2; j+1 < len(f); j += 2 {
			props[f[j]] = map[string]any{"type": "string", "description": f[j+1]}
		}
		t.InputSchema, _ = json.Marshal(map[string]any{"type": "object", "properties": props})
		tools = append(tools, t)
	}
	return tools
}

// FuzzSearch: for any catalog and query, Search and Regex do not panic, return
// at most limit results, best first with ties by name, the same every time;
// an index derived by Update from another catalog answers exactly as one built
// afresh; and each result's Summary keeps its description to DescriptionLen.
func FuzzSearch(f *testing.F) {
	f.Add("create_issue\tCreate a new issue in a repository.\trepo\tThe repository\nlist_issues\tList issues.\nweatherforecast\tThe weather forecast for a city.",
		"get_weather\tCurrent weather.\ncreate_issue\tOpen an issue.", "create an issue in my repo", "issue|weather")
	f.Add("a\t\nb\tb b b\nc\tÉté à Paris 🚀 über", "", "été paris", "(?i)été")
	f.Add("getHTTPStatus\tsplits camelCase\nsnake_case_name\tx\nkebab-case.dotted\ty", "x\ty", "http status", "[")
	f.Fuzz(func(t *testing.T, before, after, query, pattern string) {
		old, now := fuzzTools(before), fuzzTools(after)
		ix := New(now)
		upd := New(old).Update(now)
		for _, limit := range []int{1, 5, 50} {
			got := ix.Search(query, limit)
			if len(got) > limit {
				t.Fatalf("Search(%q, %d): %d results", query, limit, len(got))
			}
			if !slices.EqualFunc(got, ix.Search(query, limit), sameResult) {
				t.Fatalf("Search(%q, %d) answered twice differently", query, limit)
			}
			if u := upd.Search(query, limit); !slices.EqualFunc(got, u, sameResult) {
				t.Fatalf("Search(%q, %d): New gives %q, Update %q", query, limit, names(got), names(u))
			}
			for _, r := range got {
				// What the model is shown: one line of description, cut to
				// DescriptionLen characters, still valid UTF-8.
				sum := Summary(r.Tool)
				first, _, _ := strings.Cut(sum, "\n  parameters: ")
				if !utf8.ValidString(sum) && utf8.ValidString(r.Tool.Description+r.Tool.Name) {
					t.Fatalf("Summary of %q is not valid UTF-8: %q", r.Tool.Name, sum)
				}
				if _, d, ok := strings.Cut(first, ": "); ok && utf8.RuneCountInString(d) > DescriptionLen+len(r.Tool.Name) {
					t.Fatalf("Summary of %q has a description of %d characters", r.Tool.Name, utf8.RuneCountInString(d))
				}
			}
			if limit == 1 { // diversification re-ranks longer lists on purpose
				continue
			}
			rx, err := ix.Regex(pattern, limit)
			if err != nil {
				continue
			}
			if len(rx) > limit {
				t.Fatalf("Regex(%q, %d): %d results", pattern, limit, len(rx))
			}
			for i := 1; i < len(rx); i++ {
				a, b := rx[i-1], rx[i]
				if a.Score < b.Score || a.Score == b.Score && a.Tool.Name > b.Tool.Name {
					t.Fatalf("Regex(%q): %q (%v) before %q (%v)", pattern, a.Tool.Name, a.Score, b.Tool.Name, b.Score)
				}
			}
			if u, _ := upd.Regex(pattern, limit); !slices.EqualFunc(rx, u, sameResult) {
				t.Fatalf("Regex(%q, %d): New gives %q, Update %q", pattern, limit, names(rx), names(u))
			}
		}
	})
}

func sameResult(a, b Result) bool { return a.Tool.Name == b.Tool.Name && a.Score == b.Score }
