package host

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/search"
	"github.com/switchboard-mcp/switchboard/tool"
)

// A program that reports on the servers rather than serving them (a command line's
// tools, status, search) starts them in two halves: Launch, which returns at once,
// then Settle, which waits for every server and tells the program which ones are
// slow meanwhile. What it then shows comes from Servers (each server's state, as
// data the program renders), ToolCatalog (the catalog in a provider's form) and
// NewSearcher.

// ServerState is one server as a status display shows it: its status as the API
// writes it (apiwire), so that a program renders a server of its own and one of a
// running service alike.
type ServerState struct {
	apiwire.ServerStatus
	// Exposed is how many of the server's tools the catalog shows: Status.Tools
	// after its allow/deny lists.
	Exposed int
	// Reason says why the server is not ready (hub.NotReadyReason): its last
	// error, or how long it has been trying; "" when it is ready or disabled.
	Reason string
}

// Servers is the state of every server, in the config's order.
func (h *Host) Servers() []ServerState {
	exposed := map[string]int{}
	for _, t := range h.hub.Tools() {
		exposed[t.Server]++
	}
	sts := h.hub.Status()
	out := make([]ServerState, len(sts))
	for i, st := range sts {
		out[i] = ServerState{ServerStatus: WireStatus(st), Exposed: exposed[st.Name], Reason: h.hub.NotReadyReason(st)}
	}
	return out
}

// WireStatus is st as the API writes it (GET /v1/servers), and as a program
// renders it: what SignIn and a hub's WaitServer return, for a program that
// imports neither hub nor upstream.
func WireStatus(st hub.Status) apiwire.ServerStatus { return hub.WireStatus(st) }

// Launch starts every server and returns at once (hub.Launch): servers join the
// catalog as each becomes ready. Settle, WaitTool and Start wait for them.
func (h *Host) Launch() error { return h.hub.Launch() }

// SettleOptions are what a program does while Settle waits. The zero value waits
// without a word.
type SettleOptions struct {
	// NoticeAfter is how long Settle waits before it tells Slow which servers it
	// still waits for; 0: it tells nobody.
	NoticeAfter time.Duration
	// Slow is told once, after NoticeAfter, the servers still awaited (within
	// their init timeouts).
	Slow func(pending []ServerState)
	// Settled runs once every server has settled and before a required server
	// that is not ready fails the start: a program signs in there to the servers
	// that wait for a person's sign-in.
	Settled func(ctx context.Context)
}

// Settle waits until every launched server is ready, failed, disabled or past its
// init timeout, then checks the start as hub.Start does: an error is a required
// server that did not come up, or a *tool.CollisionError under naming "never"
// (ConfigFault tells them apart). The sign-ins' store is not checked here: ask
// SignInError before Launch.
func (h *Host) Settle(ctx context.Context, opts *SettleOptions) error {
	var o SettleOptions
	if opts != nil {
		o = *opts
	}
	if o.NoticeAfter > 0 && o.Slow != nil {
		wctx, cancel := context.WithTimeout(ctx, o.NoticeAfter)
		err := h.hub.WaitSettled(wctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			if pending := h.pending(); len(pending) > 0 {
				o.Slow(pending)
			}
		}
	}
	if err := h.hub.WaitSettled(ctx); err == nil && o.Settled != nil {
		o.Settled(ctx)
	}
	return h.hub.Start(ctx)
}

// pending is the state of the servers the hub still waits for.
func (h *Host) pending() []ServerState {
	sts := h.hub.Pending()
	out := make([]ServerState, len(sts))
	for i, st := range sts {
		out[i] = ServerState{ServerStatus: WireStatus(st), Reason: h.hub.NotReadyReason(st)}
	}
	return out
}

// ConfigFault reports whether a failed Start or Settle is the config's fault: a
// naming collision (naming "never") or a setting the Host cannot work with
// (*SettingsError), rather than a server that did not come up.
func ConfigFault(err error) bool {
	var (
		ce *tool.CollisionError
		se *SettingsError
	)
	return errors.As(err, &ce) || errors.As(err, &se)
}

// ToolCatalog is the catalog as provider p's API takes it (format.MCP, OpenAI,
// ...; strict: OpenAI's strict-mode schemas), as GET /v1/tools answers it: the
// same function makes both.
func (h *Host) ToolCatalog(p format.Provider, strict bool) (any, error) {
	return api.Catalog(h.hub.Tools(), p, strict)
}

// Searcher ranks the catalog as it was when it was made, as deferred mode's search
// tools do: tool_search's words (with the configured embeddings, when any) and
// tool_search_regex's patterns.
type Searcher struct {
	ix  *search.Index
	emb *search.Embeddings // nil: lexical ranking only
}

// NewSearcher indexes the catalog now, to be ranked with emb (Embeddings; nil:
// words alone).
func (h *Host) NewSearcher(emb *search.Embeddings) *Searcher {
	return &Searcher{ix: search.New(h.hub.Tools()), emb: emb}
}

// Len is the number of tools searched.
func (s *Searcher) Len() int { return s.ix.Len() }

// Search ranks the tools against text, a task in words; limit 0: the default.
// The embeddings' failure leaves the ranking to the words alone. The results are
// as GET /v1/search writes them, best first.
func (s *Searcher) Search(ctx context.Context, text string, limit int) ([]apiwire.SearchResult, error) {
	if s.emb != nil {
		return wireResults(s.emb.ToolSearch(ctx, s.ix, text, limit))
	}
	return wireResults(s.ix.ToolSearch(text, limit))
}

// SearchRegex matches pattern (RE2, case-insensitive) against the tools' names,
// descriptions and parameters; limit 0: the default.
func (s *Searcher) SearchRegex(pattern string, limit int) ([]apiwire.SearchResult, error) {
	return wireResults(s.ix.ToolSearchRegex(pattern, limit))
}

// wireResults is found as the API writes it.
func wireResults(found []search.Result, err error) ([]apiwire.SearchResult, error) {
	if err != nil {
		return nil, err
	}
	out := make([]apiwire.SearchResult, len(found))
	for i, f := range found {
		out[i] = apiwire.SearchResult{Name: f.Tool.Name, Server: f.Tool.Server,
			OriginalName: f.Tool.OriginalName, Description: f.Tool.Description, Score: f.Score}
	}
	return out, nil
}

// Tools is the catalog now: every ready server's tools, under their exposed names.
func (h *Host) Tools() []tool.Tool { return h.hub.Tools() }

// CheckArguments returns a *tool.DepthError when args nest deeper than the hub's
// bound (hub.CheckArguments): a call's arguments, checked before they go.
func (h *Host) CheckArguments(args json.RawMessage) error { return h.hub.CheckArguments(args) }

// WaitTool waits until tool name can be called on a launched Host: its server is
// ready, and so are those listed before it (hub.WaitTool). A name that no settled
// server has is an error that UnknownTool finds.
func (h *Host) WaitTool(ctx context.Context, name string) (tool.Tool, error) {
	return h.hub.WaitTool(ctx, name)
}

// UnknownTool is err's error of a name no tool has (with the closest names), or nil
// when err is another.
func UnknownTool(err error) error {
	var u *hub.UnknownToolError
	if errors.As(err, &u) {
		return u
	}
	return nil
}
