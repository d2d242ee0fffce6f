package hub

import "github.com/switchboard-mcp/switchboard/upstream"

// SetEventHook makes fn run on every server event of h, before h rebuilds its
// catalog: where a server's state has changed and the catalog does not show it yet.
func SetEventHook(h *Hub, fn func(upstream.Event)) { h.eventHook = fn }
