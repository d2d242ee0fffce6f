package hub

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// SubscribeResource subscribes to a resource on the server that has it; its
// notifications/resources/updated reach the Peers with the URI as given here.
// Subscriptions are counted: the server is subscribed while any made with
// SubscribeResource has not been ended with UnsubscribeResource (several gateways
// on one hub each subscribe for their clients).
func (h *Hub) SubscribeResource(ctx context.Context, uri string) error {
	sup, key, err := h.subscription(uri)
	if err != nil {
		return err
	}
	if !access.FromContext(ctx).Server(sup.Name()) {
		return mcp.ResourceNotFoundError(uri)
	}
	h.holdMu.Lock()
	defer h.holdMu.Unlock()
	if h.holds[key] == 0 {
		if err := sup.Subscribe(ctx, key.Tool); err != nil {
			return err
		}
	}
	h.holds[key]++
	h.subMu.Lock()
	h.subURIs[key] = uri
	h.subMu.Unlock()
	return nil
}

// subscription is the server of a resource URI and the key its subscriptions are
// counted and remembered by: the server's name and the URI it knows.
func (h *Hub) subscription(uri string) (*upstream.Supervisor, tool.Key, error) {
	sup, original, err := h.resolveURI(uri)
	if err != nil {
		return nil, tool.Key{}, err
	}
	return sup, tool.Key{Server: sup.Name(), Tool: original}, nil
}

// UnsubscribeResource ends a subscription made with SubscribeResource; the server's
// ends with the last. A subscription to a server that is gone (a reload removed it)
// just ends.
func (h *Hub) UnsubscribeResource(ctx context.Context, uri string) error {
	sup, key, err := h.subscription(uri)
	if err != nil {
		var held bool
		if key, held = h.heldAs(uri); !held {
			return err
		}
		sup = h.supervisor(key.Server) // nil once gone
	}
	h.holdMu.Lock()
	defer h.holdMu.Unlock()
	if h.holds[key] > 1 {
		h.holds[key]--
		return nil
	}
	delete(h.holds, key)
	h.subMu.Lock()
	delete(h.subURIs, key)
	h.subMu.Unlock()
	if sup == nil {
		return nil
	}
	return sup.Unsubscribe(ctx, key.Tool)
}

// heldAs finds the subscription that was made with uri.
func (h *Hub) heldAs(uri string) (tool.Key, bool) {
	h.subMu.Lock()
	defer h.subMu.Unlock()
	for key, as := range h.subURIs {
		if as == uri {
			return key, true
		}
	}
	return tool.Key{}, false
}

// notifiedURI is the URI a notification about a server's resource carries: the
// form the subscription used, else exposeURI's.
func (h *Hub) notifiedURI(server, original string) string {
	h.subMu.Lock()
	uri, ok := h.subURIs[tool.Key{Server: server, Tool: original}]
	h.subMu.Unlock()
	if ok {
		return uri
	}
	return h.exposeURI(server, original)
}
