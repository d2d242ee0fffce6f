package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
)

// view is a derived snapshot (names, routes) of one or more member toolsets. It is
// rebuilt lazily: a reader checks the members' change channels taken at the last
// build, without locks, and rebuilds only when one of them has been closed.
type view[T any] struct {
	mu  sync.Mutex
	cur atomic.Pointer[viewState[T]]
}

type viewState[T any] struct {
	watch []<-chan struct{}
	val   T
}

func (v *view[T]) get(members []Toolset, build func() T) T {
	if s := v.cur.Load(); s != nil && !anyClosed(s.watch) {
		return s.val
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s := v.cur.Load(); s != nil && !anyClosed(s.watch) {
		return s.val
	}
	// Take the channels before reading the snapshots, so that a change in between
	// leaves a closed channel behind and the next reader rebuilds.
	watch := make([]<-chan struct{}, len(members))
	for i, m := range members {
		watch[i] = m.Changed()
	}
	s := &viewState[T]{watch: watch, val: build()}
	v.cur.Store(s)
	return s.val
}

func anyClosed(chs []<-chan struct{}) bool {
	for _, ch := range chs {
		select {
		case <-ch:
			return true
		default:
		}
	}
	return false
}

// UnionSet is several toolsets as one. Names are assigned by the same policy as the
// hub's (identity is the member and the member's tool name; the prefix is the tool's
// Server), so local and MCP tools share one rule.
type UnionSet struct {
	naming  Naming
	members []Toolset
	view    view[*unionSnapshot]

	watchOnce sync.Once
	notifier  Notifier
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

type unionSnapshot struct {
	tools  []Tool
	routes map[string]unionRoute
	err    error
}

type unionRoute struct {
	member Toolset
	name   string
}

// Union combines toolsets under a naming policy ("" means auto). An agent's own
// tools, a team's shared tools and a pool's MCP servers are just a union handed to the
// agent (or to the gateway). Close stops the union's change watcher; it does not close
// the members.
func Union(naming Naming, members ...Toolset) *UnionSet {
	return &UnionSet{naming: naming, members: members, stop: make(chan struct{}), done: make(chan struct{})}
}

func (u *UnionSet) snapshot() *unionSnapshot {
	return u.view.get(u.members, u.build)
}

func (u *UnionSet) build() *unionSnapshot {
	type src struct {
		member Toolset
		t      Tool
	}
	srcs := map[Key]src{}
	var inputs []NameInput
	for i, m := range u.members {
		for _, t := range m.Tools() {
			// The member index keeps two members' identical (server, name) pairs apart;
			// the prefix shown in names stays the tool's server.
			k := Key{Server: fmt.Sprintf("%s\x00%d", t.Server, i), Tool: t.Name}
			srcs[k] = src{m, t}
			inputs = append(inputs, NameInput{Key: k, Prefix: t.Server})
		}
	}
	names, err := AssignNames(u.naming, inputs)
	if err != nil {
		return &unionSnapshot{routes: map[string]unionRoute{}, err: err}
	}
	s := &unionSnapshot{routes: make(map[string]unionRoute, len(inputs)), tools: make([]Tool, 0, len(inputs))}
	for _, in := range inputs {
		sr := srcs[in.Key]
		exposed := names[in.Key]
		t := sr.t
		t.Name = exposed
		s.tools = append(s.tools, t)
		s.routes[exposed] = unionRoute{member: sr.member, name: sr.t.Name}
	}
	return s
}

// Tools returns the members' tools under their union names.
func (u *UnionSet) Tools() []Tool { return u.snapshot().tools }

// Err reports a naming error (policy "never" with a collision); Tools is empty then.
func (u *UnionSet) Err() error { return u.snapshot().err }

// Call routes to the member that owns the tool.
func (u *UnionSet) Call(ctx context.Context, name string, args json.RawMessage) (*Result, error) {
	s := u.snapshot()
	r, ok := s.routes[name]
	if !ok {
		if s.err != nil {
			return ErrorResult("unknown tool %q (the tool set has a naming conflict: %v)", name, s.err), nil
		}
		return ErrorResult("unknown tool %q", name), nil
	}
	return r.member.Call(ctx, r.name, args)
}

// Changed returns a channel closed when any member's tools change. The first call
// starts a watcher goroutine that Close stops.
func (u *UnionSet) Changed() <-chan struct{} {
	ch := u.notifier.Changed()
	u.watchOnce.Do(func() {
		// The members' channels are taken before Changed returns, so no change after
		// it can be missed.
		go u.watch(u.memberChannels())
	})
	return ch
}

func (u *UnionSet) memberChannels() []reflect.SelectCase {
	cases := make([]reflect.SelectCase, len(u.members)+1)
	cases[0] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(u.stop)}
	for i, m := range u.members {
		cases[i+1] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(m.Changed())}
	}
	return cases
}

