package hub

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay"
)

// The hub is what a gateway fronts (relay.Upstreams) and what hands its peers the
// servers' messages (relay.Source). Said here so that a changed method fails the
// build: a gateway finds the hub's proxy methods by a type assertion, and would
// otherwise quietly serve tools only.
var _ relay.Upstreams = (*Hub)(nil)

// NotifyRootsChanged tells every connected server that the client's roots changed.
func (h *Hub) NotifyRootsChanged() {
	h.mu.Lock()
	sups := h.supervisors()
	h.mu.Unlock()
	for _, s := range sups {
		s.NotifyRootsChanged()
	}
}

// SetCapabilities sets the client capabilities announced to every server from its
// next connection on; call it before Start for them to apply from the first.
func (h *Hub) SetCapabilities(caps *mcp.ClientCapabilities) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.base.Capabilities = caps
	h.upOpts.Capabilities = caps
	for _, s := range h.sups {
		s.SetCapabilities(caps)
	}
}

// AddPeer adds p to the receivers of the servers' requests and notifications to
// their client (a gateway is one; a hub may serve several). URIs in
// notifications/resources/updated are turned into the form the subscription used.
// Every Peer gets every notification, and keeps those of its own clients. A
// server's request goes to the Peers in the order they were added, until one takes
// it (a Peer declines one that is not its clients' with relay.NotMine). The link
// sets p's log level and removes it.
func (h *Hub) AddPeer(p relay.Peer) relay.PeerLink {
	l := &peerLink{h: h, p: p}
	h.levelMu.Lock()
	defer h.levelMu.Unlock()
	h.peers.Store(new(append(slices.Clone(*h.peers.Load()), l)))
	return l
}

// peerLink is a Peer's place in the hub.
type peerLink struct {
	h     *Hub
	p     relay.Peer
	level mcp.LoggingLevel // h.levelMu
}

func (l *peerLink) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) error {
	h := l.h
	h.levelMu.Lock()
	defer h.levelMu.Unlock()
	if !slices.Contains(*h.peers.Load(), l) {
		return nil // removed: its wishes went with it
	}
	l.level = level
	return h.applyLevel(ctx, false)
}

func (l *peerLink) Remove() {
	h := l.h
	h.levelMu.Lock()
	defer h.levelMu.Unlock()
	peers := *h.peers.Load()
	i := slices.Index(peers, l)
	if i < 0 {
		return
	}
	h.peers.Store(new(slices.Delete(slices.Clone(peers), i, i+1)))
	if l.level != "" {
		ctx, cancel := context.WithTimeout(context.Background(), peerLevelWait)
		defer cancel()
		if err := h.applyLevel(ctx, false); err != nil {
			h.log.Warn("log level after a peer left not set", "err", err)
		}
	}
}

// peerLevelWait bounds asking the servers for a log level when a Peer leaves.
const peerLevelWait = 10 * time.Second

// hubPeer is the Peer of every supervisor: it hands messages to the hub's Peers.
type hubPeer struct{ h *Hub }

func (hp hubPeer) Request(ctx context.Context, server, method string, params mcp.Params) (mcp.Result, error) {
	var declined error
	for _, l := range *hp.h.peers.Load() {
		res, err := l.p.Request(ctx, server, method, params)
		if !errors.Is(err, relay.ErrNotMine) {
			return res, err
		}
		if declined == nil { // the server gets the first Peer's reason
			declined = err
			if reason := errors.Unwrap(err); reason != nil {
				declined = reason
			}
		}
	}
	if declined != nil {
		return nil, declined
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: method + " is not supported by this client"}
}

func (hp hubPeer) Notify(ctx context.Context, server, method string, params mcp.Params) {
	peers := *hp.h.peers.Load()
	if len(peers) == 0 {
		return
	}
	if u, ok := params.(*mcp.ResourceUpdatedNotificationParams); ok && u != nil {
		c := *u
		c.URI = hp.h.notifiedURI(server, u.URI)
		params = &c
	}
	for _, l := range peers {
		l.p.Notify(ctx, server, method, params)
	}
}
