package api

import (
	"context"
	"github.com/switchboard-mcp/switchboard/access"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-mcp/switchboard/api/compat"
	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/redact"
	"github.com/switchboard-mcp/switchboard/tool"
)

// GET /v1/events is what the dashboard watches: a text/event-stream that starts with
// a "snapshot" event (every server, the recent calls, whether a model is configured)
// and goes on with a "server" event on every state change of a server (and every new
// tool list) and a "call" event for every tool call made through the API (POST
// /v1/tools/{name}/call, a session's turn or a chat completion's). An idle stream gets a comment every
// 15 s so that proxies keep it open. It ends when the client leaves and at Shutdown.
//
// The servers are everyone's but for their stderr tail, an admin's (serverInfo),
// which each stream leaves out by its own subscriber. A call is its owner's
// (callRecord.Owner): with identities on, a person gets the calls they own, in the
// snapshot, the "call" events and GET /v1/calls, and an admin all of them
// (identity.Allowed). A call
// tells its tool, its time and the start of its error, which may quote the
// arguments or the result.
//
// The token, when one is set, comes in the Authorization header like everywhere
// else, never in the query string: the dashboard reads the stream with fetch, which
// can send headers (EventSource cannot), so no URL ever carries the token into a
// log or a browser's history.

// liveState is what the event streams share: the servers' changes (and whether they
// flap), the recent calls, the log followers open, and how often an idle
// stream gets a comment (httpx.KeepAliveEvery unless a test sets it, so that it need not wait
// 15 s). The zero value is ready to use.
// sseEvent is an event of GET /v1/events.
type sseEvent = httpx.SSEEvent

type liveState struct {
	servers   serverWatch
	calls     callLog
	followers logFollowers // of the servers' logs (serverlog.go)
	heartbeat atomic.Int64 // a time.Duration; 0 is httpx.KeepAliveEvery
}

func (l *liveState) heartbeatEvery() time.Duration {
	if d := time.Duration(l.heartbeat.Load()); d > 0 {
		return d
	}
	return httpx.KeepAliveEvery
}

// maxRecentCalls is how many calls GET /v1/calls and the snapshot keep.
const maxRecentCalls = 100

// maxFeedBacklog bounds the events waiting for a slow client; past it the client gets
// a fresh snapshot instead of what it missed.
const maxFeedBacklog = 256

// callRecord is one tool call made through the API, for "recent calls".
type callRecord struct {
	ID         int64     `json:"id"`
	Tool       string    `json:"tool"`
	Server     string    `json:"server,omitempty"`
	Source     string    `json:"source"`            // sourceAPI, sourceSession or sourceChat
	Session    string    `json:"session,omitempty"` // the session of a turn's call, the completion's id of a chat's
	Start      time.Time `json:"start"`
	DurationMs float64   `json:"durationMs"`
	IsError    bool      `json:"isError"`
	// Error is the start of a failed call's message.
	Error string `json:"error,omitempty"`
	// Owner is whose call it is: the owner of the session whose turn made it, or the
	// subject of the person who made it (a direct call, a chat completion); "" without
	// identities, or for the static token's.
	Owner string `json:"owner,omitempty"`
}

// Where a recorded call came from (callRecord.Source).
const (
	sourceAPI     = "api"         // POST /v1/tools/{name}/call
	sourceSession = "session"     // a session's turn
	sourceChat    = compat.Source // a turn of the compatible endpoints (POST /v1/chat/completions …)
)

// callLog keeps the last maxRecentCalls calls and tells its subscribers of each new
// one. The zero value is ready to use.
type callLog struct {
	red  *redact.Redactor // the hub's: nil masks the shapes of credentials only
	mu   sync.Mutex
	last int64
	ring []callRecord // oldest first
	subs map[*feed]struct{}
}

// record adds one call; text is the result's text, kept (shortened) when it failed,
// with the secrets masked: a server may quote its own credentials in an error result,
// as it may in a JSON-RPC error (which the hub masks), and the recent calls go to
// whoever watches the dashboard. Masked before it is shortened, so that no cut
// leaves the start of a secret unmasked.
func (l *callLog) record(c callRecord, text string) {
	if c.IsError {
		c.Error = shorten(l.red.String(text), 300)
	}
	l.mu.Lock()
	l.last++
	c.ID = l.last
	if len(l.ring) == maxRecentCalls {
		l.ring = append(l.ring[:0], l.ring[1:]...)
	}
	l.ring = append(l.ring, c)
	subs := make([]*feed, 0, len(l.subs))
	for f := range l.subs {
		if f.allow == nil || f.allow(c.Owner) {
			subs = append(subs, f)
		}
	}
	l.mu.Unlock()
	for _, f := range subs {
		f.push(sseEvent{Name: "call", Data: c})
	}
}

// recent is a copy of the calls kept that the request of ctx may see, oldest first.
func (l *callLog) recent(ctx context.Context) []callRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]callRecord, 0, len(l.ring))
	for _, c := range l.ring {
		if identity.Allowed(ctx, c.Owner) {
			out = append(out, c)
		}
	}
	return out
}

func (l *callLog) subscribe(f *feed) (cancel func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.subs == nil {
		l.subs = map[*feed]struct{}{}
	}
	l.subs[f] = struct{}{}
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.subs, f)
	}
}

