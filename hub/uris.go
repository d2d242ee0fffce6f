package hub

import (
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// URIScheme starts a resource URI that names its server explicitly.
const URIScheme = "switchboard://"

// PrefixURI is the reversible form of a server's resource URI (or URI template).
func PrefixURI(server, uri string) string {
	return URIScheme + url.PathEscape(server) + "/" + uri
}

// SplitURI undoes PrefixURI; ok is false for any other URI.
func SplitURI(uri string) (server, original string, ok bool) {
	rest, found := strings.CutPrefix(uri, URIScheme)
	if !found {
		return "", "", false
	}
	esc, original, found := strings.Cut(rest, "/")
	if !found {
		return "", "", false
	}
	server, err := url.PathUnescape(esc)
	if err != nil || server == "" {
		return "", "", false
	}
	return server, original, true
}

// exposeURI is the form of a server's resource URI u that leads back to the
// server: u itself when a read of u goes there, else, if u is the server's own
// (listed by it, or matched by one of its templates), the reversible PrefixURI
// form. Any other URI (a web page, say) passes through unchanged.
func (h *Hub) exposeURI(server, u string) string {
	if u == "" {
		return u
	}
	if got, original, err := h.resolveURI(u); err == nil && got.Name() == server && original == u {
		return u
	}
	x := h.ext.Load()
	owned := x.listed[tool.Key{Server: server, Tool: u}] || slices.ContainsFunc(x.tmplRoutes, func(t tmplRoute) bool {
		return t.sup.Name() == server && t.re != nil && t.re.MatchString(u)
	})
	if !owned {
		return u
	}
	return PrefixURI(server, u)
}

// exposeContent gives the resource links and embedded resources in content from
// server their exposed URIs (exposeURI), in place.
func (h *Hub) exposeContent(server string, content ...mcp.Content) {
	for _, c := range content {
		switch c := c.(type) {
		case *mcp.ResourceLink:
			c.URI = h.exposeURI(server, c.URI)
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				c.Resource.URI = h.exposeURI(server, c.Resource.URI)
			}
		}
	}
}

// resolveURI finds the server for an exposed resource URI and the URI it knows:
// the server named by a switchboard:// URI; else the server that listed the URI;
// else the first server (in config order) whose unprefixed template matches it;
// else the only server with resources. Otherwise it is a "resource not found" error.
func (h *Hub) resolveURI(uri string) (*upstream.Supervisor, string, error) {
	if server, original, ok := SplitURI(uri); ok {
		if s := h.supervisor(server); s != nil {
			return s, original, nil
		}
		return nil, "", mcp.ResourceNotFoundError(uri)
	}
	x := h.ext.Load()
	if r, ok := x.resRoutes[uri]; ok {
		return r.sup, r.original, nil
	}
	for _, t := range x.tmplRoutes {
		if t.exposed == t.original && t.re != nil && t.re.MatchString(uri) {
			return t.sup, uri, nil
		}
	}
	var only *upstream.Supervisor
	h.mu.Lock()
	sups := h.supervisors()
	h.mu.Unlock()
	for _, s := range sups {
		if caps := s.Capabilities(); caps != nil && caps.Resources != nil {
			if only != nil {
				return nil, "", mcp.ResourceNotFoundError(uri)
			}
			only = s
		}
	}
	if only == nil {
		return nil, "", mcp.ResourceNotFoundError(uri)
	}
	return only, uri, nil
}
