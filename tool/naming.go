package tool

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Naming is the policy for deriving exposed tool names from (server, original name):
// the hub's catalog and [Union] both follow it. The config's "naming" setting is one
// (Naming is this type).
type Naming string

const (
	// NamingAuto prefixes only names that collide (default).
	NamingAuto Naming = "auto"
	// NamingNever never prefixes; a collision is a config error.
	NamingNever Naming = "never"
	// NamingAlways prefixes every tool as server__tool.
	NamingAlways Naming = "always"
)

// MaxNameLen is the longest exposed tool name. MCP allows 128 characters, but OpenAI and
// Anthropic only accept ^[a-zA-Z0-9_-]{1,64}$, and the catalog must work with both.
const MaxNameLen = 64

// NamePattern is the tool name rule of OpenAI (function.name: "a-z, A-Z, 0-9,
// underscores and dashes, maximum length of 64") and Anthropic (tools[].name:
// ^[a-zA-Z0-9_-]{1,64}$), which every exposed name follows.
var NamePattern = regexp.MustCompile(fmt.Sprintf(`^[a-zA-Z0-9_-]{1,%d}$`, MaxNameLen))

// maxPrefixLen caps the prefix inside a prefixed name so a long server name cannot
// crowd out the tool part entirely; longer prefixes are shortened with a hash.
const maxPrefixLen = 32

// hashLen is the number of hex characters of the SHA-256 used in suffixes.
const hashLen = 8

// Key identifies a tool: the server that owns it and its original name there.
type Key struct{ Server, Tool string }

// NameInput is one tool to name. Prefix is the server's configured prefix ("" = use Server).
type NameInput struct {
	Key
	Prefix string
	// Explicit: the user set Prefix for this server, so it resolves the server's
	// collisions under policy "never" too (where no prefix is ever made up).
	Explicit bool
	// Keep is the name the tool already has in a catalog that clients are using (""
	// for a tool that is new to it). Under policy "auto" the tool keeps that name when
	// it is its plain or its prefixed name, whatever collisions have come or gone
	// since: a newcomer whose name collides with it takes the prefix instead. Under
	// every policy, a tool whose derived name is its Keep wins that name over any
	// other tool that would have it.
	Keep string
	// Rank is the place of the tool's server in the config, from 1 (0: none). Under
	// policy "auto", of the servers that share a plain name and none of which keeps
	// it (Keep), the one of the lowest Rank keeps it and the others are prefixed, so
	// a fresh start names as a config that grew by reloads had named: the servers
	// listed first keep their names. Without ranks (or with equal ones) every tool
	// that shares the name is prefixed.
	Rank int
}

// PlainName is a tool's name when it needs no prefix: its original name, with every
// character outside NamePattern's alphabet replaced and shortened with a hash suffix
// when too long.
func PlainName(original string) string { return sanitize(original, MaxNameLen) }

// sanitize maps any string into the provider-safe alphabet, shortened to max runes with
// a stable hash suffix when too long. A max below 1 means MaxNameLen.
func sanitize(name string, max int) string {
	if max < 1 {
		max = MaxNameLen
	}
	s := clean(name)
	if len(s) <= max { // clean output is ASCII, so bytes == runes
		return s
	}
	// Hash the original input, not the cleaned one, so "a.b…" and "a_b…" stay distinct.
	h := hash8(name)
	if max <= hashLen {
		return h[:max]
	}
	return s[:max-hashLen-1] + "_" + h
}

// clean replaces every rune outside [A-Za-z0-9_-] with one '_'; empty becomes "tool".
func clean(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "tool"
	}
	return b.String()
}

// hash8 is the first 8 hex characters of SHA-256(s): stable across runs and platforms.
func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:hashLen]
}

// withSuffix appends "_"+h to an already clean name, cutting it so the result fits.
func withSuffix(name, h string) string {
	if keep := MaxNameLen - len(h) - 1; len(name) > keep {
		name = name[:keep]
	}
	return name + "_" + h
}

// prefixed is the "prefix__tool" form. When it is too long the prefix stays readable
// and the tool part is cut; the hash covers server and tool so long names of different
// servers (even with equal prefixes) never coincide.
func prefixed(in NameInput) (name string, exact bool) {
	src := in.Prefix
	if src == "" {
		src = in.Server
	}
	p := sanitize(src, maxPrefixLen)
	name = p + "__" + clean(in.Tool)
	if len(name) > MaxNameLen {
		return withSuffix(name, hash8(in.Server+"\x00"+in.Tool)), false
	}
	return name, name == p+"__"+in.Tool
}

