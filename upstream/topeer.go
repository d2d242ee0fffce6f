package upstream

//lint:file-ignore SA1019 logging is deprecated in the 2026-07-28 protocol but lives in the versions clients use today; a proxy forwards it.

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Peer receives what an upstream server sends its client besides replies, so that a
// gateway can pass it on to its own clients.
//
// Over the protocol eras that have server-to-client requests, nothing on the wire
// says which call caused one. The ctx a Peer gets carries the values of the call
// to this server that began most recently and is still running (the call that most
// likely caused it), and the cancellation of the server's request.
type Peer interface {
	// Request answers a server-to-client request: sampling/createMessage
	// (params *mcp.CreateMessageWithToolsParams, result
	// *mcp.CreateMessageWithToolsResult), elicitation/create (*mcp.ElicitParams,
	// *mcp.ElicitResult) or roots/list (*mcp.ListRootsParams, *mcp.ListRootsResult).
	// One of several Peers (a hub's gateways) declines a request that is not for
	// its clients with NotMine, and the next is asked.
	Request(ctx context.Context, server, method string, params mcp.Params) (mcp.Result, error)
	// Notify delivers a notification: notifications/message
	// (*mcp.LoggingMessageParams), notifications/progress
	// (*mcp.ProgressNotificationParams), notifications/resources/updated
	// (*mcp.ResourceUpdatedNotificationParams) or notifications/elicitation/complete
	// (*mcp.ElicitationCompleteParams). It runs on the connection's reading
	// goroutine, in order: keep it short.
	Notify(ctx context.Context, server, method string, params mcp.Params)
}

// ErrNotMine is what a Peer's Request returns, wrapped by NotMine, for a request
// that is not for its clients (it came during a call another peer's client made, or
// the peer has no client that could answer it): whoever hands requests to several
// peers (a hub, to several gateways) then asks the next.
var ErrNotMine = errors.New("not for this peer")

// NotMine marks err, a Peer's refusal, as ErrNotMine: errors.Is(NotMine(err),
// ErrNotMine) holds, and the error reads and unwraps as err.
func NotMine(err error) error { return notMine{err} }

type notMine struct{ error }

func (e notMine) Unwrap() error      { return e.error }
func (notMine) Is(target error) bool { return target == ErrNotMine }

// PeerLink is a Peer's place with whatever hands it the servers' messages (a hub,
// which may have several Peers: one per gateway).
type PeerLink interface {
	// SetLogLevel asks the servers for log messages at level and above on the
	// Peer's behalf; "" withdraws its wish. The servers are asked for the most
	// verbose level any Peer (or the program) wants; with none left they keep
	// the last (the protocol cannot unset it).
	SetLogLevel(ctx context.Context, level mcp.LoggingLevel) error
	// Remove stops handing the Peer messages and withdraws its log level.
	Remove()
}

// MostVerbose is the most verbose of levels, ignoring "" and names that are not
// levels ("" if none is).
func MostVerbose(levels ...mcp.LoggingLevel) mcp.LoggingLevel {
	var out mcp.LoggingLevel
	for _, l := range levels {
		if r, ok := levelRank[l]; ok && (out == "" || r < levelRank[out]) {
			out = l
		}
	}
	return out
}

// levelRank orders log levels from most to least verbose.
var levelRank = map[mcp.LoggingLevel]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7,
}

// Methods a Peer receives.
const (
	MethodCreateMessage       = "sampling/createMessage"
	MethodElicit              = "elicitation/create"
	MethodListRoots           = "roots/list"
	NotificationLog           = "notifications/message"
	NotificationProgress      = "notifications/progress"
	NotificationResourceUpd   = "notifications/resources/updated"
	NotificationElicitDone    = "notifications/elicitation/complete"
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
			case MethodCreateMessage, MethodElicit, MethodListRoots:
				if p := s.opts.Peer; p != nil {
					return p.Request(s.inflight.context(ctx), s.cfg.Name, method, req.GetParams())
				}
			case NotificationLog, NotificationProgress, NotificationResourceUpd, NotificationElicitDone:
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

// context is ctx (a server's message, as the SDK hands it over) with the calls
// under way as InFlight, and the values of the newest of them (see valuesFrom): the
// receiving side's own values are SDK internals of this connection and are not
// passed on.
func (f *inflight) context(ctx context.Context) context.Context {
	f.mu.Lock()
	calls := make([]context.Context, len(f.calls))
	for i, c := range f.calls {
		calls[i] = c.ctx
	}
	f.mu.Unlock()
	return valuesFrom{ctx, calls}
}

// InFlight returns, for a ctx given to a Peer, the contexts of every call to the
// server that was under way when the message arrived, oldest first. When they come
// from more than one caller, which one caused the message is unknown.
func InFlight(ctx context.Context) []context.Context {
	calls, _ := ctx.Value(inflightKey{}).([]context.Context)
	return calls
}

type inflightKey struct{}

// valuesFrom is a context with one context's lifetime and the values of the newest
// of calls (none when there are no calls).
type valuesFrom struct {
	life  context.Context
	calls []context.Context
}

func (c valuesFrom) Deadline() (time.Time, bool) { return c.life.Deadline() }
func (c valuesFrom) Done() <-chan struct{}       { return c.life.Done() }
func (c valuesFrom) Err() error                  { return c.life.Err() }
func (c valuesFrom) Value(key any) any {
	if _, ok := key.(inflightKey); ok {
		return c.calls
	}
	if n := len(c.calls); n > 0 {
		return c.calls[n-1].Value(key)
	}
	return nil
}
