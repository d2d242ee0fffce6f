package hub

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// Launch starts every server and returns at once: servers join the catalog as each
// becomes ready. WaitTool and WaitSettled wait for them; Start is Launch followed by
// waiting for every server. Launching twice (or Start after Launch) starts nothing
// again, and each server's init timeout counts from its first launch. Catalog errors
// (a naming "never" collision) are held back from the log until the next Start or
// WaitTool returns them, so that they are told once.
func (h *Hub) Launch() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	h.errMu.Lock()
	if !h.launchHold && h.launched == nil {
		h.launchHold = true
		h.starting++
	}
	h.errMu.Unlock()
	sups := h.supervisors()
	now := time.Now()
	if h.launched == nil {
		h.launched = map[*upstream.Supervisor]time.Time{}
	}
	for _, s := range sups {
		if _, ok := h.launched[s]; !ok {
			h.launched[s] = now
		}
	}
	h.mu.Unlock()
	for _, s := range sups {
		s.Start()
	}
	return nil
}

// pending returns the launched servers still in their first start-up cycle and
// within their init timeout, and the earliest moment one of them runs out of it.
func (h *Hub) pending() (sups []*upstream.Supervisor, deadline time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.inStartup(time.Now()) {
		sups = append(sups, s.sup)
		if deadline.IsZero() || s.end.Before(deadline) {
			deadline = s.end
		}
	}
	return sups, deadline
}

// Pending reports the servers that the hub still waits for: launched, not yet ready,
// failed or disabled, and within their init timeout.
func (h *Hub) Pending() []upstream.Status {
	sups, _ := h.pending()
	out := make([]upstream.Status, len(sups))
	for i, s := range sups {
		out[i] = s.Status()
	}
	return out
}

// WaitSettled waits until every launched server is ready, failed, disabled or past
// its init timeout. It returns ctx.Err() if ctx ends first.
func (h *Hub) WaitSettled(ctx context.Context) error {
	return h.waitFor(ctx, func() bool { return false })
}

// waitFor returns when done() holds or no server is pending, re-checking after every
// server event, every end of a first start-up cycle and every init timeout.
func (h *Hub) waitFor(ctx context.Context, done func() bool) error {
	wake := make(chan struct{}, 1)
	cancel := h.Subscribe(func(upstream.Event) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer cancel()
	for {
		if done() {
			return nil
		}
		sups, deadline := h.pending()
		if len(sups) == 0 {
			return nil
		}
		timer := time.NewTimer(time.Until(deadline))
		// A server settles just after the event that tells its new state, so its
		// Settled channel is watched as well as the events.
		cases := []reflect.SelectCase{
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(wake)},
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer.C)},
		}
		for _, s := range sups {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(s.Settled())})
		}
		chosen, _, _ := reflect.Select(cases)
		timer.Stop()
		if chosen == 0 {
			return ctx.Err()
		}
	}
}

// WaitTool waits until name resolves in the catalog (and every required server has
// settled), or until every server has settled, and returns the tool. It does not wait
// for the servers that have nothing to do with name: a call can go as soon as the
// server that owns the tool is ready.
//
// Errors: *UnknownToolError when every server settled and none offers name; a
// *tool.CollisionError when naming "never" refuses the catalog; the required servers
// that are not ready; ctx.Err().
//
// A name resolves as the catalog of the whole start-up has it: under naming "auto" a
// fresh start leaves a shared name to the server listed first, so WaitTool also waits
// for the servers listed before the one that offers name, each within its init
// timeout (a slow first server would otherwise lose "echo" to a fast later one for
// this call only, while 'tools' shows it the first's). It waits for none of the
// servers listed after it, nor for any under naming "always". After the start-up a
// name stays with its tool.
func (h *Hub) WaitTool(ctx context.Context, name string) (t tool.Tool, err error) {
	done := h.startReporting()
	defer func() { done(err) }()
	if err := h.waitFor(ctx, func() bool {
		t, ok := h.Lookup(name)
		return ok && !h.pendingBefore(t.Server) && len(h.pendingRequired()) == 0
	}); err != nil {
		return tool.Tool{}, err
	}
	if err := h.requiredErr(); err != nil {
		return tool.Tool{}, err
	}
	if t, ok := h.Lookup(name); ok {
		return t, nil
	}
	h.discover(ctx) // the tools of a "perUser" server only the caller's connection lists (peruser.go)
	if err := h.rebuild(); err != nil {
		return tool.Tool{}, err
	}
	if t, ok := h.Lookup(name); ok {
		return t, nil
	}
	return tool.Tool{}, h.UnknownTool(name)
}

// pendingBefore reports whether a server listed before server is still in its
// start-up, within its init timeout: under naming "auto" (and "never", where a shared
// name is a collision) it decides who has a name the two share.
func (h *Hub) pendingBefore(server string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.naming == config.NamingAlways {
		return false
	}
	starting := map[string]bool{}
	for _, s := range h.inStartup(time.Now()) {
		starting[s.sup.Name()] = true
	}
	for _, name := range h.order {
		if name == server {
			return false
		}
		if starting[name] {
			return true
		}
	}
	return false
}

// pendingRequired lists the required servers still pending.
func (h *Hub) pendingRequired() []string {
	sups, _ := h.pending()
	var out []string
	for _, s := range sups {
		if s.Config().Required {
			out = append(out, s.Name())
		}
	}
	return out
}

// requiredErr names the required servers that are not ready.
func (h *Hub) requiredErr() error {
	var missing []string
	for _, st := range h.Status() {
		if s := h.supervisor(st.Name); s != nil && s.Config().Required && st.State != upstream.Ready {
			missing = append(missing, fmt.Sprintf("%s (%s: %s)", st.Name, st.State, h.NotReadyReason(st)))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("required server(s) not ready: %s", strings.Join(missing, "; "))
	}
	return nil
}

// NotReadyReason says why a server is not ready, for status displays: its last error,
// or how long it has been trying; "" for a ready or disabled server.
func (h *Hub) NotReadyReason(st upstream.Status) string {
	switch st.State {
	case upstream.Ready, upstream.Disabled:
		return ""
	}
	if st.LastError != "" {
		return st.LastError
	}
	s := h.supervisor(st.Name)
	if s == nil {
		return "still " + string(st.State)
	}
	timeout := s.InitTimeout()
	h.mu.Lock()
	at, launched := h.launched[s]
	h.mu.Unlock()
	if launched && time.Since(at) < timeout {
		return fmt.Sprintf("still %s, within its %s init timeout", st.State, timeout)
	}
	return fmt.Sprintf("still %s after its %s init timeout", st.State, timeout)
}

// WaitServer waits until the named server is past connecting or reconnecting (ready,
// failed, needing a sign-in, disabled or closed) and returns its status; ctx bounds
// the wait.
func (h *Hub) WaitServer(ctx context.Context, name string) (upstream.Status, error) {
	wake := make(chan struct{}, 1)
	cancel := h.Subscribe(func(e upstream.Event) {
		if e.Server == name {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	})
	defer cancel()
	for {
		s := h.supervisor(name)
		if s == nil {
			return upstream.Status{}, fmt.Errorf("hub: no server %q", name)
		}
		if st := h.status(s); st.State != upstream.Connecting && st.State != upstream.Reconnecting {
			return st, nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return h.status(s), ctx.Err()
		}
	}
}
