package hub

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// Add starts a new server while the hub runs. It joins the catalog when ready.
func (h *Hub) Add(s config.Server) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	if _, dup := h.sups[s.Name]; dup {
		h.mu.Unlock()
		return fmt.Errorf("hub: server %q already exists", s.Name)
	}
	h.red.Add((&config.Config{Servers: []config.Server{s}}).Secrets()...)
	sup := h.newSupervisor(s)
	h.sups[s.Name] = sup
	h.order = append(h.order, s.Name)
	level := h.logLevel
	h.mu.Unlock()
	// What the clients hold applies to the new server as to the others: a server that
	// a reload restarts keeps the subscriptions made on the one it replaces.
	sup.Preset(level, h.heldURIs(s.Name))
	sup.Start()
	if s.Disabled {
		// A disabled server never changes state, so nothing would tell the
		// subscribers that the one it replaces (whose close they heard) is now this.
		h.onEvent(upstream.Event{Server: s.Name, State: upstream.Disabled, Reason: "disabled in the config"})
	}
	return nil
}

// heldURIs are the resource URIs of the server named server that SubscribeResource
// holds, as the server knows them.
func (h *Hub) heldURIs(server string) []string {
	h.holdMu.Lock()
	defer h.holdMu.Unlock()
	var uris []string
	for key := range h.holds {
		if key.Server == server {
			uris = append(uris, key.Tool)
		}
	}
	return uris
}

// Remove stops a server and drops its tools from the catalog; their names are free
// for any server from then on.
func (h *Hub) Remove(name string) error { return h.remove(name, true) }

// remove stops a server; forget: its tools' names are not kept for its return.
func (h *Hub) remove(name string, forget bool) error {
	h.mu.Lock()
	sup, ok := h.sups[name]
	if !ok {
		h.mu.Unlock()
		return fmt.Errorf("hub: no server %q", name)
	}
	h.detach(name)
	if forget {
		h.forget(name)
	}
	l := h.logs[name]
	h.mu.Unlock()
	sup.Close()
	if forget {
		h.dropLog(name, l)
	}
	return h.refresh()
}

// Replace restarts a server with a new configuration. Its tools keep their names
// when they come back, unless another server took one meanwhile (or the new
// configuration changes its prefix).
func (h *Hub) Replace(s config.Server) error {
	if err := h.remove(s.Name, false); err != nil {
		return err
	}
	return h.Add(s)
}

// Restart stops the named server and starts it again with the same configuration,
// in the same place of the catalog's order (Replace would move it to the end). Calls
// under way on the old connection end with an error result; the new one's restart
// count starts from 0. It returns once the old connection is closed and the new one
// is starting; the server rejoins the catalog when ready.
func (h *Hub) Restart(name string) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	old, ok := h.sups[name]
	if !ok {
		h.mu.Unlock()
		return fmt.Errorf("hub: no server %q", name)
	}
	sup := h.newSupervisor(old.Config())
	h.sups[name] = sup
	delete(h.launched, old)
	level := h.logLevel
	h.mu.Unlock()
	old.Close()
	if err := h.refresh(); err != nil {
		return err
	}
	sup.Preset(level, h.heldURIs(name))
	sup.Start()
	return nil
}

// refresh rebuilds the catalog after a live change (Remove, Restart, Reload). A
// collision under naming "never" is not the change's failure: the catalog leaves
// the colliding tools out, and the server event that brought it logged it.
func (h *Hub) refresh() error {
	if err := h.rebuild(); err != nil && !errors.As(err, new(*tool.CollisionError)) {
		return err
	}
	return nil
}

// detach forgets a server; h.mu must be held.
func (h *Hub) detach(name string) {
	delete(h.sups, name)
	for i, n := range h.order {
		if n == name {
			h.order = append(h.order[:i], h.order[i+1:]...)
			break
		}
	}
}

// Reload applies a new config by difference: unchanged servers keep running
// untouched, changed ones restart, removed ones stop, new ones start. The naming
// policy and the heartbeat and retry settings follow the new config (settings apply
// to servers started from now on) unless Options fixed them. Under naming "auto" no
// tool of a running server is renamed: a new server's tools that share a name with
// one take the prefix, and a restarted server's tools come back under the names
// they had.
func (h *Hub) Reload(cfg *config.Config) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	h.red.Add(cfg.Secrets()...)
	want := map[string]config.Server{}
	for _, s := range cfg.Servers {
		want[s.Name] = s
	}
	var stop []*upstream.Supervisor
	var start []config.Server
	gone := map[string]*upstream.Log{} // the logs of the servers that leave
	for _, name := range append([]string(nil), h.order...) {
		sup := h.sups[name]
		s, keep := want[name]
		if keep && reflect.DeepEqual(s, sup.Config()) {
			continue
		}
		stop = append(stop, sup)
		h.detach(name)
		if !keep {
			h.forget(name)
			gone[name] = h.logs[name]
		}
	}
	for _, s := range cfg.Servers {
		if _, running := h.sups[s.Name]; !running {
			start = append(start, s)
		}
	}
	h.applySettings(cfg.Settings)
	h.mu.Unlock()

	var wg sync.WaitGroup
	for _, sup := range stop {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sup.Close()
		}()
	}
	wg.Wait()
	for name, l := range gone {
		h.dropLog(name, l)
	}
	for _, s := range start {
		if err := h.Add(s); err != nil {
			return err
		}
	}
	h.log.Info("config reloaded", "stopped", len(stop), "started", len(start))
	return h.refresh()
}

// Retry makes the named server, when it is failed or needs a sign-in, try to
// connect now (after a sign-in, say) instead of at its slow retry; false when it was
// in another state, which is left alone.
func (h *Hub) Retry(name string) (bool, error) {
	s := h.supervisor(name)
	if s == nil {
		return false, fmt.Errorf("hub: no server %q", name)
	}
	return s.Retry(), nil
}
