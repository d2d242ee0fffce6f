package session

import (
	"context"
	"slices"
	"time"
)

// Call is the record of one tool call that usage keeps: when, which tool of which
// server, for whom, from where, how long and how it ended. It carries no
// arguments and no result.
type Call struct {
	Time time.Time `json:"time"`
	// Tool is the exposed name; Server the server's name ("" for a call that
	// found no tool).
	Tool   string `json:"tool"`
	Server string `json:"server,omitempty"`
	// Person is the caller's subject ("key:ID" for an application key), "" for a
	// service without identities or the static token's admin.
	Person string `json:"person,omitempty"`
	// Source is where the call came from: SourceAPI … SourceCLI.
	Source   string        `json:"source"`
	Duration time.Duration `json:"duration"`
	// Outcome is the hub's: "ok", "error", "failed", "refused" or "cancelled".
	Outcome string `json:"outcome"`
}

// Sources of a call.
const (
	SourceAPI    = "api"    // the HTTP API's own routes (a tool call, a resource's tool)
	SourceTurn   = "turn"   // a chat session's turn
	SourceCompat = "compat" // an OpenAI- or Anthropic-compatible API
	SourceMCP    = "mcp"    // the gateway: a client of /mcp, /sse or switchboard mcp
	SourceCLI    = "cli"    // a command of the CLI
)

// CallQuery selects calls: those at or after Since and before Until, of Person
// only when PersonOnly is set (Person "" then means the calls of no person).
type CallQuery struct {
	Since, Until time.Time
	Person       string
	PersonOnly   bool
}

// Matches reports whether c is among the calls q selects.
func (q CallQuery) Matches(c Call) bool {
	return !c.Time.Before(q.Since) && c.Time.Before(q.Until) && (!q.PersonOnly || c.Person == q.Person)
}

// UsageStore keeps tool calls' records for usage over time (package usage reads
// and writes them). The database stores keep them beside the sessions, so that
// the figures survive a restart and add up across the replicas that share a
// store. Its methods are safe for concurrent use.
type UsageStore interface {
	// AddCalls stores calls; durable when it returns.
	AddCalls(ctx context.Context, calls []Call) error
	// Calls returns the calls q selects, oldest first; at most limit of them (0: no
	// bound), and whether there were more.
	Calls(ctx context.Context, q CallQuery, limit int) (calls []Call, more bool, err error)
	// PruneCalls removes the calls older than before and says how many it removed.
	PruneCalls(ctx context.Context, before time.Time) (int64, error)
}

var _ UsageStore = (*Memory)(nil)

func (m *Memory) AddCalls(_ context.Context, calls []Call) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	for _, c := range calls {
		c.Time = c.Time.UTC()
		// Kept in time order: a batch may come after a later one (two recorders).
		i, _ := slices.BinarySearchFunc(m.calls, c.Time, func(c Call, t time.Time) int { return c.Time.Compare(t) })
		for i < len(m.calls) && !m.calls[i].Time.After(c.Time) {
			i++
		}
		m.calls = slices.Insert(m.calls, i, c)
	}
	return nil
}

func (m *Memory) Calls(_ context.Context, q CallQuery, limit int) ([]Call, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, false, ErrClosed
	}
	i, _ := slices.BinarySearchFunc(m.calls, q.Since, func(c Call, t time.Time) int { return c.Time.Compare(t) })
	var out []Call
	for ; i < len(m.calls) && m.calls[i].Time.Before(q.Until); i++ {
		if !q.Matches(m.calls[i]) {
			continue
		}
		if limit > 0 && len(out) == limit {
			return out, true, nil
		}
		out = append(out, m.calls[i])
	}
	return out, false, nil
}

func (m *Memory) PruneCalls(_ context.Context, before time.Time) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, ErrClosed
	}
	i, _ := slices.BinarySearchFunc(m.calls, before, func(c Call, t time.Time) int { return c.Time.Compare(t) })
	m.calls = slices.Delete(m.calls, 0, i)
	return int64(i), nil
}
