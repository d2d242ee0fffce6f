package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Deferred mode (Options.Deferred): each client session gets a deferred.View of the
// catalog of its own. Its tools/list is that view's list (the search tools and
// tool_call, the pinned tools, what the session's searches found); its tools/call
// goes through the view, which loads what searches find and calls any catalog tool
// by its exact name, listed or not; and a call that loads tools sends that session
// alone notifications/tools/list_changed.
//
// The MCP server still registers every catalog tool (and the search tools' names)
// so that the SDK routes any call to the view: the registrations are never listed,
// since a receiving middleware answers tools/list. A catalog change changes every
// view's list (the search tools' descriptions count the catalog), so the SDK's own
// list_changed to every session is right then.

const (
	methodListTools        = "tools/list"
	methodListen           = "subscriptions/listen"
	notifyToolsListChanged = "notifications/tools/list_changed"
	notifyListenAcked      = "notifications/subscriptions/acknowledged"
)

// sessionViews holds the sessions' views of a deferred catalog.
type sessionViews struct {
	g *Gateway
	d *deferred.Views
	// send is the SDK's sending handler, under the gateway's sending middleware:
	// it sends a notification to the one session its request names.
	send mcp.MethodHandler

	mu      sync.Mutex
	views   map[*mcp.ServerSession]*deferred.View
	listens map[*mcp.ServerSession][]*listen // protocol 2026-07-28: open listens for tool list changes
}

// listen is a client's subscriptions/listen (protocol 2026-07-28, SEP-2575), on which
// list changes reach it, each marked with the listen's subscription ID.
type listen struct {
	ss *mcp.ServerSession
	id any // set once acknowledged with tools/list_changed in it
}

type (
	listenKey    struct{} // the context value of a subscriptions/listen handler: its *listen
	statelessKey struct{} // the context value of requests of Streamable HTTP without sessions
)

func newSessionViews(g *Gateway, d *deferred.Views) *sessionViews {
	return &sessionViews{g: g, d: d, views: map[*mcp.ServerSession]*deferred.View{}, listens: map[*mcp.ServerSession][]*listen{}}
}

// of is ss's view, made on the session's first tools request (ctx's) and closed
// when the session ends: it sees only what the access of ctx reaches (access.go).
func (s *sessionViews) of(ctx context.Context, ss *mcp.ServerSession) (*deferred.View, error) {
	s.mu.Lock()
	v := s.views[ss]
	if v != nil {
		s.mu.Unlock()
		return v, nil
	}
	v = s.d.ViewOnly(access.FromContext(ctx).Keep(), nil, nil)
	s.views[ss] = v
	s.mu.Unlock()
	if !s.g.spawn(func() {
		_ = ss.Wait()
		s.drop(ss)
	}) {
		s.drop(ss)
		return nil, errClosed
	}
	return v, nil
}

// drop forgets the view of ss, which has ended, and closes it.
func (s *sessionViews) drop(ss *mcp.ServerSession) {
	s.mu.Lock()
	v := s.views[ss]
	delete(s.views, ss)
	delete(s.listens, ss)
	s.mu.Unlock()
	if v != nil {
		_ = v.Close()
	}
}

// routes is what the MCP server registers in deferred mode: the catalog, and the
// search tools under their names unless the catalog has a tool by that name (the
// view decides which one a call means).
func (s *sessionViews) routes(catalog []tool.Tool) []tool.Tool {
	out := make([]tool.Tool, len(catalog), len(catalog)+3)
	copy(out, catalog)
	taken := make(map[string]bool, len(catalog))
	for _, t := range catalog {
		taken[t.Name] = true
	}
	for _, name := range []string{deferred.SearchToolName, deferred.RegexToolName, deferred.CallToolName} {
		if !taken[name] {
			// Only the name matters: the registration routes calls and is never listed.
			out = append(out, tool.Tool{Name: name, OriginalName: name, InputSchema: json.RawMessage(`{"type":"object"}`)})
		}
	}
	return out
}

