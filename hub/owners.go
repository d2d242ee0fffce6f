package hub

import "github.com/modelcontextprotocol/go-sdk/mcp"

// Owned is a prompt, resource or resource template as the hub exposes it, with
// the name of the server that offers it: what an API that lists them across
// servers shows.
type Owned[T any] struct {
	Server string
	Item   T
}

// OwnedPrompts returns every server's prompts under their exposed names, each with
// its server, in the order of Prompts (one snapshot).
func (h *Hub) OwnedPrompts() []Owned[*mcp.Prompt] {
	x := h.ext.Load()
	out := make([]Owned[*mcp.Prompt], 0, len(x.prompts))
	for _, p := range x.prompts {
		out = append(out, Owned[*mcp.Prompt]{Server: x.promptRoutes[p.Name].sup.Name(), Item: p})
	}
	return out
}

// OwnedResources returns every server's listed resources under their exposed URIs,
// each with its server, in the order of Resources (one snapshot).
func (h *Hub) OwnedResources() []Owned[*mcp.Resource] {
	x := h.ext.Load()
	out := make([]Owned[*mcp.Resource], 0, len(x.resources))
	for _, r := range x.resources {
		out = append(out, Owned[*mcp.Resource]{Server: x.resRoutes[r.URI].sup.Name(), Item: r})
	}
	return out
}

// OwnedResourceTemplates returns every server's resource templates, exposed, each
// with its server, in the order of ResourceTemplates (one snapshot).
func (h *Hub) OwnedResourceTemplates() []Owned[*mcp.ResourceTemplate] {
	x := h.ext.Load()
	out := make([]Owned[*mcp.ResourceTemplate], 0, len(x.templates))
	for i, t := range x.templates {
		out = append(out, Owned[*mcp.ResourceTemplate]{Server: x.tmplRoutes[i].sup.Name(), Item: t})
	}
	return out
}

// ResourceServer names the server that a read of the exposed URI goes to (as
// ReadResource resolves it); ok is false when none would take it.
func (h *Hub) ResourceServer(uri string) (server string, ok bool) {
	sup, _, err := h.resolveURI(uri)
	if err != nil {
		return "", false
	}
	return sup.Name(), true
}

// PromptServer names the server of the exposed prompt name; ok is false when no
// server has it.
func (h *Hub) PromptServer(name string) (server string, ok bool) {
	r, ok := h.ext.Load().promptRoutes[name]
	if !ok {
		return "", false
	}
	return r.sup.Name(), true
}

// TemplateServer names the server of the exposed resource template; ok is false
// when no server has it.
func (h *Hub) TemplateServer(uriTemplate string) (server string, ok bool) {
	for _, t := range h.ext.Load().tmplRoutes {
		if t.exposed == uriTemplate {
			return t.sup.Name(), true
		}
	}
	return "", false
}