// shorten cuts s to at most n bytes (on a rune boundary), marking the cut.
func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// feed is one event stream's queue: the hub's and the call log's callbacks push (they
// must not block), the handler takes.
type feed struct {
	// allow says whether the stream's client may see what owner owns (a call); nil:
	// everything. Set before the feed subscribes.
	allow    func(owner string) bool
	mu       sync.Mutex
	events   []sseEvent
	overflow bool          // events were dropped: send a snapshot instead
	wake     chan struct{} // a token when events were added
}

func (f *feed) push(e sseEvent) {
	f.mu.Lock()
	if len(f.events) >= maxFeedBacklog {
		f.events, f.overflow = nil, true
	} else if !f.overflow {
		f.events = append(f.events, e)
	}
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *feed) take() (evs []sseEvent, overflow bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	evs, overflow = f.events, f.overflow
	f.events, f.overflow = nil, false
	return evs, overflow
}

// serverChange is what a hub event queues: the state the server entered is kept as
// it was, so that a client sees reconnecting even when the server is ready again by
// the time the event is sent.
type serverChange struct {
	event hub.Event
}

type snapshot struct {
	Servers []serverInfo `json:"servers"`
	Calls   []callRecord `json:"calls"`
	Model   modelInfo    `json:"model"`
	Version string       `json:"version,omitempty"`
}

// modelInfo says whether session turns can run, and if not how to configure a model.
type modelInfo struct {
	Configured bool   `json:"configured"`
	Help       string `json:"help,omitempty"`
}

// snapshot is what the request of ctx sees: every server, its own recent calls.
func (s *Server) snapshot(ctx context.Context) snapshot {
	sts := s.hub.Status()
	out := snapshot{Servers: make([]serverInfo, 0, len(sts)), Calls: s.live.calls.recent(ctx), Version: s.opts.Version}
	acc := access.FromContext(ctx)
	for _, st := range sts {
		if acc.Server(st.Name) { // a server outside the subscriber's profiles is not theirs to see
			out.Servers = append(out.Servers, s.serverInfo(ctx, st))
		}
	}
	out.Model.Configured = s.conv != nil
	if s.conv == nil {
		out.Model.Help = s.opts.NoModel
	}
	return out
}

// serverEventOf fills in a queued change with the server's current status, as the
// subscriber of ctx may see it (serverInfo). A server removed since (a reload) is
// reported as closed.
func (s *Server) serverEventOf(ctx context.Context, c serverChange) apiwire.ServerEvent {
	ev := apiwire.ServerEvent{Change: c.event.Reason, ToolsChanged: c.event.ToolsChanged,
		ResourcesChanged: c.event.ResourcesChanged, PromptsChanged: c.event.PromptsChanged}
	st := hub.Status{Name: c.event.Server, State: hub.Closed}
	for _, x := range s.hub.Status() {
		if x.Name == c.event.Server {
			st = x
			break
		}
	}
	ev.Server = s.serverInfo(ctx, st)
	st.State = c.event.State
	ev.State = apiwire.State(st.State)
	if st.State != hub.Ready {
		ev.Reason = s.hub.NotReadyReason(st)
	} else {
		ev.Reason = ""
	}
	return ev
}

// streamEvents serves GET /v1/events (see above).
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f := &feed{wake: make(chan struct{}, 1), allow: func(owner string) bool { return identity.Allowed(ctx, owner) }}
	defer s.live.servers.subscribe(f)()
	defer s.live.calls.subscribe(f)()

	sw := httpx.NewSSEWriter(w)
	sw.EncodeFailed = func(_ string, err error) (string, any) {
		return "error", errorBody{Error: apiError{Code: apiwire.CodeInternal, Message: err.Error()}}
	}
	send := func(e sseEvent) error {
		if c, ok := e.Data.(serverChange); ok {
			if !access.FromContext(ctx).Server(c.event.Server) {
				return nil // another profile's server
			}
			e.Data = s.serverEventOf(ctx, c)
		}
		return sw.Send(e.Name, e.Data)
	}
	if send(sseEvent{Name: "snapshot", Data: s.snapshot(ctx)}) != nil || sw.Flush() != nil {
		return
	}
	tick := time.NewTicker(s.live.heartbeatEvery())
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			if sw.KeepAlive() != nil {
				return
			}
		case <-f.wake:
			evs, overflow := f.take()
			if overflow {
				evs = []sseEvent{{Name: "snapshot", Data: s.snapshot(ctx)}}
			}
			for _, e := range evs {
				if send(e) != nil {
					return
				}
			}
			if sw.Flush() != nil {
				return
			}
		}
	}
}

// listCalls serves GET /v1/calls: the recent calls made through the API that the
// request may see, newest last.
func (s *Server) listCalls(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"calls": s.live.calls.recent(r.Context())})
}

// recordAPICall records a call of POST /v1/tools/{name}/call by owner (the caller's
// subject).
func (s *Server) recordAPICall(name, owner string, start time.Time, res *tool.Result) {
	c := callRecord{Tool: name, Source: sourceAPI, Start: start, DurationMs: msSince(start), IsError: res.IsError, Owner: owner}
	if t, ok := s.hub.Lookup(name); ok {
		c.Server = t.Server
	}
	s.live.calls.record(c, tool.Text(res))
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