// handler calls name through the session's view, and tells the session when the
// call loaded tools (a search, or a call by name of a tool it did not list).
func (s *sessionViews) handler(name string) mcp.ToolHandler {
	g := s.g
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p := req.Params // the SDK refuses a tools/call without params before this
		v, err := s.of(ctx, req.Session)
		if err != nil {
			return nil, err
		}
		call := func(ctx context.Context) (*mcp.CallToolResult, error) {
			ctx, _, done := g.fwd.begin(ctx, req.Session, p.Meta)
			defer done()
			changed := v.Changed()
			res, err := v.Call(ctx, name, p.Arguments)
			if isClosed(changed) {
				// Sent before the result: over Streamable HTTP it goes on the call's
				// own stream, which reaches a client that keeps no GET stream open.
				s.notify(ctx, req.Session)
			}
			return res, err
		}
		return roundTrip(ctx, g.fwd, req.Session, "tools/call "+name, p.RequestState, p.InputResponses, call, // see mrtr_clients.go
			func(m mcp.InputRequestMap, state string) *mcp.CallToolResult {
				return &mcp.CallToolResult{InputRequests: m, RequestState: state}
			})
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// notify sends ss notifications/tools/list_changed: on its session (protocol
// 2025-11-25 and before), or on each of its listens that asked for tool list changes
// (2026-07-28). A client of Streamable HTTP without sessions gets none: each of its
// requests is a session of its own, so nothing it loads stays listed.
func (s *sessionViews) notify(ctx context.Context, ss *mcp.ServerSession) {
	if ctx.Value(statelessKey{}) != nil {
		return
	}
	var params []*mcp.ToolListChangedParams
	if speaks2026(ss) {
		s.mu.Lock()
		for _, l := range s.listens[ss] {
			if l.id != nil {
				params = append(params, &mcp.ToolListChangedParams{Meta: mcp.Meta{mcp.MetaKeySubscriptionID: l.id}})
			}
		}
		s.mu.Unlock()
	} else {
		params = append(params, &mcp.ToolListChangedParams{})
	}
	for _, p := range params {
		if _, err := s.send(ctx, notifyToolsListChanged, &mcp.ServerRequest[*mcp.ToolListChangedParams]{Session: ss, Params: p}); err != nil {
			s.g.log.Debug("telling a client its tool list changed failed", "session", ss.ID(), "err", err)
		}
	}
}

// middleware answers tools/list with the session's view, and keeps track of the
// session's listens (protocol 2026-07-28). It runs after the forwarder's, so the
// catalog has started.
func (s *sessionViews) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss == nil {
			return next(ctx, method, req)
		}
		switch method {
		case methodListTools:
			p, _ := req.GetParams().(*mcp.ListToolsParams)
			return s.list(ctx, ss, p)
		case methodListen:
			l := &listen{ss: ss}
			res, err := next(context.WithValue(ctx, listenKey{}, l), method, req)
			s.unlisten(l)
			return res, err
		}
		return next(ctx, method, req)
	}
}

// list is the session's tools/list: one page, as a view lists a few tools (the
// search tools, the pinned ones, what the session found) unless the catalog is not
// deferred at all.
func (s *sessionViews) list(ctx context.Context, ss *mcp.ServerSession, p *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
	if p != nil && p.Cursor != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/list: unknown cursor (this server lists its tools in one page)"}
	}
	v, err := s.of(ctx, ss)
	if err != nil {
		return nil, err
	}
	tools := v.Tools()
	res := &mcp.ListToolsResult{Tools: make([]*mcp.Tool, 0, len(tools))}
	for _, t := range tools {
		res.Tools = append(res.Tools, t.MCP())
	}
	res.CacheScope = "private" // the list is this client's (2026-07-28, SEP-2549)
	return res, nil
}

// sending is the gateway's sending middleware in deferred mode: it keeps the SDK's
// handler beneath it (to send one session a notification), and learns the
// subscription ID of each listen that asked for tool list changes from its
// acknowledgement, which the SDK sends from the listen's handler.
func (s *sessionViews) sending(next mcp.MethodHandler) mcp.MethodHandler {
	s.send = next
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == notifyListenAcked {
			l, _ := ctx.Value(listenKey{}).(*listen)
			p, _ := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams)
			if l != nil && p != nil && p.Notifications.ToolsListChanged && p.Meta[mcp.MetaKeySubscriptionID] != nil {
				s.mu.Lock()
				l.id = p.Meta[mcp.MetaKeySubscriptionID]
				s.listens[l.ss] = append(s.listens[l.ss], l)
				s.mu.Unlock()
			}
		}
		return next(ctx, method, req)
	}
}

// unlisten forgets l, whose listen has ended.
func (s *sessionViews) unlisten(l *listen) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls := s.listens[l.ss]
	for i, x := range ls {
		if x == l {
			ls = append(ls[:i], ls[i+1:]...)
			break
		}
	}
	if len(ls) == 0 {
		delete(s.listens, l.ss)
	} else {
		s.listens[l.ss] = ls
	}
}

// stateless marks the requests of next, a Streamable HTTP handler without sessions,
// as such: the SDK hands a POST's context values to its handlers.
func stateless(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), statelessKey{}, true)))
	})
}