func (u *UnionSet) watch(cases []reflect.SelectCase) {
	defer close(u.done)
	for {
		if chosen, _, _ := reflect.Select(cases); chosen == 0 {
			return
		}
		// Re-arm before notifying: a change in between closes a channel we hold.
		cases = u.memberChannels()
		u.notifier.Notify()
	}
}

// Close stops the change watcher, if it runs. Members are left open.
func (u *UnionSet) Close() error {
	u.closeOnce.Do(func() {
		close(u.stop)
		started := true
		u.watchOnce.Do(func() { started = false })
		if started {
			<-u.done
		}
	})
	return nil
}

// FilterSet exposes the tools of a toolset that pass a predicate.
type FilterSet struct {
	inner Toolset
	keep  func(Tool) bool
	view  view[filterSnapshot]
}

type filterSnapshot struct {
	tools []Tool
	names map[string]bool
}

// Filter keeps the tools whose exposed name matches an allow glob (all, when allow is
// empty) and no deny glob. Globs use path.Match syntax.
func Filter(inner Toolset, allow, deny []string) *FilterSet {
	f := ToolFilter{Allow: allow, Deny: deny}
	return FilterFunc(inner, func(t Tool) bool { return f.Allows(t.Name) })
}

// FilterFunc keeps the tools for which keep returns true.
func FilterFunc(inner Toolset, keep func(Tool) bool) *FilterSet {
	return &FilterSet{inner: inner, keep: keep}
}

func (f *FilterSet) snapshot() filterSnapshot {
	return f.view.get([]Toolset{f.inner}, func() filterSnapshot {
		s := filterSnapshot{names: map[string]bool{}}
		for _, t := range f.inner.Tools() {
			if f.keep(t) {
				s.tools = append(s.tools, t)
				s.names[t.Name] = true
			}
		}
		return s
	})
}

func (f *FilterSet) Tools() []Tool { return f.snapshot().tools }

// Call refuses tools that the filter hides, as if they did not exist.
func (f *FilterSet) Call(ctx context.Context, name string, args json.RawMessage) (*Result, error) {
	if !f.snapshot().names[name] {
		return ErrorResult("unknown tool %q", name), nil
	}
	return f.inner.Call(ctx, name, args)
}

func (f *FilterSet) Changed() <-chan struct{} { return f.inner.Changed() }

// PrefixSet exposes a toolset's tools as prefix__name.
type PrefixSet struct {
	inner  Toolset
	prefix string
	view   view[prefixSnapshot]
}

type prefixSnapshot struct {
	tools  []Tool
	routes map[string]string
}

// Prefix renames every tool of inner to prefix__name (sanitised and shortened to the
// provider limit with a stable hash suffix when needed).
func Prefix(inner Toolset, prefix string) *PrefixSet {
	return &PrefixSet{inner: inner, prefix: prefix}
}

func (p *PrefixSet) snapshot() prefixSnapshot {
	return p.view.get([]Toolset{p.inner}, func() prefixSnapshot {
		s := prefixSnapshot{routes: map[string]string{}}
		for _, t := range p.inner.Tools() {
			name, _ := prefixed(NameInput{Key: Key{Server: p.prefix, Tool: t.Name}})
			s.routes[name] = t.Name
			t.Name = name
			s.tools = append(s.tools, t)
		}
		return s
	})
}

func (p *PrefixSet) Tools() []Tool { return p.snapshot().tools }

func (p *PrefixSet) Call(ctx context.Context, name string, args json.RawMessage) (*Result, error) {
	orig, ok := p.snapshot().routes[name]
	if !ok {
		return ErrorResult("unknown tool %q", name), nil
	}
	return p.inner.Call(ctx, orig, args)
}

func (p *PrefixSet) Changed() <-chan struct{} { return p.inner.Changed() }
