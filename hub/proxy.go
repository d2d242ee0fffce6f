package hub

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

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

// buildExtras derives the snapshot from the servers in config order; h.mu held.
func (h *Hub) buildExtras(live []liveServer) (*extras, error) {
	x := emptyExtras()
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
			inputs = append(inputs, tool.NameInput{Key: k, Prefix: cfg.Prefix, Explicit: cfg.Prefix != ""})
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

// GetPrompt gets a prompt by exposed name from the server that has it. Resource
// URIs in its messages come back exposed (see exposeURI).
func (h *Hub) GetPrompt(ctx context.Context, params *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	r, ok := h.ext.Load().promptRoutes[params.Name]
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", params.Name)}
	}
	p := *params
	p.Name = r.original
	var res *mcp.GetPromptResult
	err := r.sup.Do(ctx, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
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

// ReadResource reads a resource from the server that has it (see resolveURI). The
// contents' URIs come back in the exposed form the client asked with (others the
// read returns, exposed as by exposeURI).
func (h *Hub) ReadResource(ctx context.Context, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	sup, original, err := h.resolveURI(params.URI)
	if err != nil {
		return nil, err
	}
	p := *params
	p.URI = original
	var res *mcp.ReadResourceResult
	err = sup.Do(ctx, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
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

// Complete asks the server behind a prompt or resource template for completions.
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
	var res *mcp.CompleteResult
	err := sup.Do(ctx, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.Complete(ctx, &p)
		return err
	})
	return res, err
}

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

// SetLogLevel asks every server with logging, now and after reconnects (and servers
// added later), for log messages at level and above — or at a more verbose level
// that a Peer asked for (see AddPeer): the servers get the most verbose wanted.
func (h *Hub) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) error {
	h.levelMu.Lock()
	defer h.levelMu.Unlock()
	h.ownLevel = level
	return h.applyLevel(ctx, true)
}

// applyLevel asks the servers for the most verbose level the program and the Peers
// want, if it is not the one they were asked for (always when force). With none
// wanted they keep the last. h.levelMu is held.
func (h *Hub) applyLevel(ctx context.Context, force bool) error {
	levels := []mcp.LoggingLevel{h.ownLevel}
	for _, l := range *h.peers.Load() {
		levels = append(levels, l.level)
	}
	level := upstream.MostVerbose(levels...)
	h.mu.Lock()
	if level == "" || (level == h.logLevel && !force) {
		h.mu.Unlock()
		return nil
	}
	h.logLevel = level
	sups := h.supervisors()
	h.mu.Unlock()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, s := range sups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.SetLogLevel(ctx, level); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("server %q: %w", s.Name(), err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

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
// it (a Peer declines one that is not its clients' with upstream.NotMine). The link
// sets p's log level and removes it.
func (h *Hub) AddPeer(p upstream.Peer) upstream.PeerLink {
	l := &peerLink{h: h, p: p}
	h.levelMu.Lock()
	defer h.levelMu.Unlock()
	h.peers.Store(new(append(slices.Clone(*h.peers.Load()), l)))
	return l
}

// peerLink is a Peer's place in the hub.
type peerLink struct {
	h     *Hub
	p     upstream.Peer
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
		if !errors.Is(err, upstream.ErrNotMine) {
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
