package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/internal/editdist"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// catalog is an immutable snapshot: routing reads it without locks.
type catalog struct {
	tools  []tool.Tool
	routes map[string]route
	// startEnd: the catalog was built during the start-up, which ends then at the
	// latest; its names are not yet kept (see keptNames). Zero after the start-up.
	startEnd time.Time
}

type route struct {
	sup      *upstream.Supervisor
	original string
	index    int // of the tool in catalog.tools
}

// rebuild derives the catalog from every server's current tools and swaps it in.
// Tools of servers that are reconnecting stay listed (calls wait for them); tools of
// failed, disabled and closed servers are dropped.
func (h *Hub) rebuild() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	type entry struct {
		sup *upstream.Supervisor
		t   *mcp.Tool
	}
	entries := map[tool.Key]entry{}
	var inputs []tool.NameInput
	now := time.Now()
	kept := h.keptNames(h.cat.Load(), now)
	// The start-up's end is read before the servers' lists: a server that becomes
	// ready between the two reads would otherwise count as served (not waited for)
	// in a catalog built without its tools, and the next rebuild, finding the
	// start-up over, would prefix its tools as a newcomer's (one server ready a
	// millisecond after another took the shared names).
	startEnd := h.startEnd(now)
	var live []liveServer
	seen := make(map[string]upstream.State, len(h.order))
	defer func() { h.seen = seen }() // also when the names collide: the states were read
	for rank, name := range h.order {
		s := h.sups[name]
		l := h.lists(s)
		seen[name] = l.State
		switch l.State {
		case upstream.Ready, upstream.Reconnecting:
		default:
			continue
		}
		live = append(live, liveServer{s, l, rank + 1})
		cfg := s.Config()
		for _, t := range l.Tools {
			if !cfg.Tools.Allows(t.Name) {
				continue
			}
			k := tool.Key{Server: name, Tool: t.Name}
			entries[k] = entry{s, t}
			inputs = append(inputs, tool.NameInput{Key: k, Prefix: cfg.Prefix, Explicit: cfg.Prefix != "", Keep: kept[k], Rank: rank + 1})
		}
	}
	names, err := tool.AssignNames(h.naming, inputs)
	var collided *tool.CollisionError
	if errors.As(err, &collided) {
		inputs = h.keepExposed(inputs, collided)
		names, err = tool.AssignNames(h.naming, inputs)
	}
	if err == nil {
		var x *extras
		if x, err = h.buildExtras(live, kept != nil); err == nil {
			if old := h.ext.Swap(x); !sameExtras(old, x) {
				defer h.notifier.Notify()
			}
		}
	}
	if err != nil {
		return err
	}
	h.warnPrefixed(inputs, names, kept)
	cat := &catalog{routes: make(map[string]route, len(names)), tools: make([]tool.Tool, 0, len(names)), startEnd: startEnd}
	converted := make(map[*mcp.Tool]tool.Tool, len(inputs))
	for _, in := range inputs {
		e, exposed := entries[in.Key], names[in.Key]
		t, ok := h.converted[e.t]
		if !ok {
			t = fromMCP(in.Server, e.t)
		}
		converted[e.t] = t
		t.Name = exposed
		cat.routes[exposed] = route{sup: e.sup, original: e.t.Name, index: len(cat.tools)}
		cat.tools = append(cat.tools, t)
	}
	h.converted = converted
	if cat.startEnd.IsZero() {
		h.pin(cat)
	}
	old := h.cat.Swap(cat)
	if !sameTools(old.tools, cat.tools) {
		h.notifier.Notify()
	}
	if collided != nil {
		return collided
	}
	return nil
}

// keepExposed leaves out of inputs the tools that collide under naming "never",
// except those the catalog already exposes: a server that joins later (a slow start,
// a reload, a new tool of a list_changed) takes no name from a server already
// serving it, and the rest of the catalog still follows its servers. Without it a
// collision froze the catalog whole, its routes still leading to servers a reload
// had stopped. The collision is still the rebuild's error: Start fails with it, and
// a running hub logs it.
func (h *Hub) keepExposed(inputs []tool.NameInput, ce *tool.CollisionError) []tool.NameInput {
	exposed := map[tool.Key]bool{}
	for _, t := range h.cat.Load().tools {
		exposed[tool.Key{Server: t.Server, Tool: t.OriginalName}] = true
	}
	kept := make([]tool.NameInput, 0, len(inputs))
	for _, in := range inputs {
		if exposed[in.Key] || !ce.Involves(in) {
			kept = append(kept, in)
		}
	}
	return kept
}

// liveServer is a server whose offer is in the catalog, with its lists as read
// once for a rebuild.
type liveServer struct {
	sup   *upstream.Supervisor
	lists upstream.Lists
	rank  int // its place in the config, from 1 (tool.NameInput.Rank)
}

func sameExtras(a, b *extras) bool {
	return reflect.DeepEqual(a.prompts, b.prompts) && reflect.DeepEqual(a.resources, b.resources) &&
		reflect.DeepEqual(a.templates, b.templates)
}

func sameTools(a, b []tool.Tool) bool {
	return reflect.DeepEqual(a, b)
}

// fromMCP converts an upstream tool into a catalog entry with a clean object schema;
// the caller sets the exposed name.
func fromMCP(server string, t *mcp.Tool) tool.Tool {
	return tool.Tool{
		OriginalName: t.Name,
		Server:       server,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  tool.CleanSchema(t.InputSchema),
		OutputSchema: marshalOrNil(t.OutputSchema),
		Annotations:  t.Annotations,
	}
}

func marshalOrNil(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}

// UnknownToolError is a name that no tool of the catalog has, with the names closest
// to it. Every place that reports an unknown tool builds it here, so the wording is one.
type UnknownToolError struct {
	Name        string
	Suggestions []string // at most 3, closest first
}

func (e *UnknownToolError) Error() string {
	msg := fmt.Sprintf("unknown tool %q", e.Name)
	if len(e.Suggestions) > 0 {
		msg += " (did you mean " + strings.Join(e.Suggestions, ", ") + "?)"
	}
	return msg
}

// UnknownTool describes name as unknown to the current catalog.
func (h *Hub) UnknownTool(name string) *UnknownToolError {
	return &UnknownToolError{Name: name, Suggestions: Suggest(name, h.Tools(), 3)}
}

// unknownTo is UnknownTool for the caller of ctx: its suggestions only among the
// tools its access reaches (package access), so that a refusal names no other.
func (h *Hub) unknownTo(ctx context.Context, name string) *UnknownToolError {
	return &UnknownToolError{Name: name, Suggestions: Suggest(name, access.FromContext(ctx).Tools(h.Tools()), 3)}
}

// Suggest returns up to n exposed names closest to name (by edit distance, then by a
// shared substring), for "did you mean" messages.
func Suggest(name string, tools []tool.Tool, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	lname := strings.ToLower(name)
	for _, t := range tools {
		d := editdist.Distance(lname, strings.ToLower(t.Name))
		if strings.Contains(strings.ToLower(t.Name), lname) || strings.Contains(lname, strings.ToLower(t.OriginalName)) {
			d = min(d, 1)
		}
		if d <= max(2, len(name)/3) {
			cs = append(cs, cand{t.Name, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}
