package api

import (
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/hub"
)

// A server that crashes every few seconds is ready again a second later each time: its
// state alone says "ready", and only a growing restart count hints that it is not.
// Such a server is flapping: it lost its connection flapRestarts times or more within
// the last flapWindow. GET /v1/servers and the "server" events say so ("flapping",
// "recentRestarts" and "flappingUntil", when it stops being flapping unless it loses
// its connection again), and the dashboard shows it instead of a ready badge.
const (
	flapRestarts = 3
	flapWindow   = 5 * time.Minute
)

// serverWatch follows the hub's servers for the API: it notes when each one loses its
// connection, and passes every event on to the event streams' feeds after that, so
// that the "server" event of a lost connection already counts it. The zero value is
// ready to use.
type serverWatch struct {
	mu   sync.Mutex
	lost map[string][]time.Time // per server, its lost connections within flapWindow, oldest first
	subs map[*feed]struct{}
}

// observe is the hub subscription's callback.
func (w *serverWatch) observe(e hub.Event) {
	now := time.Now()
	w.mu.Lock()
	// A lost connection is what enters reconnecting (the supervisor counts a restart
	// then); a restart asked for, or a reload, passes through closed instead.
	if e.State == hub.Reconnecting {
		if w.lost == nil {
			w.lost = map[string][]time.Time{}
		}
		w.lost[e.Server] = append(w.lost[e.Server], now)
	}
	for name, ts := range w.lost {
		if ts = recent(ts, now); len(ts) == 0 {
			delete(w.lost, name)
		} else {
			w.lost[name] = ts
		}
	}
	w.mu.Unlock()
	w.notify(e)
}

// notify passes e on to the event streams' feeds: the hub's events, and the API's own
// news of a server (a sign-in begun or ended, signin.go).
func (w *serverWatch) notify(e hub.Event) {
	w.mu.Lock()
	subs := make([]*feed, 0, len(w.subs))
	for f := range w.subs {
		subs = append(subs, f)
	}
	w.mu.Unlock()
	for _, f := range subs {
		f.push(sseEvent{Name: "server", Data: serverChange{e}})
	}
}

// recent drops the times of ts that are out of the window.
func recent(ts []time.Time, now time.Time) []time.Time {
	i := 0
	for i < len(ts) && now.Sub(ts[i]) >= flapWindow {
		i++
	}
	return ts[i:]
}

// flapping is what a server's lost connections say now: how many within the window,
// and, when they make it flapping, until when.
func (w *serverWatch) flapping(name string) (restarts int, until time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ts := recent(w.lost[name], time.Now())
	if len(ts) >= flapRestarts {
		until = ts[len(ts)-flapRestarts].Add(flapWindow)
	}
	return len(ts), until
}

func (w *serverWatch) subscribe(f *feed) (cancel func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.subs == nil {
		w.subs = map[*feed]struct{}{}
	}
	w.subs[f] = struct{}{}
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.subs, f)
	}
}
