package deferred

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/switchboard-mcp/switchboard/search"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Views is a catalog (any tool.Toolset, normally a hub) seen in deferred mode under
// one Policy: sessions get a View each, which lists the search tools, the pinned
// tools and the tools that session has found, and calls any catalog tool by name.
// Its index is its Catalog's, shared with every Views made from that Catalog. A
// Views starts no goroutine; it is safe for concurrent use.
type Views struct {
	cat    *Catalog
	inner  tool.Toolset
	policy Policy
	mu     sync.Mutex
	cur    atomic.Pointer[catalogSnap]
}

// New returns inner in deferred mode under p, with a Catalog of its own;
// Catalog.Views shares one.
func New(inner tool.Toolset, p Policy) *Views { return NewCatalog(inner).Views(p) }

// Views returns the catalog in deferred mode under p, sharing c's index.
func (c *Catalog) Views(p Policy) *Views {
	if p.Threshold <= 0 {
		p.Threshold = DefaultThreshold
	}
	if p.ContextWindow <= 0 {
		p.ContextWindow = DefaultContextWindow
	}
	return &Views{cat: c, inner: c.inner, policy: p}
}

// catalogSnap is a catalog snapshot with what this Views' policy derives from
// it.
type catalogSnap struct {
	*catalogBase
	active bool
	pinned []int // indexes into tools, in catalog order
	metas  []tool.Tool
}

