package hub

import (
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// Log is the log of the named server (its stderr lines, state changes, failed
// connection attempts and MCP log messages: [upstream.Log]), and false when the hub
// has no such server. Read it with Entries; wait on its Changed to follow it.
//
// A server's log goes on across its reconnects and across Restart, Replace and a
// Reload that restarts it (its supervisor is a new one, its log the same); it ends
// when the server leaves the hub (Remove, a Reload without it) and has stopped: a
// server on its way out still has its log until its last entry, "closed", is
// written (dropLog), so that a follower that sees the log go has read that entry.
// Of a "perUser" server it is the service's own connection's: the persons'
// connections keep none.
func (h *Hub) Log(name string) (*upstream.Log, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.sups[name]; ok {
		return h.logOf(name), true
	}
	l, leaving := h.logs[name] // detached, not yet stopped (or on its way back: Replace)
	return l, leaving
}

// newSupervisor is the supervisor of s, which writes to the server's log; h.mu must
// be held (or h not yet shared).
func (h *Hub) newSupervisor(s config.Server) *upstream.Supervisor {
	o := h.upOpts
	o.Log = h.logOf(s.Name)
	return upstream.New(s, &o)
}

// logOf is the log of the server named name, made on first use; h.mu must be held.
func (h *Hub) logOf(name string) *upstream.Log {
	if h.logs == nil {
		h.logs = map[string]*upstream.Log{}
	}
	l, ok := h.logs[name]
	if !ok {
		l = upstream.NewLog(upstream.DefaultLogEntries)
		h.logs[name] = l
	}
	return l
}

// dropLog forgets l, the log of a server that left the hub, once the server has
// stopped (its last entry, "closed", written: a follower that sees the log go has
// read it), unless a server of that name has come back meanwhile and writes to it
// again. h.mu must not be held.
func (h *Hub) dropLog(name string, l *upstream.Log) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, back := h.sups[name]; !back && h.logs[name] == l {
		delete(h.logs, name)
	}
}