// entry is one tool while names are being assigned.
type entry struct {
	in    NameInput
	name  string
	exact bool // name was derived without replacing or cutting anything of the tool name
}

// AssignNames derives exposed names for all tools under the policy.
// Returns map Key → exposed name, or a *CollisionError for policy "never" when two
// servers without a prefix expose the same name (a server's explicit prefix resolves
// its collisions under "never" too). Under "auto" a name several servers share stays
// with the tool that keeps it (Keep), else with the server of the lowest Rank, and
// the others' tools are prefixed. The result depends only on the set of inputs
// (their Keep and Rank included), not their order.
func AssignNames(policy Naming, tools []NameInput) (map[Key]string, error) {
	switch policy {
	case "", NamingAuto, NamingNever, NamingAlways:
	default:
		return nil, fmt.Errorf("unknown naming policy %q (want %q, %q or %q)",
			policy, NamingAuto, NamingNever, NamingAlways)
	}

	// Sort a copy so input order cannot influence anything; a Key given twice is
	// named once (the first after sorting wins, so the choice is still deterministic).
	sorted := append([]NameInput(nil), tools...)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		if a.Prefix != b.Prefix {
			return a.Prefix < b.Prefix
		}
		return a.Keep < b.Keep
	})
	var entries []*entry
	servers := map[string]map[string]bool{} // plain name → servers exposing it
	for i, in := range sorted {
		if i > 0 && sorted[i-1].Key == in.Key {
			continue
		}
		plain := sanitize(in.Tool, MaxNameLen)
		entries = append(entries, &entry{in: in, name: plain, exact: plain == in.Tool})
		if servers[plain] == nil {
			servers[plain] = map[string]bool{}
		}
		servers[plain][in.Server] = true
	}

	// Cross-server collisions on the plain name: auto prefixes every tool involved
	// but those that keep the name they have, and the first server's (firstServers).
	// never prefixes only the tools of servers with an explicit prefix (the user
	// asked for it), and refuses when two or more servers without one are left.
	var first map[string]string
	if policy == "" || policy == NamingAuto {
		first = firstServers(entries, servers)
	}
	bare := map[string][]string{} // colliding plain name → servers without a prefix
	for _, e := range entries {
		switch {
		case policy == NamingAlways:
			e.name, e.exact = prefixed(e.in)
		case policy != NamingNever && e.in.Keep != "" && e.in.Keep == e.name:
			// Keeps its plain name: a newcomer that shares it is prefixed.
		case policy != NamingNever && e.in.Keep != "" && keepsPrefixed(e):
			e.name, e.exact = prefixed(e.in)
		case len(servers[e.name]) < 2:
		case first[e.name] == e.in.Server:
			// The first server in the config keeps a name no one has kept.
		case policy != NamingNever || (e.in.Explicit && e.in.Prefix != ""):
			e.name, e.exact = prefixed(e.in)
		default:
			bare[e.name] = append(bare[e.name], e.in.Server)
		}
	}
	if err := collisions(bare); err != nil {
		return nil, err
	}

	return uniquify(entries), nil
}

// firstServers returns, for each plain name several servers share and no tool keeps
// (Keep), the server that keeps it under "auto": the one of the lowest Rank above 0,
// when no other server has that Rank. Tools that keep their prefixed name are not
// candidates.
func firstServers(entries []*entry, servers map[string]map[string]bool) map[string]string {
	kept := map[string]bool{}
	for _, e := range entries {
		if e.in.Keep != "" && e.in.Keep == e.name {
			kept[e.name] = true
		}
	}
	type best struct {
		server string
		rank   int
		tie    bool
	}
	lowest := map[string]*best{}
	for _, e := range entries {
		if len(servers[e.name]) < 2 || kept[e.name] || e.in.Rank <= 0 || (e.in.Keep != "" && keepsPrefixed(e)) {
			continue
		}
		b := lowest[e.name]
		switch {
		case b == nil:
			lowest[e.name] = &best{server: e.in.Server, rank: e.in.Rank}
		case e.in.Rank < b.rank:
			*b = best{server: e.in.Server, rank: e.in.Rank}
		case e.in.Rank == b.rank && e.in.Server != b.server:
			b.tie = true
		}
	}
	first := make(map[string]string, len(lowest))
	for name, b := range lowest {
		if !b.tie {
			first[name] = b.server
		}
	}
	return first
}

