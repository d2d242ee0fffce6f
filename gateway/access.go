package gateway

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/tool"
)

// A client's lists are those of its caller's access (package access), which the
// context of its requests carries: the HTTP API puts it there for /mcp (the union of
// the person's profiles) and /mcp/{profile} (that profile alone), from the request
// that opened the session. tools/list keeps the tools the access reaches (in
// deferred mode, the session's view sees only those: deferred.go), prompts/list,
// resources/list and resources/templates/list those of the servers it reaches. What
// the lists leave out is unknown to the client's calls (refused here, or by the
// session's view) and to its reads and completions (a hub refuses them by the same
// access); a refused call is audited when the toolset audits its calls.

// owners is what Upstreams that know the server of each prompt, resource and
// template offer (a hub): without it, a client whose access filters anything lists
// no prompts or resources.
type owners interface {
	PromptServer(name string) (string, bool)
	ResourceServer(uri string) (string, bool)
	TemplateServer(uriTemplate string) (string, bool)
}

// accessLists is the receiving middleware that filters the lists by the access of
// the request's context.
func (g *Gateway) accessLists(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		acc := access.FromContext(ctx)
		if acc.All() {
			return next(ctx, method, req)
		}
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		own, _ := g.up.(owners)
		reaches := func(find func(string) (string, bool), key string) bool {
			if own == nil {
				return false
			}
			server, ok := find(key)
			return ok && acc.Server(server)
		}
		switch r := res.(type) {
		case *mcp.ListToolsResult:
			if g.views == nil { // a deferred session's view lists its own (deferred.go)
				r.Tools = keep(r.Tools, func(t *mcp.Tool) bool { return acc.Tool(g.servedTool(t.Name)) })
			}
		case *mcp.ListPromptsResult:
			r.Prompts = keep(r.Prompts, func(p *mcp.Prompt) bool { return reaches(own.PromptServer, p.Name) })
		case *mcp.ListResourcesResult:
			r.Resources = keep(r.Resources, func(x *mcp.Resource) bool { return reaches(own.ResourceServer, x.URI) })
		case *mcp.ListResourceTemplatesResult:
			r.ResourceTemplates = keep(r.ResourceTemplates, func(x *mcp.ResourceTemplate) bool { return reaches(own.TemplateServer, x.URITemplate) })
		}
		return res, nil
	}
}

// refused answers a call of a tool the access of ctx does not reach: unknown, as a
// tool nobody has, never made, and audited as refused when the toolset audits its
// calls (a hub).
func refused(ctx context.Context, ts tool.Toolset, name string, args json.RawMessage) *mcp.CallToolResult {
	tool.AuditRefused(ctx, ts, name, args)
	return tool.ErrorResult("unknown tool %q", name)
}

// servedTool is the tool the MCP server lists under name.
func (g *Gateway) servedTool(name string) tool.Tool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served[name]
}

// keep is the items of s that ok keeps (never nil: a list is [] on the wire).
func keep[T any](s []T, ok func(T) bool) []T {
	out := make([]T, 0, len(s))
	for _, x := range s {
		if ok(x) {
			out = append(out, x)
		}
	}
	return out
}
