package config

import (
	"slices"
	"strings"
	"testing"
)

func TestDeferredSettings(t *testing.T) {
	cfg := mustParse(t, `{
  "mcpServers": {
    "gh": {"command": "gh", "pinned": ["create_*"]},
    "clock": {"command": "clock", "pinned": true},
    "fs": {"command": "fs", "pinned": false},
  },
  "switchboard": {
    "deferred": {"mode": "auto:12.5%", "native": true, "pinned": ["fs_read*"]},
    "model": {"name": "m", "contextWindow": 200000, "toolSearch": "Regex"},
    "agent": {"deferred": "always"},
  },
}`, nil)
	d := cfg.Settings.Deferred
	if d.Mode != DeferredAuto || d.Share != 0.125 || !d.Native || !slices.Equal(d.Pinned, []string{"fs_read*"}) || d.String() != "auto:12.5%" {
		t.Errorf("deferred = %+v (%s)", d, d)
	}
	if a := cfg.Settings.Agent.Deferred; a == nil || a.Mode != DeferredAlways || a.String() != "always" {
		t.Errorf("agent's deferred = %+v", a)
	}
	if cfg.Settings.Model.ContextWindow != 200000 || cfg.Settings.Model.ToolSearch != "regex" {
		t.Errorf("model = %+v", cfg.Settings.Model)
	}
	for _, c := range []struct {
		server, original, exposed string
		want                      bool
	}{
		{"gh", "create_issue", "gh_create_issue", true},
		{"gh", "list_issues", "list_issues", false},
		{"clock", "anything", "anything", true},
		{"fs", "read_file", "fs_read_file", true}, // by the global glob on the exposed name
		{"fs", "write_file", "write_file", false},
		{"nope", "x", "x", false},
	} {
		if got := cfg.Pinned(d, c.server, c.original, c.exposed); got != c.want {
			t.Errorf("Pinned(%s, %s, %s) = %v, want %v", c.server, c.original, c.exposed, got, c.want)
		}
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
}

func TestDeferredSettingsErrors(t *testing.T) {
	for _, c := range []struct{ deferred, want string }{
		{`"sometimes"`, `switchboard.deferred: want "auto", "auto:N%", "always" or "never"`},
		{`"auto:150%"`, `want "auto:N%" with N a percentage between 0 and 100`},
		{`"auto:10"`, `want "auto:N%"`},
		{`{"mode": "auto:10%", "threshold": 20}`, `"threshold" and "auto:N%" both say when to defer`},
		{`{"threshold": 0}`, "switchboard.deferred.threshold"},
		{`{"pinned": "x"}`, "switchboard.deferred.pinned"},
		{`3`, "switchboard.deferred: want an object"},
	} {
		errs := parseErrs(t, `{"mcpServers": {}, "switchboard": {"deferred": `+c.deferred+`}}`, nil)
		if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, c.want) }) {
			t.Errorf("deferred %s: errors %q, want one containing %q", c.deferred, errs, c.want)
		}
	}
	for _, s := range []string{"auto", "AUTO", "always", "never", "auto:10%", " auto:0.5% "} {
		if _, err := ParseDeferredMode(s); err != nil {
			t.Errorf("ParseDeferredMode(%q): %v", s, err)
		}
	}
}