// keepsPrefixed reports whether e's Keep is its prefixed name.
func keepsPrefixed(e *entry) bool {
	name, _ := prefixed(e.in)
	return name == e.in.Keep
}

// CollisionError is naming policy "never" refusing a catalog: tools of the same name
// on servers without a prefix. It is a configuration problem, not a failure of the
// servers.
type CollisionError struct {
	// Groups are the collisions by set of servers, sorted by servers.
	Groups []Collision
}

// Collision is the tools that the same servers all expose under policy "never".
type Collision struct {
	Servers []string // sorted
	Tools   []string // sorted
}

// Involves reports whether in is one of the colliding tools: a server of a group
// exposing one of its names.
func (e *CollisionError) Involves(in NameInput) bool {
	plain := sanitize(in.Tool, MaxNameLen)
	for _, g := range e.Groups {
		if slices.Contains(g.Servers, in.Server) && slices.Contains(g.Tools, plain) {
			return true
		}
	}
	return false
}

// maxListed is how many tool names a collision message names before "…".
const maxListed = 5

// Error is one line, e.g. naming "never": 3 tools collide between "clock" and "clock2"
// (add_duration, convert_time, current_time); set "prefix" on one of them, allow/deny
// the tools, or use naming "auto".
func (e *CollisionError) Error() string {
	var parts []string
	most := 0
	for _, g := range e.Groups {
		n := fmt.Sprintf("%d tools collide", len(g.Tools))
		if len(g.Tools) == 1 {
			n = "1 tool collides"
		}
		listed := g.Tools
		if len(listed) > maxListed {
			listed = append(listed[:maxListed:maxListed], "…")
		}
		parts = append(parts, fmt.Sprintf("%s between %s (%s)", n, andList(g.Servers), strings.Join(listed, ", ")))
		most = max(most, len(g.Servers))
	}
	on := "one of them"
	if most > 2 {
		on = "all but one of them"
	}
	return fmt.Sprintf("naming %q: %s; set %q on %s, allow/deny the tools, or use naming %q",
		NamingNever, strings.Join(parts, "; "), "prefix", on, NamingAuto)
}

// collisions groups the colliding names by the servers that expose them; nil when
// every name has at most one server without a prefix.
func collisions(bare map[string][]string) error {
	groups := map[string]*Collision{}
	for name, servers := range bare {
		if len(servers) < 2 {
			continue
		}
		sort.Strings(servers)
		key := strings.Join(servers, "\x00")
		if groups[key] == nil {
			groups[key] = &Collision{Servers: servers}
		}
		groups[key].Tools = append(groups[key].Tools, name)
	}
	if len(groups) == 0 {
		return nil
	}
	e := &CollisionError{}
	for _, g := range groups {
		sort.Strings(g.Tools)
		e.Groups = append(e.Groups, *g)
	}
	sort.Slice(e.Groups, func(i, j int) bool {
		return strings.Join(e.Groups[i].Servers, "\x00") < strings.Join(e.Groups[j].Servers, "\x00")
	})
	return e
}

// andList is "a" and "b", or "a", "b" and "c".
func andList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// uniquify is the final pass: whatever collisions sanitizing or prefixing left (a.b vs
// a_b, equal prefixes, a prefix that looks like another server's prefixed name), every
// tool ends up with its own name. Per name, the tool that already has it (Keep) wins,
// then the exact derivation, then the first by (server, tool); the others get a hash
// suffix. No tool is ever dropped or shadowed.
func uniquify(entries []*entry) map[Key]string {
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if ak, bk := a.name == a.in.Keep, b.name == b.in.Keep; ak != bk {
			return ak
		}
		if a.exact != b.exact {
			return a.exact
		}
		if a.in.Server != b.in.Server {
			return a.in.Server < b.in.Server
		}
		return a.in.Tool < b.in.Tool
	})
	taken := map[string]bool{}
	var losers []*entry
	for _, e := range entries {
		if taken[e.name] {
			losers = append(losers, e)
		} else {
			taken[e.name] = true
		}
	}
	// Winners claimed their names first, so a suffixed name never displaces one.
	for _, e := range losers {
		seed := e.in.Server + "\x00" + e.in.Tool
		name := withSuffix(e.name, hash8(seed))
		for n := 1; taken[name]; n++ { // a real tool may already carry that exact name
			name = withSuffix(e.name, hash8(fmt.Sprintf("%s\x00%d", seed, n)))
		}
		e.name = name
		taken[name] = true
	}
	out := make(map[Key]string, len(entries))
	for _, e := range entries {
		out[e.in.Key] = e.name
	}
	return out
}
