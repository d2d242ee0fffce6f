package tool

import (
	"path"
	"slices"
)

// ToolFilter selects which of a server's tools are exposed. Globs use path.Match syntax
// (`*`, `?`, `[...]`) against the server's original tool names. An empty Allow allows
// everything; Deny wins over Allow. A server's "tools" in the config is one
// (config.ToolFilter is this type), and [Filter] applies one to exposed names.
type ToolFilter struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Allows reports whether name passes the filter: no deny glob matches it, and an
// allow glob does (or Allow is empty). A malformed glob matches nothing.
func (f ToolFilter) Allows(name string) bool {
	match := func(glob string) bool { ok, err := path.Match(glob, name); return err == nil && ok }
	return !slices.ContainsFunc(f.Deny, match) && (len(f.Allow) == 0 || slices.ContainsFunc(f.Allow, match))
}
