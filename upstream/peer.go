package upstream

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	Request(ctx context.Context, server, method string, params mcp.Params) (mcp.Result, error)
	// Notify delivers a notification: notifications/message
	// (*mcp.LoggingMessageParams), notifications/progress
	// (*mcp.ProgressNotificationParams), notifications/resources/updated
	// (*mcp.ResourceUpdatedNotificationParams) or notifications/elicitation/complete
	// (*mcp.ElicitationCompleteParams). It runs on the connection's reading
	// goroutine, in order: keep it short.
	Notify(ctx context.Context, server, method string, params mcp.Params)
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
				defer c.noteHandled() // after the Peer has it: see orderedConn
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
// see orderedConn.)
type inflight struct {
	mu    sync.Mutex
	seq   uint64
	calls []inflightCall
}

type inflightCall struct {
	id  uint64
	ctx context.Context
}

// begin registers a call's context until the returned function runs.
func (f *inflight) begin(ctx context.Context) (end func()) {
	f.mu.Lock()
	f.seq++
	id := f.seq
	f.calls = append(f.calls, inflightCall{id, ctx})
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for i, c := range f.calls {
			if c.id == id {
				f.calls = append(f.calls[:i], f.calls[i+1:]...)
				return
			}
		}
	}
}

// context is the ctx a Peer gets for a message that arrived with ctx: its
// cancellation, and the values of the newest call under way (none when idle). The
// receiving side's own values are SDK internals of this connection and are not
// passed on.
func (f *inflight) context(ctx context.Context) context.Context {
	values := context.Background()
	f.mu.Lock()
	calls := make([]context.Context, len(f.calls))
	for i, c := range f.calls {
		calls[i] = c.ctx
	}
	f.mu.Unlock()
	if n := len(calls); n > 0 {
		values = calls[n-1]
	}
	return valuesFrom{ctx, values, calls}
}

// InFlight returns, for a ctx given to a Peer, the contexts of every call to the
// server that was under way when the message arrived, oldest first. When they come
// from more than one caller, which one caused the message is unknown.
func InFlight(ctx context.Context) []context.Context {
	calls, _ := ctx.Value(inflightKey{}).([]context.Context)
	return calls
}

type inflightKey struct{}

// orderedTransport makes a connection's responses wait for the notifications read
// before them. The SDK hands a notification to its handler on one goroutine and a
// response to the waiting call on another, so a server's last log message or
// progress of a call could otherwise be handled after the call returned, when no
// call claims it any more.
//
// Streamable HTTP connections are not wrapped: the SDK hands the session's state to
// its streamable client connection through an unexported method, which a wrapper
// hides, and without it the connection sends no MCP-Protocol-Version header and
// never opens the standalone stream that carries what the server sends outside a
// request (list changes, resource updates). Over Streamable HTTP the notifications
// are counted in the event streams instead (noteCounter), and responses wait in
// roundTrips.
type orderedTransport struct {
	mcp.Transport
	c    *conn
	wrap bool // false for Streamable HTTP
}

func (t orderedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil || !t.wrap {
		return conn, err
	}
	return &orderedConn{Connection: conn, c: t.c}, nil
}

type orderedConn struct {
	mcp.Connection
	c *conn
}

// orderWait bounds how long a response waits for earlier notifications.
const orderWait = 250 * time.Millisecond

func (o *orderedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := o.Connection.Read(ctx)
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.ID.IsValid() && ordered[m.Method] {
			o.c.notesRead.Add(1)
		}
	case *jsonrpc.Response:
		o.c.waitNotes(ctx)
	}
	return msg, err
}

// ordered are the notifications that pass through Supervisor.middleware, which
// counts them handled.
var ordered = map[string]bool{
	NotificationLog: true, NotificationProgress: true, NotificationResourceUpd: true, NotificationElicitDone: true,
	notificationToolsChanged: true, notificationResChanged: true, notificationPromptChanged: true,
}

// noteHandled counts one ordered notification handled.
func (c *conn) noteHandled() {
	c.notesHandled.Add(1)
	select {
	case c.noteSignal <- struct{}{}:
	default:
	}
}

// waitNotes waits until every ordered notification read so far is handled, at
// most orderWait (then it stops waiting for those: one the SDK dropped before its
// handler, say).
func (c *conn) waitNotes(ctx context.Context) {
	target := c.notesRead.Load()
	if c.notesHandled.Load() >= target {
		return
	}
	timer := time.NewTimer(orderWait)
	defer timer.Stop()
	for c.notesHandled.Load() < target {
		select {
		case <-c.noteSignal:
		case <-timer.C:
			c.notesHandled.Store(target)
			return
		case <-ctx.Done():
			return
		}
	}
}

// valuesFrom is a context with one context's lifetime and another's values.
type valuesFrom struct {
	life   context.Context
	values context.Context
	calls  []context.Context
}

func (c valuesFrom) Deadline() (time.Time, bool) { return c.life.Deadline() }
func (c valuesFrom) Done() <-chan struct{}       { return c.life.Done() }
func (c valuesFrom) Err() error                  { return c.life.Err() }
func (c valuesFrom) Value(key any) any {
	if _, ok := key.(inflightKey); ok {
		return c.calls
	}
	return c.values.Value(key)
}
