package deferred

import (
	"sync"
	"sync/atomic"

	"github.com/switchboard-mcp/switchboard/search"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Catalog is a toolset's search index, kept up to date lazily: after the toolset
// changes, the next search indexes what changed (Index.Update). One Catalog serves
// every Views made from it (Catalog.Views), whatever their policies, and the
// HTTP API's search, so that a process indexes its catalog once. A Catalog starts
// no goroutine; it is safe for concurrent use.
type Catalog struct {
	inner tool.Toolset
	mu    sync.Mutex
	cur   atomic.Pointer[catalogBase]
}

// NewCatalog returns the search catalog of inner. It indexes nothing until the
// first search.
func NewCatalog(inner tool.Toolset) *Catalog { return &Catalog{inner: inner} }

// catalogBase is one snapshot of the toolset; its index is built on the first
// search, from the last index built before it where there is one.
type catalogBase struct {
	watch  <-chan struct{}
	tools  []tool.Tool
	byName map[string]int
	prev   *catalogBase // the snapshot whose index to update, until this one's is built
	ixOnce sync.Once
	ix     atomic.Pointer[search.Index]
}

func (c *catalogBase) index() *search.Index {
	c.ixOnce.Do(func() {
		var ix *search.Index
		if old := c.prev.built(); old != nil {
			ix = old.Update(c.tools)
		} else {
			ix = search.New(c.tools)
		}
		c.ix.Store(ix)
		c.prev = nil
	})
	return c.ix.Load()
}

// built is the snapshot's index if it has been built (nil for a nil snapshot).
func (c *catalogBase) built() *search.Index {
	if c == nil {
		return nil
	}
	return c.ix.Load()
}

// snapshot is the toolset now, taken again when it has changed.
func (c *Catalog) snapshot() *catalogBase {
	if s := c.cur.Load(); s != nil && !closed(s.watch) {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	prev := c.cur.Load()
	if prev != nil && !closed(prev.watch) {
		return prev
	}
	// The channel is taken before the snapshot: a change in between leaves it
	// closed, and the next reader takes another.
	s := &catalogBase{watch: c.inner.Changed(), tools: c.inner.Tools()}
	if prev != nil {
		// Built or not, the last index built is the one to update; never a chain.
		s.prev = prev
		if prev.built() == nil {
			s.prev = prev.prev
		}
	}
	s.byName = make(map[string]int, len(s.tools))
	for i, t := range s.tools {
		s.byName[t.Name] = i
	}
	c.cur.Store(s)
	return s
}

// Index is the search index of the toolset now.
func (c *Catalog) Index() *search.Index { return c.snapshot().index() }

// Inner is the toolset c follows.
func (c *Catalog) Inner() tool.Toolset { return c.inner }

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
