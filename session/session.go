// Package session keeps conversations: each [Session] holds an id, a system message,
// metadata, the whole history (tool calls and results included), the tools it has
// loaded, its times and its token usage, in a [Store].
//
// Stores: [NewMemory] here; SQLite (session/sqlite, the embedded default, no cgo) and
// PostgreSQL (session/postgres, for several Switchboard hosts sharing sessions) in
// sub-packages, so that their drivers stay there. Every store passes one contract
// suite (session/sessiontest).
//
// Crash safety is the store's promise: when Append returns, what it was given is
// durable (for SQLite, in the WAL: a process crash loses nothing, only a power loss
// may), so an agent that appends the user's message before calling the model, and each
// step as soon as it completes, loses nothing already said when it dies mid-turn.
//
// One turn at a time per session: [Store.Acquire] takes a session's turn, and a
// second taker gets [ErrBusy] at once, never a wait and never an interleaving — across
// processes and hosts for the stores that are shared.
package session

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-mcp/switchboard/llm"
)

// Errors every Store returns, wrapped with the session id.
var (
	ErrNotFound = errors.New("session not found")
	ErrExists   = errors.New("session already exists")
	// ErrBusy: another turn holds the session (in this process or another).
	ErrBusy = errors.New("session busy: another turn is running")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("session store closed")
)

// Session is one conversation.
type Session struct {
	ID string `json:"id"`
	// Owner is the subject of the person who created the session
	// (identity.Owner of the request), "" for one made without identities or by
	// an admin without a subject. Create stores it as given; nothing changes it
	// after. Who may see the session is the API's to decide (identity.Allowed).
	Owner    string            `json:"owner,omitempty"`
	System   string            `json:"system,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	// Messages is the whole history, in order.
	Messages []llm.Message `json:"messages"`
	// Loaded are the exposed names of the tools this session has loaded in deferred
	// mode (found by search or called by name), in the order loaded.
	Loaded     []string  `json:"loaded,omitempty"`
	Created    time.Time `json:"created"`
	LastActive time.Time `json:"lastActive"`
	Usage      llm.Usage `json:"usage"`
}

// Summary is what List tells of a session.
type Summary struct {
	ID    string `json:"id"`
	Owner string `json:"owner,omitempty"`
	// Title is its metadata's "title", else the text of its first user message,
	// cut to TitleMax characters (see Title); "" when it has neither.
	Title      string            `json:"title,omitempty"`
	Messages   int               `json:"messages"`
	Created    time.Time         `json:"created"`
	LastActive time.Time         `json:"lastActive"`
	Metadata   map[string]string `json:"metadata,omitempty"`
}

// Store keeps sessions. Its methods are safe for concurrent use; every error for a
// missing session wraps ErrNotFound.
type Store interface {
	// Create stores a new session. An empty ID is filled in (random, URL-safe); a
	// zero Created or LastActive is set to now; the Owner is kept as given. ErrExists
	// when the ID is taken, whoever owns it.
	Create(ctx context.Context, s *Session) error
	// Get returns the session with its whole history.
	Get(ctx context.Context, id string) (*Session, error)
	// List returns every session's summary, most recently active first.
	List(ctx context.Context) ([]Summary, error)
	// Append adds messages to the end of the history and usage to the session's
	// count, and sets LastActive to now; durable when it returns.
	Append(ctx context.Context, id string, usage llm.Usage, msgs ...llm.Message) error
	// SetLoaded replaces the session's set of loaded tools.
	SetLoaded(ctx context.Context, id string, names []string) error
	// Delete removes the session. ErrBusy while a turn holds it.
	Delete(ctx context.Context, id string) error
	// Acquire takes the session's turn: ErrBusy at once when another turn holds it,
	// ErrNotFound when there is no such session. release gives it back; it is safe
	// to call more than once. A turn held by a process that died is free again.
	Acquire(ctx context.Context, id string) (release func(), err error)
	// Stale returns the ids of sessions whose LastActive is before t.
	Stale(ctx context.Context, before time.Time) ([]string, error)
	// Close releases the store's resources; the store is unusable after.
	Close() error
	// KeyStore: the application keys are kept beside the sessions (keys.go).
	KeyStore
}
