package deferred

import (
	"context"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/search"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Find searches ix as the search tools do: by words (ranked with emb too when it
// is set), or by a regular expression when regex is set; at most limit results (0:
// the search's default), its errors worded for the model. keep, when set, keeps only
// the tools it allows (a caller's profiles, package access): the whole catalog is
// ranked and the best of those kept are returned, so that a caller who reaches few
// tools still finds them. The HTTP API's search and the views' are this one.
func Find(ctx context.Context, ix *search.Index, emb *search.Embeddings, query string, regex bool, limit int, keep func(tool.Tool) bool) ([]search.Result, error) {
	run := func(n int) ([]search.Result, error) {
		switch {
		case regex:
			return ix.ToolSearchRegex(query, n)
		case emb != nil:
			return emb.ToolSearch(ctx, ix, query, n)
		}
		return ix.ToolSearch(query, n)
	}
	if keep == nil || limit < 0 || limit > search.MaxLimit {
		return run(limit) // a bad limit's error is the search's
	}
	if limit == 0 {
		limit = search.DefaultSearchLimit
		if regex {
			limit = search.DefaultRegexLimit
		}
	}
	// The query checked as the search checks it, then every tool ranked.
	var check func(string, int) ([]search.Result, error) = ix.ToolSearch
	if regex {
		check = ix.ToolSearchRegex
	}
	if _, err := check(query, 1); err != nil {
		return nil, err
	}
	var all []search.Result
	switch n := max(ix.Len(), 1); {
	case regex:
		all, _ = ix.Regex(query, n) // it parsed above
	case emb != nil:
		all = emb.Search(ctx, ix, query, n)
	default:
		all = ix.Search(query, n)
	}
	out := make([]search.Result, 0, limit)
	for _, r := range all {
		if len(out) == limit {
			break
		}
		if keep(r.Tool) {
			out = append(out, r)
		}
	}
	return out, nil
}

// refused is the answer to a call of a tool that keep does not allow: unknown, as
// a tool nobody has, never made; inner audits it as refused when it audits its
// calls (a hub's AuditRefused).
func refused(ctx context.Context, inner tool.Toolset, name string, args json.RawMessage) *tool.Result {
	tool.AuditRefused(ctx, inner, name, args)
	return tool.ErrorResult("unknown tool %q", name)
}
