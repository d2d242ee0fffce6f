package search

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/tool"
)

// The bounds of the two model-facing search tools.
const (
	DefaultSearchLimit = 5   // tool_search's limit when the model gives none
	DefaultRegexLimit  = 10  // tool_search_regex's
	MaxLimit           = 50  // the most results either returns
	MaxPatternLen      = 200 // the longest pattern tool_search_regex accepts, in characters
	DescriptionLen     = 200 // a summary's description is cut to this many characters
)

// ToolSearch is the tool_search tool: Search with its arguments checked. A limit
// of 0 means DefaultSearchLimit. The errors are worded for the model, which gets
// them as an error result it can act on.
func (ix *Index) ToolSearch(query string, limit int) ([]Result, error) {
	limit, err := checkLimit(limit, DefaultSearchLimit)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(query) == "" {
		return nil, fmt.Errorf(`query is empty: describe the tool you need in a few words, e.g. "create a GitHub issue"`)
	}
	return ix.Search(query, limit), nil
}

// ToolSearchRegex is the tool_search_regex tool: Regex with its arguments checked
// (a limit of 0 means DefaultRegexLimit), errors worded for the model.
func (ix *Index) ToolSearchRegex(pattern string, limit int) ([]Result, error) {
	limit, err := checkLimit(limit, DefaultRegexLimit)
	if err != nil {
		return nil, err
	}
	if pattern == "" {
		return nil, fmt.Errorf(`pattern is empty: give a regular expression such as "issue|ticket", matched case-insensitively against tool names, descriptions and parameters`)
	}
	if n := utf8.RuneCountInString(pattern); n > MaxPatternLen {
		return nil, fmt.Errorf("pattern is %d characters long; the limit is %d: use a shorter pattern, or tool_search for a description in words", n, MaxPatternLen)
	}
	res, err := ix.Regex(pattern, limit)
	if err != nil {
		return nil, fmt.Errorf("pattern %q is not a valid regular expression (%v): fix it (Go RE2 syntax, no lookaround or backreferences) or use tool_search for a description in words", pattern, err)
	}
	return res, nil
}

func checkLimit(limit, def int) (int, error) {
	switch {
	case limit == 0:
		return def, nil
	case limit < 0 || limit > MaxLimit:
		return 0, fmt.Errorf("limit %d is out of range: give 1 to %d, or leave it out for %d", limit, MaxLimit, def)
	}
	return limit, nil
}

// Summary is how a result reads to the model: the exposed name, the server, the
// description on one line cut to DescriptionLen characters, and a line of
// parameters (see Params):
//
//	dns_lookup (server dns): Resolve a DNS zone's records.
//	  parameters: zone: string (required), format: string
func Summary(t tool.Tool) string {
	var b strings.Builder
	b.WriteString(t.Name)
	if t.Server != "" {
		fmt.Fprintf(&b, " (server %s)", t.Server)
	}
	if d := Description(t); d != "" {
		b.WriteString(": " + d)
	}
	b.WriteString("\n  parameters: " + Params(t))
	return b.String()
}

// Description is a tool's description on one line, cut to DescriptionLen
// characters, as Summary gives it.
func Description(t tool.Tool) string {
	return cut(strings.Join(strings.Fields(t.Description), " "), DescriptionLen)
}

// Params is a tool's parameters on one line, the required ones first, then by
// name: "zone: string (required), format: string"; "none" when it takes none.
func Params(t tool.Tool) string {
	ps := params(t.InputSchema)
	if len(ps) == 0 {
		return "none"
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		s := p.Name
		if p.Type != "" {
			s += ": " + p.Type
		}
		if p.Required {
			s += " (required)"
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}

// cut shortens s to at most n characters, the last being "…" when it cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}
