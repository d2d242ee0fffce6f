package gateway

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client's state in the forwarder — its log level and resource subscriptions —
// ends with its session, however the session ends: the client closes it, its stream
// ends (stdio, legacy SSE), the gateway closes it as idle (below), or the gateway
// closes. Then the servers are told: a subscription nobody else holds is ended, and
// the log level asked of them follows the clients that remain.

// watch has ss's state forgotten when its session ends; each session is watched by
// one goroutine, from its first subscription or log level on.
func (f *forwarder) watch(ss *mcp.ServerSession) {
	f.mu.Lock()
	if f.watched[ss] {
		f.mu.Unlock()
		return
	}
	f.watched[ss] = true
	f.mu.Unlock()
	f.g.spawn(func() { // not when the gateway is closing: then nothing is kept
		_ = ss.Wait()
		f.forget(ss)
	})
}

// forget drops what the forwarder holds for ss, which has ended: the servers'
// subscriptions that only ss held end, and the log level is asked again for the
// clients that remain.
func (f *forwarder) forget(ss *mcp.ServerSession) {
	f.upMu.Lock()
	defer f.upMu.Unlock()
	f.mu.Lock()
	delete(f.watched, ss)
	f.recent = slices.DeleteFunc(f.recent, func(s *mcp.ServerSession) bool { return s == ss })
	_, hadLevel := f.levels[ss]
	delete(f.levels, ss)
	var unheld []string
	for uri, holders := range f.subs {
		if holders[ss] {
			delete(holders, ss)
			if len(holders) == 0 {
				delete(f.subs, uri)
				unheld = append(unheld, uri)
			}
		}
	}
	f.mu.Unlock()
	if len(unheld) == 0 && !hadLevel { // (both come only with upstreams)
		return
	}
	// Not bound to the gateway's life: its Close ends the sessions, and the servers
	// (if the hub is still running) are told all the same.
	ctx, cancel := context.WithTimeout(context.Background(), upstreamStateWait)
	defer cancel()
	for _, uri := range unheld {
		if err := f.g.up.UnsubscribeResource(ctx, uri); err != nil {
			level := slog.LevelWarn
			if f.g.ctx.Err() != nil {
				level = slog.LevelDebug // closing, perhaps after the hub
			}
			f.g.log.Log(ctx, level, "ending the subscription of a client that left failed", "uri", uri, "err", err)
		}
	}
	if hadLevel {
		f.applyLevel(ctx)
	}
}

// upstreamStateWait bounds a change of the servers' state (a subscription, the log
// level) that the gateway makes.
const upstreamStateWait = 10 * time.Second

// idleSessions closes the Streamable HTTP sessions of clients that are gone. A
// client that ends without a DELETE (killed, its machine asleep) leaves a session
// that nothing else would close; its subscriptions and log level would stay with
// the servers for good. A session is idle while none of its HTTP requests is
// under way — an open GET stream counts as one, so a connected client that listens
// is never idle, however quiet — and is closed after timeout idle. A client that
// comes back gets 404 for it and, as the protocol requires, initializes anew.
//
// The SDK's own StreamableHTTPOptions.SessionTimeout counts only POSTs (its code
// leaves GET streams as a TODO), so it would close a listening client that has
// nothing to ask; counting GET streams is the whole difference.
type idleSessions struct {
	g       *Gateway
	timeout time.Duration

	mu      sync.Mutex
	byID    map[string]*idleSession
	stopped bool
}

type idleSession struct {
	open  int         // its HTTP requests under way
	since time.Time   // when open last became 0
	timer *time.Timer // runs while open == 0
}

// sessionIDHeader is the Streamable HTTP session header.
const sessionIDHeader = "Mcp-Session-Id"

// defaultSessionTimeout is HTTPOptions.SessionTimeout's default.
const defaultSessionTimeout = time.Hour

// idle returns a tracker of idle sessions that Close stops.
func (g *Gateway) idle(timeout time.Duration) *idleSessions {
	t := &idleSessions{g: g, timeout: timeout, byID: map[string]*idleSession{}}
	g.lifeMu.Lock()
	defer g.lifeMu.Unlock()
	t.stopped = g.closed
	g.idles = append(g.idles, t)
	return t
}

// wrap tracks the sessions of next, a stateful Streamable HTTP handler: a session
// is known from the response that gives it its ID, as that response goes out.
func (t *idleSessions) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(sessionIDHeader)
		if id == "" {
			next.ServeHTTP(&announcing{ResponseWriter: w, t: t}, r)
			return
		}
		known := t.begin(id)
		next.ServeHTTP(w, r)
		switch {
		case known && r.Method == http.MethodDelete:
			t.drop(id)
		case known:
			t.end(id)
		}
	})
}

// announcing adds the session its response names to the tracker before the
// response goes out. Added once the handler had returned, as it used to be, a
// session could be unknown when its client, which has the ID with the response's
// headers, opened its GET stream: that stream went uncounted and its session
// expired under a listening client (TestIdleSessionsAreClosed, about one run in six
// under -race).
type announcing struct {
	http.ResponseWriter
	t    *idleSessions
	done bool
}

func (a *announcing) announce() {
	if !a.done {
		a.done = true
		if id := a.Header().Get(sessionIDHeader); id != "" {
			a.t.add(id)
		}
	}
}

func (a *announcing) WriteHeader(code int) {
	a.announce()
	a.ResponseWriter.WriteHeader(code)
}

func (a *announcing) Write(p []byte) (int, error) {
	a.announce()
	return a.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController (which the SDK flushes with) reach the
// connection's writer.
func (a *announcing) Unwrap() http.ResponseWriter { return a.ResponseWriter }

func (t *idleSessions) add(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped || t.byID[id] != nil {
		return
	}
	s := &idleSession{since: time.Now()}
	s.timer = time.AfterFunc(t.timeout, func() { t.expire(id, s) })
	t.byID[id] = s
}

// begin counts a request of session id; false if the session is not known.
func (t *idleSessions) begin(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byID[id]
	if s == nil {
		return false
	}
	if s.open++; s.open == 1 {
		s.timer.Stop()
	}
	return true
}

func (t *idleSessions) end(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.byID[id]; s != nil {
		if s.open--; s.open == 0 {
			s.since = time.Now()
			s.timer.Reset(t.timeout)
		}
	}
}

func (t *idleSessions) drop(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.byID[id]; s != nil {
		s.timer.Stop()
		delete(t.byID, id)
	}
}

// expire closes session id if it has been idle for the timeout: a timer that fired
// while a request began, and was re-armed when it ended, finds it idle too briefly.
func (t *idleSessions) expire(id string, s *idleSession) {
	t.mu.Lock()
	if t.stopped || t.byID[id] != s || s.open > 0 || time.Since(s.since) < t.timeout {
		t.mu.Unlock()
		return
	}
	delete(t.byID, id)
	t.mu.Unlock()
	for ss := range t.g.server.Sessions() {
		if ss.ID() == id {
			t.g.log.Info("closing the session of a client idle too long", "idle", t.timeout)
			// Its calls still under way (a client gone mid-call) end first: no answer
			// can reach it any more, and the SDK's Close waits for them.
			t.g.fwd.endRequests(func(s *mcp.ServerSession) bool { return s == ss }, errSessionExpired)
			_ = ss.Close()
		}
	}
}

// stop ends the tracking: every timer is stopped.
func (t *idleSessions) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	for id, s := range t.byID {
		s.timer.Stop()
		delete(t.byID, id)
	}
}
