package hub

import (
	"sync"
	"time"
)

// CallEvent is one call that Hub.Call routed to a server, reported when it ends.
type CallEvent struct {
	// Server and Tool are the server that owns the tool and the tool's own name there
	// (tool.Tool.Server and OriginalName); Name is the exposed name it was called by.
	Server, Tool, Name string
	Duration           time.Duration
	// IsError: the result is an error, the tool's own or the hub's (the server dead
	// or unreachable, a timeout, a protocol error).
	IsError bool
}

// callObservers are the functions ObserveCalls registered; the zero value has none.
type callObservers struct {
	mu  sync.Mutex
	fns map[int]func(CallEvent)
	id  int
}

// ObserveCalls calls fn after every call that Hub.Call routed to a server, whoever
// made it (an agent, the HTTP API, a gateway's client): one place to count calls and
// their latency by server and tool. A call to an unknown tool reaches no server and is
// not reported (its name is whatever the caller sent). fn runs on the caller's
// goroutine, calls run concurrently: keep it quick and safe for concurrent use. The
// returned function unregisters fn.
func (h *Hub) ObserveCalls(fn func(CallEvent)) (cancel func()) {
	o := &h.callObs
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fns == nil {
		o.fns = map[int]func(CallEvent){}
	}
	o.id++
	id := o.id
	o.fns[id] = fn
	return func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		delete(o.fns, id)
	}
}

func (o *callObservers) report(e CallEvent) {
	o.mu.Lock()
	fns := make([]func(CallEvent), 0, len(o.fns))
	for _, fn := range o.fns {
		fns = append(fns, fn)
	}
	o.mu.Unlock()
	for _, fn := range fns {
		fn(e)
	}
}
