package search

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/tool"
)

func TestSummary(t *testing.T) {
	dns := catalog(t)[3]
	want := "dns_lookup (server dns): Resolve a DNS zone's records.\n  parameters: zone: string (required), format: string"
	if got := Summary(dns); got != want {
		t.Errorf("Summary =\n%s\nwant\n%s", got, want)
	}
	long := tool.Tool{Name: "t", Description: "line one\nline two " + strings.Repeat("é", 300)}
	got := Summary(long)
	first, params, _ := strings.Cut(got, "\n")
	d := strings.TrimPrefix(first, "t: ")
	if n := utf8.RuneCountInString(d); n != DescriptionLen || !strings.HasSuffix(d, "…") || !strings.HasPrefix(d, "line one line two é") {
		t.Errorf("description cut to %d characters: %q", n, d)
	}
	if params != "  parameters: none" {
		t.Errorf("no schema gives %q", params)
	}
}

// The argument checks answer with messages the model can act on.
func TestToolSearchArguments(t *testing.T) {
	ix := New(catalog(t))
	for _, c := range []struct {
		name string
		run  func() ([]Result, error)
		want string
	}{
		{"empty query", func() ([]Result, error) { return ix.ToolSearch("  ", 0) }, "query is empty: describe the tool you need"},
		{"limit over", func() ([]Result, error) { return ix.ToolSearch("issue", 51) }, "limit 51 is out of range: give 1 to 50, or leave it out for 5"},
		{"limit negative", func() ([]Result, error) { return ix.ToolSearchRegex("issue", -1) }, "limit -1 is out of range: give 1 to 50, or leave it out for 10"},
		{"empty pattern", func() ([]Result, error) { return ix.ToolSearchRegex("", 0) }, "pattern is empty"},
		{"long pattern", func() ([]Result, error) { return ix.ToolSearchRegex(strings.Repeat("a", 201), 0) }, "pattern is 201 characters long; the limit is 200"},
		{"invalid pattern", func() ([]Result, error) { return ix.ToolSearchRegex("(issue", 0) }, "pattern \"(issue\" is not a valid regular expression (error parsing regexp: missing closing ): `(issue`): fix it"},
	} {
		res, err := c.run()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, %v; want an error containing %q", c.name, res, err, c.want)
		}
	}
	// Defaults and the bounds themselves are accepted.
	if res, err := ix.ToolSearchRegex(strings.Repeat("a", 200), 50); err != nil || len(res) != 0 {
		t.Errorf("200-character pattern: %v, %v", res, err)
	}
	many := make([]tool.Tool, 60)
	for i := range many {
		many[i] = tool.Tool{Name: strings.Repeat("x", i+1), Description: "a widget tool"}
	}
	big := New(many)
	for _, c := range []struct {
		name string
		n    func() (int, error)
		want int
	}{
		{"search default", func() (int, error) { r, err := big.ToolSearch("widget", 0); return len(r), err }, DefaultSearchLimit},
		{"regex default", func() (int, error) { r, err := big.ToolSearchRegex("widget", 0); return len(r), err }, DefaultRegexLimit},
		{"search max", func() (int, error) { r, err := big.ToolSearch("widget", 50); return len(r), err }, MaxLimit},
	} {
		if n, err := c.n(); err != nil || n != c.want {
			t.Errorf("%s: %d results, %v; want %d", c.name, n, err, c.want)
		}
	}
}
