package gateway

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// forwarder carries messages between the gateway's clients and the upstreams.
//
// Client to server: every request's _meta goes along, with the client's progress
// token replaced by one of the gateway's own (so that two clients' tokens cannot
// clash upstream) and the 2026-07-28 per-request keys dropped (they are about the
// client's connection to the gateway). Cancellation follows the request's context.
// See clienttoserver.go and progress.go.
//
// Server to client: a server's progress goes to the client whose token it maps to.
// Its other messages go to the client whose request to that server is the newest
// still running (nothing on the wire says which request caused them); when none
// is running, requests go to the client heard from most recently that can answer
// them, and log messages to every client (each at the level it set). The forwarder
// is the gateway's relay.Peer on the hub; see servertoclient.go.
type forwarder struct {
	g *Gateway

	mu        sync.Mutex
	progress  map[string]progressDest                 // gateway token → client
	recent    []*mcp.ServerSession                    // newest last
	levels    map[*mcp.ServerSession]mcp.LoggingLevel // set by logging/setLevel
	upLevel   mcp.LoggingLevel                        // asked of the upstreams
	subs      map[string]map[*mcp.ServerSession]bool  // resource subscriptions by URI
	watched   map[*mcp.ServerSession]bool             // sessions whose end is awaited (clientsessions.go)
	exchanges map[string]*exchange                    // multi-round-trip calls by request state
	underWay  map[*underWay]struct{}                  // requests between the gateway and its clients (cancellation.go)
	carriers  map[*mcp.ServerSession]context.Context  // what carries each session's requests, if anything (cancellation.go)

	// upMu orders the forwarder's changes to the servers' state (subscriptions,
	// the log level): each is decided and made before the next is decided.
	upMu sync.Mutex
}

func newForwarder(g *Gateway) *forwarder {
	return &forwarder{
		g:         g,
		progress:  map[string]progressDest{},
		levels:    map[*mcp.ServerSession]mcp.LoggingLevel{},
		subs:      map[string]map[*mcp.ServerSession]bool{},
		watched:   map[*mcp.ServerSession]bool{},
		exchanges: map[string]*exchange{},
		underWay:  map[*underWay]struct{}{},
		carriers:  map[*mcp.ServerSession]context.Context{},
	}
}

type sessionKey struct{}

// touch records ss as the client heard from most recently.
func (f *forwarder) touch(ss *mcp.ServerSession) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.recent); n > 0 && f.recent[n-1] == ss {
		return
	}
	for i, s := range f.recent {
		if s == ss {
			f.recent = append(f.recent[:i], f.recent[i+1:]...)
			break
		}
	}
	f.recent = append(f.recent, ss)
	if len(f.recent) > 64 {
		f.recent = f.recent[1:]
	}
}

// sessions are the connected clients.
func (f *forwarder) sessions() map[*mcp.ServerSession]bool {
	live := map[*mcp.ServerSession]bool{}
	for ss := range f.g.server.Sessions() {
		live[ss] = true
	}
	return live
}