// snapshot is the catalog now, derived again when it has changed.
func (d *Views) snapshot() *catalogSnap {
	base := d.cat.snapshot()
	if c := d.cur.Load(); c != nil && c.catalogBase == base {
		return c
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if c := d.cur.Load(); c != nil && c.catalogBase == base {
		return c
	}
	c := &catalogSnap{catalogBase: base, active: d.defers(base.tools), metas: d.metaTools(base.tools)}
	if d.policy.Pinned != nil {
		for i, t := range base.tools {
			if d.policy.Pinned(t) {
				c.pinned = append(c.pinned, i)
			}
		}
	}
	d.cur.Store(c)
	return c
}

// defers decides the mode for a catalog.
func (d *Views) defers(tools []tool.Tool) bool {
	switch d.policy.Mode {
	case Always:
		return true
	case Never:
		return false
	}
	if d.policy.Share > 0 {
		return float64(EstimateTokens(tools)) > d.policy.Share*float64(d.policy.ContextWindow)
	}
	return len(tools) >= d.policy.Threshold
}

// EstimateTokens estimates what the tools' definitions take of a model's context:
// their name, description and schemas in bytes, over four.
func EstimateTokens(tools []tool.Tool) int {
	n := 0
	for _, t := range tools {
		n += len(t.Name) + len(t.Title) + len(t.Description) + len(t.InputSchema) + len(t.OutputSchema) + 32
	}
	return n / 4
}

// Active reports whether the catalog is deferred now (it depends on its size in
// Auto mode).
func (d *Views) Active() bool { return d.snapshot().active }

// Index is the search index of the catalog now.
func (d *Views) Index() *search.Index { return d.cat.Index() }

// Catalog is the search catalog d's index comes from.
func (d *Views) Catalog() *Catalog { return d.cat }

// Policy is the policy d was made with, its defaults filled in.
func (d *Views) Policy() Policy { return d.policy }

// Inner is the catalog d defers.
func (d *Views) Inner() tool.Toolset { return d.inner }

// View is one session's view of a deferred catalog: its own set of loaded tools.
// save, when not nil, is called with the whole set (sorted) each time it grows, so
// that it can persist with the session. A View is a tool.Toolset; Close stops the
// goroutine that Changed starts.
func (d *Views) View(loaded []string, save func(loaded []string)) *View {
	return d.ViewOnly(nil, loaded, save)
}

// ViewOnly is View seeing only the catalog's tools that keep allows (nil: every
// one): the tools of one caller's profiles (package access). It lists, finds and
// calls no other: the search tools' descriptions count only those, a search ranks
// the whole catalog and returns the best of those, and a call of any other is
// answered as an unknown tool's, never made. keep is asked afresh at each list, so
// that it may change.
func (d *Views) ViewOnly(keep func(tool.Tool) bool, loaded []string, save func(loaded []string)) *View {
	v := &View{d: d, keep: keep, save: save, loaded: map[string]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	for _, n := range loaded {
		v.loaded[n] = true
	}
	return v
}

// View is a session's deferred toolset; see Views.View.
type View struct {
	d    *Views
	keep func(tool.Tool) bool // nil: every tool of the catalog
	save func([]string)

	mu      sync.Mutex
	loaded  map[string]bool // exposed names, kept while the tool is gone from the catalog
	version int             // bumped by each load
	cache   *viewList

	notifier  tool.Notifier
	watchOnce sync.Once
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

type viewList struct {
	cat     *catalogSnap
	version int
	tools   []tool.Tool
}

// Tools lists, when the catalog is deferred, the search tools, then the pinned and
// loaded tools in catalog order; otherwise the whole catalog. A loaded tool that
// left the catalog is not listed, and is again once it is back under its name.
func (v *View) Tools() []tool.Tool {
	c := v.d.snapshot()
	if v.keep != nil {
		return v.keptTools(c)
	}
	if !c.active {
		return c.tools
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if l := v.cache; l != nil && l.cat == c && l.version == v.version {
		return l.tools
	}
	shown := make([]bool, len(c.tools))
	for _, i := range c.pinned {
		shown[i] = true
	}
	for n := range v.loaded {
		if i, ok := c.byName[n]; ok {
			shown[i] = true
		}
	}
	out := slices.Clone(c.metas)
	for i, s := range shown {
		if s {
			out = append(out, c.tools[i])
		}
	}
	v.cache = &viewList{cat: c, version: v.version, tools: out}
	return out
}

// keptTools is Tools for a view with keep, made afresh (keep may change).
func (v *View) keptTools(c *catalogSnap) []tool.Tool {
	var kept []tool.Tool
	for _, t := range c.tools {
		if v.keep(t) {
			kept = append(kept, t)
		}
	}
	if !c.active {
		return kept
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	out := v.d.metaTools(kept)
	for _, t := range kept {
		if v.loaded[t.Name] || (v.d.policy.Pinned != nil && v.d.policy.Pinned(t)) {
			out = append(out, t)
		}
	}
	return out
}

// kept reports whether the view reaches t.
func (v *View) kept(t tool.Tool) bool { return v.keep == nil || v.keep(t) }

// Loaded is the session's set of loaded tools, sorted.
func (v *View) Loaded() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Sorted(maps.Keys(v.loaded))
}

// Active reports whether the catalog is deferred now.
func (v *View) Active() bool { return v.d.snapshot().active }

// Lookup finds a tool the view can call: a search tool while the catalog is
// deferred, or any catalog tool, listed or not.
func (v *View) Lookup(name string) (tool.Tool, bool) {
	c := v.d.snapshot()
	if m, ok := c.meta(name); ok {
		return m, true
	}
	if i, ok := c.byName[name]; ok && v.kept(c.tools[i]) {
		return c.tools[i], true
	}
	return tool.Tool{}, false
}

// meta finds a search tool, which the view answers while the catalog is deferred
// (or, when it is not, for a name the catalog does not have: a model that saw them
// earlier may still call them).
func (c *catalogSnap) meta(name string) (tool.Tool, bool) {
	if _, taken := c.byName[name]; taken && !c.active {
		return tool.Tool{}, false
	}
	for _, m := range c.metas {
		if m.Name == name {
			return m, true
		}
	}
	return tool.Tool{}, false
}

// Call answers the search tools (loading what they find) and tool_call, and calls
// any catalog tool by name, loading it.
func (v *View) Call(ctx context.Context, name string, args json.RawMessage) (*tool.Result, error) {
	c := v.d.snapshot()
	if _, ok := c.meta(name); ok {
		switch name {
		case SearchToolName, RegexToolName:
			return v.search(ctx, c, name, args), nil
		case CallToolName:
			return v.callByName(ctx, c, args)
		}
	}
	if i, ok := c.byName[name]; ok && !v.kept(c.tools[i]) {
		return refused(ctx, v.d.inner, name, args), nil
	} else if ok && c.active {
		v.load(name)
	}
	return v.d.inner.Call(ctx, name, args)
}

// searchArgs are the arguments of both search tools.
type searchArgs struct {
	Query   *string  `json:"query"`
	Pattern *string  `json:"pattern"`
	Limit   *float64 `json:"limit"`
}

func (v *View) search(ctx context.Context, c *catalogSnap, name string, raw json.RawMessage) *tool.Result {
	var a searchArgs
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return tool.ErrorResult("%s takes an object such as %s: %v", name, metaExample(name), err)
		}
	}
	limit := 0
	if a.Limit != nil {
		if *a.Limit != float64(int(*a.Limit)) || *a.Limit < 1 {
			return tool.ErrorResult("limit %v is not a whole number from 1 to %d: give one, or leave it out", *a.Limit, search.MaxLimit)
		}
		limit = int(*a.Limit)
	}
	var (
		found []search.Result
		err   error
		asked string
	)
	if name == SearchToolName {
		if a.Query == nil {
			return tool.ErrorResult(`%s needs "query", the task in a few words: %s`, name, metaExample(name))
		}
		asked = *a.Query
		found, err = Find(ctx, c.index(), v.d.policy.Embeddings, asked, false, limit, v.keep)
	} else {
		if a.Pattern == nil {
			return tool.ErrorResult(`%s needs "pattern", a regular expression: %s`, name, metaExample(name))
		}
		asked = *a.Pattern
		found, err = Find(ctx, c.index(), nil, asked, true, limit, v.keep)
	}
	if err != nil {
		return tool.ErrorResult("%v", err)
	}
	names := make([]string, len(found))
	for i, r := range found {
		names[i] = r.Tool.Name
	}
	v.load(names...)
	return v.results(name, asked, found)
}

// Found is one search result as a search tool's structured content lists it.
type Found struct {
	Name        string  `json:"name"`
	Server      string  `json:"server,omitempty"`
	Description string  `json:"description,omitempty"`
	Parameters  string  `json:"parameters"`
	Score       float64 `json:"score"`
}

// results words a search's results for the model: what was found, that it is
// loaded, and how to call it.
func (v *View) results(name, asked string, found []search.Result) *tool.Result {
	var b strings.Builder
	if len(found) == 0 {
		fmt.Fprintf(&b, "No tools matched %q. ", asked)
		if name == SearchToolName {
			fmt.Fprintf(&b, "Try other words (what the tool does, or the service it belongs to), or %s with a pattern such as \"mail|smtp\".", RegexToolName)
		} else {
			fmt.Fprintf(&b, "Try a broader pattern, or %s with a description in words.", SearchToolName)
		}
		res := tool.TextResult(b.String())
		res.StructuredContent = map[string]any{"tools": []Found{}}
		return res
	}
	how := "call them by name from your next step"
	if v.d.policy.CallTool {
		how = fmt.Sprintf("call them by name, or through %s {\"name\": ..., \"arguments\": {...}} if your tool list does not show them yet", CallToolName)
	}
	fmt.Fprintf(&b, "Found %d tool%s for %q, best first, now loaded: %s.\n", len(found), plural(len(found)), asked, how)
	list := make([]Found, len(found))
	for i, r := range found {
		fmt.Fprintf(&b, "\n%s", search.Summary(r.Tool))
		list[i] = Found{Name: r.Tool.Name, Server: r.Tool.Server, Description: search.Description(r.Tool),
			Parameters: search.Params(r.Tool), Score: r.Score}
	}
	res := tool.TextResult(b.String())
	res.StructuredContent = map[string]any{"tools": list}
	return res
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// callByName is tool_call.
func (v *View) callByName(ctx context.Context, c *catalogSnap, raw json.RawMessage) (*tool.Result, error) {
	var a struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || a.Name == "" {
		return tool.ErrorResult(`%s needs "name", a tool's exact name as a search listed it, and "arguments", an object: %s`, CallToolName, metaExample(CallToolName)), nil
	}
	i, ok := c.byName[a.Name]
	if ok && !v.kept(c.tools[i]) {
		return refused(ctx, v.d.inner, a.Name, a.Arguments), nil
	}
	if !ok {
		if _, meta := c.meta(a.Name); meta {
			return tool.ErrorResult("%s calls catalog tools; call %s directly", CallToolName, a.Name), nil
		}
		return tool.ErrorResult("unknown tool %q: find tools with %s or %s, then call one by the name the result gives", a.Name, SearchToolName, RegexToolName), nil
	}
	args := a.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	v.load(a.Name)
	return v.d.inner.Call(ctx, a.Name, args)
}

// load adds names to the loaded set, saves it and tells Changed's waiters when it
// grew.
func (v *View) load(names ...string) {
	v.mu.Lock()
	grew := false
	for _, n := range names {
		if !v.loaded[n] {
			v.loaded[n] = true
			grew = true
		}
	}
	if !grew {
		v.mu.Unlock()
		return
	}
	v.version++
	set := slices.Sorted(maps.Keys(v.loaded))
	v.mu.Unlock()
	if v.save != nil {
		v.save(set)
	}
	v.notifier.Notify()
}

// Changed returns a channel closed when the view's list may have changed: a load,
// or a change of the catalog. The first call starts a watcher that Close stops.
func (v *View) Changed() <-chan struct{} {
	ch := v.notifier.Changed()
	v.watchOnce.Do(func() {
		inner := v.d.inner.Changed() // taken before Changed returns: no change is missed
		go v.watch(inner)
	})
	return ch
}

func (v *View) watch(inner <-chan struct{}) {
	defer close(v.done)
	for {
		select {
		case <-v.stop:
			return
		case <-inner:
			inner = v.d.inner.Changed()
			v.notifier.Notify()
		}
	}
}

// Close stops the watcher Changed started; the catalog is not closed.
func (v *View) Close() error {
	v.closeOnce.Do(func() {
		close(v.stop)
		v.watchOnce.Do(func() { close(v.done) }) // never started: nothing to wait for
	})
	<-v.done
	return nil
}

// metaTools are the definitions of the search tools (and tool_call) for a catalog:
// their descriptions say how many tools there are and from which servers.
func (d *Views) metaTools(tools []tool.Tool) []tool.Tool {
	servers := map[string]bool{}
	for _, t := range tools {
		if t.Server != "" {
			servers[t.Server] = true
		}
	}
	about := fmt.Sprintf("%d tools", len(tools))
	if names := slices.Sorted(maps.Keys(servers)); len(names) > 0 {
		const maxServers = 30
		more := ""
		if len(names) > maxServers {
			more = fmt.Sprintf(" and %d more", len(names)-maxServers)
			names = names[:maxServers]
		}
		if len(names) == 1 && more == "" {
			about += " from the server " + names[0]
		} else {
			about += " from the servers " + strings.Join(names, ", ") + more
		}
	}
	loads := "Found tools are loaded: call them by name from your next step."
	if d.policy.CallTool {
		loads = fmt.Sprintf("Found tools are loaded: call them by name, or through %s.", CallToolName)
	}
	metas := []tool.Tool{
		{
			Name: SearchToolName, OriginalName: SearchToolName,
			Description: fmt.Sprintf("Search the tool catalog (%s) in natural language; most tools are not listed until found. "+
				"Describe the task, e.g. \"create a GitHub issue\" or \"weather forecast for a city\". "+
				"Returns the best matches with their parameters. %s", about, loads),
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"query":{"type":"string","description":"What the tool should do, in a few words."},`+
				`"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"How many tools to return (default %d)."}},"required":["query"]}`, search.MaxLimit, search.DefaultSearchLimit)),
		},
		{
			Name: RegexToolName, OriginalName: RegexToolName,
			Description: fmt.Sprintf("Find tools in the catalog (%s) whose name, description or parameters match a regular expression, "+
				"case-insensitively (RE2 syntax, at most %d characters), e.g. \"github.*issue\" or \"^slack_\". %s", about, search.MaxPatternLen, loads),
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"pattern":{"type":"string","description":"A regular expression."},`+
				`"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"How many tools to return (default %d)."}},"required":["pattern"]}`, search.MaxLimit, search.DefaultRegexLimit)),
		},
	}
	if d.policy.CallTool {
		metas = append(metas, tool.Tool{
			Name: CallToolName, OriginalName: CallToolName,
			Description: fmt.Sprintf("Call any tool of the catalog by its exact name, whether your tool list shows it or not: "+
				"find it first with %s or %s, then pass its name and its arguments.", SearchToolName, RegexToolName),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The tool's exact name, as a search result gives it."},` +
				`"arguments":{"type":"object","description":"The tool's arguments."}},"required":["name"]}`),
		})
	}
	return metas
}

// metaExample shows a search tool's arguments.
func metaExample(name string) string {
	switch name {
	case SearchToolName:
		return `{"query": "create a GitHub issue", "limit": 5}`
	case RegexToolName:
		return `{"pattern": "issue|ticket", "limit": 10}`
	}
	return `{"name": "github_create_issue", "arguments": {"title": "..."}}`
}
