package config

import (
	"slices"
	"strings"
	"testing"
)

// TestForwardIdentity: "forwardIdentity": true is taken on an HTTP or SSE server, is
// an error at its place on a stdio one, and false is as absent; an entry's own
// headers of the names Switchboard forwards are dropped with a warning at their place
// (only Switchboard sets them), and EntryOf writes the field back.
func TestForwardIdentity(t *testing.T) {
	cfg := mustParse(t, `{"servers": {
  "notes": {"url": "https://notes.internal/mcp", "forwardIdentity": true,
            "headers": {"X-Switchboard-User": "mallory", "x-switchboard-groups": "admins", "X-Switchboard-Email": "m@x", "X-Team": "a"}},
  "old": {"url": "https://old.internal/sse", "forwardIdentity": true},
  "plain": {"url": "https://plain.internal/mcp", "forwardIdentity": false}
}}`, nil)
	byName := map[string]Server{}
	for _, s := range cfg.Servers {
		byName[s.Name] = s
	}
	if !byName["notes"].ForwardIdentity || !byName["old"].ForwardIdentity || byName["plain"].ForwardIdentity {
		t.Errorf("ForwardIdentity: notes %v, old %v, plain %v; want true, true, false",
			byName["notes"].ForwardIdentity, byName["old"].ForwardIdentity, byName["plain"].ForwardIdentity)
	}
	if h := byName["notes"].Headers; len(h) != 1 || h["X-Team"] != "a" {
		t.Errorf("notes' headers = %v, want X-Team alone", h)
	}
	want := []string{
		`mcp.json:3:25: servers.notes.headers.X-Switchboard-User: dropped: only Switchboard sets X-Switchboard-User, from the person of each call of a server with "forwardIdentity": true`,
		`mcp.json:3:58: servers.notes.headers.x-switchboard-groups: dropped: only Switchboard sets x-switchboard-groups, from the person of each call of a server with "forwardIdentity": true`,
		`mcp.json:3:92: servers.notes.headers.X-Switchboard-Email: dropped: only Switchboard sets X-Switchboard-Email, from the person of each call of a server with "forwardIdentity": true`,
	}
	if !slices.Equal(cfg.Warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(cfg.Warnings, "\n"), strings.Join(want, "\n"))
	}
	if entry := string(EntryOf(byName["notes"])); !strings.Contains(entry, `"forwardIdentity":true`) {
		t.Errorf("EntryOf(notes) = %s, want forwardIdentity", entry)
	}

	errs := parseErrs(t, `{"servers": {"x": {"command": "c", "forwardIdentity": true}}}`, nil)
	if len(errs) != 1 || errs[0] != `mcp.json:1:55: servers.x.forwardIdentity: only an HTTP or SSE server is sent its caller's identity (in headers of its requests); a stdio server has none` {
		t.Errorf("forwardIdentity on stdio: %q", errs)
	}
	errs = parseErrs(t, `{"servers": {"x": {"url": "https://x.internal/mcp", "forwardIdentity": "yes"}}}`, nil)
	if len(errs) != 1 || !strings.Contains(errs[0], "servers.x.forwardIdentity: want a boolean") {
		t.Errorf("forwardIdentity not a boolean: %q", errs)
	}
}
