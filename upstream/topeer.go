package upstream

import (
	"context"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay"
)

// notifications the connection follows itself, by listing again.
const (
	notificationToolsChanged  = "notifications/tools/list_changed"
	notificationResChanged    = "notifications/resources/list_changed"
	notificationPromptChanged = "notifications/prompts/list_changed"
)

// middleware hands server-to-client requests and notifications to the Peer and
// turns list_changed notifications into re-lists of the connection c.
func (s *Supervisor) middleware(c *conn) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ordered[method] {
				defer c.noteHandled() // after the Peer has it: see order.go
			}
			switch method {
			case relay.MethodCreateMessage, relay.MethodElicit, relay.MethodListRoots:
				if p := s.opts.Peer; p != nil {
					return p.Request(s.inflight.context(ctx), s.cfg.Name, method, req.GetParams())
				}
			case relay.NotificationLog:
				if p := s.opts.Peer; p != nil {
					p.Notify(s.inflight.context(ctx), s.cfg.Name, method, req.GetParams())
				}
				s.logMessage(req.GetParams())
			case relay.NotificationProgress, relay.NotificationResourceUpdated, relay.NotificationElicitComplete:
				if p := s.opts.Peer; p != nil {
					p.Notify(s.inflight.context(ctx), s.cfg.Name, method, req.GetParams())
				}
			case notificationToolsChanged:
				c.listsChanged(listTools)
			case notificationResChanged:
				c.listsChanged(listResources)
			case notificationPromptChanged:
				c.listsChanged(listPrompts)
			}
			return next(ctx, method, req)
		}
	}
}

// inflight remembers the contexts of the calls under way to one server, newest
// last. (A call's notifications are all handled before its response is released:
// see order.go.)
type inflight struct {
	mu    sync.Mutex
	seq   uint64
	calls []inflightCall
}

type inflightCall struct {
	id  uint64
	ctx context.Context
}

// begin registers a call's context until the returned function runs. Calls are
// many and server messages few: a call costs no allocation, a message one copy.
func (f *inflight) begin(ctx context.Context) (end func()) {
	f.mu.Lock()
	f.seq++
	id := f.seq
	f.calls = append(f.calls, inflightCall{id, ctx})
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.calls = slices.DeleteFunc(f.calls, func(c inflightCall) bool { return c.id == id })
	}
}

// context is ctx (a server's message, as the SDK hands it over) as a Peer gets it:
// with the calls under way (see relay.MessageContext).
func (f *inflight) context(ctx context.Context) context.Context {
	f.mu.Lock()
	calls := make([]context.Context, len(f.calls))
	for i, c := range f.calls {
		calls[i] = c.ctx
	}
	f.mu.Unlock()
	return relay.MessageContext(ctx, calls)
}
