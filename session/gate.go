package session

import (
	"fmt"
	"sync"
)

// Gate keeps a store's calls off it once it is closed, and its Close off the calls
// under way: each method passes Enter and, when done, Exit; Close waits for the
// calls inside, then frees the store's resources while none can enter. The database
// stores (session/sqlite, session/postgres) hold one; its zero value is open.
type Gate struct {
	mu     sync.RWMutex // calls hold it shared, Close exclusively
	closed bool
}

// Enter lets a call in, or gives ErrClosed (naming what) once the store is closed. A
// call let in must Exit.
func (g *Gate) Enter(what string) error {
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return fmt.Errorf("%s: %w", what, ErrClosed)
	}
	return nil
}

// Exit ends a call that Enter let in.
func (g *Gate) Exit() { g.mu.RUnlock() }

// Close waits for the calls inside to exit, marks the store closed and runs shut,
// which frees the store's resources, with no call inside. A second Close does nothing
// and returns nil.
func (g *Gate) Close(shut func() error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	return shut()
}
