package hub

import (
	"context"
	"fmt"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// What the hub offers besides tools: every server's prompts, resources and resource
// templates, named by the same policy as tools, and the requests that use them.
//
// Prompt names follow tool names: passed through, or prefixed with the server's
// name when they collide (always, with the "always" policy). Resource URIs and
// URI templates are passed through unless two servers offer the same one (or the
// policy is "always"): then each gets the reversible form
//
//	switchboard://SERVER/ORIGINAL-URI
//
// (SERVER path-escaped), which any read, subscription or completion may also use
// for any server.

// extras is the immutable snapshot of prompts, resources and templates.
type extras struct {
	prompts      []*mcp.Prompt // exposed names
	promptRoutes map[string]route
	resources    []*mcp.Resource // exposed URIs
	resRoutes    map[string]route
	listed       map[tool.Key]bool       // by server and original URI: what resRoutes leads to
	templates    []*mcp.ResourceTemplate // exposed templates
	tmplRoutes   []tmplRoute             // in config order
}

type tmplRoute struct {
	exposed string
	route
	re *regexp.Regexp // matches URIs of the original template; nil if it does not parse
}

func emptyExtras() *extras {
	return &extras{promptRoutes: map[string]route{}, resRoutes: map[string]route{}, listed: map[tool.Key]bool{}}
}

// buildExtras derives the snapshot from the servers in config order; keep: prompts
// keep the names they have (see keptNames). h.mu held.
func (h *Hub) buildExtras(live []liveServer, keep bool) (*extras, error) {
	x := emptyExtras()
	kept := map[tool.Key]string{}
	if keep {
		for name, r := range h.ext.Load().promptRoutes {
			kept[tool.Key{Server: r.sup.Name(), Tool: r.original}] = name
		}
	}
	type promptEntry struct {
		sup *upstream.Supervisor
		p   *mcp.Prompt
	}
	prompts := map[tool.Key]promptEntry{}
	var inputs []tool.NameInput
	uriOwners := map[string]int{}  // URI → servers listing it
	tmplOwners := map[string]int{} // URI template → servers listing it
	for _, ls := range live {
		cfg := ls.sup.Config()
		for _, p := range ls.lists.Prompts {
			k := tool.Key{Server: cfg.Name, Tool: p.Name}
			prompts[k] = promptEntry{ls.sup, p}
			inputs = append(inputs, tool.NameInput{Key: k, Prefix: cfg.Prefix, Explicit: cfg.Prefix != "", Keep: kept[k], Rank: ls.rank})
		}
		countOwners(uriOwners, ls.lists.Resources, func(r *mcp.Resource) string { return r.URI })
		countOwners(tmplOwners, ls.lists.Templates, func(t *mcp.ResourceTemplate) string { return t.URITemplate })
	}
	names, err := tool.AssignNames(h.naming, inputs)
	if err != nil && h.naming == config.NamingNever {
		// "never" is about tools; colliding prompts must not keep every tool out of
		// the catalog: they get prefixes as under "auto".
		if msg := err.Error(); msg != h.promptWarned {
			h.promptWarned = msg
			h.log.Warn("prompt names collide under naming \"never\"; prefixing them as under \"auto\"", "err", err)
		}
		names, err = tool.AssignNames(config.NamingAuto, inputs)
	}
	if err != nil {
		return nil, fmt.Errorf("prompts: %w", err)
	}
	for _, in := range inputs {
		e := prompts[in.Key]
		exposed := names[in.Key]
		p := *e.p
		p.Name = exposed
		x.promptRoutes[exposed] = route{sup: e.sup, original: e.p.Name}
		x.prompts = append(x.prompts, &p)
	}
	always := h.naming == config.NamingAlways
	compiled := map[string]*regexp.Regexp{} // this rebuild's; becomes h.tmplRE
	defer func() { h.tmplRE = compiled }()
	for _, ls := range live {
		s, name := ls.sup, ls.sup.Name()
		for _, r := range ls.lists.Resources {
			exposed := r.URI
			if always || uriOwners[r.URI] > 1 {
				exposed = PrefixURI(name, r.URI)
			}
			if _, dup := x.resRoutes[exposed]; dup {
				continue
			}
			c := *r
			c.URI = exposed
			x.resRoutes[exposed] = route{sup: s, original: r.URI}
			x.listed[tool.Key{Server: name, Tool: r.URI}] = true
			x.resources = append(x.resources, &c)
		}
		for _, t := range ls.lists.Templates {
			exposed := t.URITemplate
			if always || tmplOwners[t.URITemplate] > 1 {
				exposed = PrefixURI(name, t.URITemplate)
			}
			c := *t
			c.URITemplate = exposed
			tr := tmplRoute{exposed: exposed, route: route{sup: s, original: t.URITemplate}, re: h.templateRegexp(t.URITemplate, compiled)}
			x.tmplRoutes = append(x.tmplRoutes, tr)
			x.templates = append(x.templates, &c)
		}
	}
	return x, nil
}

// countOwners adds one owner to counts for each distinct key of items.
func countOwners[T any](counts map[string]int, items []T, key func(T) string) {
	seen := map[string]bool{}
	for _, it := range items {
		if k := key(it); !seen[k] {
			seen[k] = true
			counts[k]++
		}
	}
}

// templateRegexp matches the URIs of a URI template (nil if it does not parse).
// Compiled templates are kept from one rebuild to the next (a rebuild follows
// every server event), in compiled; h.mu held.
func (h *Hub) templateRegexp(tmpl string, compiled map[string]*regexp.Regexp) *regexp.Regexp {
	re, ok := h.tmplRE[tmpl]
	if !ok {
		if t, err := uritemplate.New(tmpl); err == nil {
			re = t.Regexp()
		}
	}
	compiled[tmpl] = re
	return re
}

// Prompts returns every server's prompts under their exposed names.
func (h *Hub) Prompts() []*mcp.Prompt { return h.ext.Load().prompts }

// Resources returns every server's listed resources under their exposed URIs.
func (h *Hub) Resources() []*mcp.Resource { return h.ext.Load().resources }

// ResourceTemplates returns every server's resource templates, exposed.
func (h *Hub) ResourceTemplates() []*mcp.ResourceTemplate { return h.ext.Load().templates }

// GetPrompt gets a prompt by exposed name from the server that has it, over the
// connection a tool call from ctx would use (doRoute: a person's own to a "perUser"
// server). Resource URIs in its messages come back exposed (see exposeURI).
func (h *Hub) GetPrompt(ctx context.Context, params *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	r, ok := h.ext.Load().promptRoutes[params.Name]
	if !ok || !access.FromContext(ctx).Server(r.sup.Name()) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", params.Name)}
	}
	p := *params
	p.Name = r.original
	var res *mcp.GetPromptResult
	err := h.doRoute(ctx, r.sup, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.GetPrompt(ctx, &p)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, m := range res.Messages {
		if m != nil {
			h.exposeContent(r.sup.Name(), m.Content)
		}
	}
	return res, nil
}

// ReadResource reads a resource from the server that has it (see resolveURI), over
// the connection a tool call from ctx would use (doRoute). The contents' URIs come back in the exposed form the client asked with (others the
// read returns, exposed as by exposeURI).
func (h *Hub) ReadResource(ctx context.Context, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	sup, original, err := h.resolveURI(params.URI)
	if err != nil {
		return nil, err
	}
	if !access.FromContext(ctx).Server(sup.Name()) {
		return nil, mcp.ResourceNotFoundError(params.URI)
	}
	p := *params
	p.URI = original
	var res *mcp.ReadResourceResult
	err = h.doRoute(ctx, sup, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.ReadResource(ctx, &p)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, c := range res.Contents {
		switch {
		case c == nil:
		case c.URI == original:
			c.URI = params.URI
		default: // another resource in the same read (the files of a directory, say)
			c.URI = h.exposeURI(sup.Name(), c.URI)
		}
	}
	return res, nil
}

// Complete asks the server behind a prompt or resource template for completions,
// over the connection a tool call from ctx would use (doRoute).
func (h *Hub) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	if params.Ref == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion/complete: missing ref"}
	}
	p := *params
	ref := *params.Ref
	p.Ref = &ref
	var sup *upstream.Supervisor
	switch ref.Type {
	case "ref/prompt":
		r, ok := h.ext.Load().promptRoutes[ref.Name]
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", ref.Name)}
		}
		sup, ref.Name = r.sup, r.original
	case "ref/resource":
		for _, t := range h.ext.Load().tmplRoutes {
			if t.exposed == ref.URI {
				sup, ref.URI = t.sup, t.original
				break
			}
		}
		if sup == nil {
			s, original, err := h.resolveURI(ref.URI)
			if err != nil {
				return nil, err
			}
			sup, ref.URI = s, original
		}
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("completion/complete: unknown ref type %q", ref.Type)}
	}
	if !access.FromContext(ctx).Server(sup.Name()) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion/complete: unknown ref"}
	}
	var res *mcp.CompleteResult
	err := h.doRoute(ctx, sup, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.Complete(ctx, &p)
		return err
	})
	return res, err
}
