package config

import (
	"slices"
	"testing"
)

// TestDeferredExplicit: a config that gives "deferred" in any form is told from one
// that leaves it out, whose zero value also reads as auto (the gateway defers only
// when asked; the agent takes the zero value as auto).
func TestDeferredExplicit(t *testing.T) {
	for _, c := range []struct {
		name     string
		deferred string // the value of "switchboard.deferred"; "" leaves it out
		want     DeferredSettings
	}{
		{"absent", "", DeferredSettings{}},
		{"auto", `"auto"`, DeferredSettings{Mode: DeferredAuto, Explicit: true}},
		{"share", `"auto:10%"`, DeferredSettings{Mode: DeferredAuto, Share: 0.10, Explicit: true}},
		{"always", `"always"`, DeferredSettings{Mode: DeferredAlways, Explicit: true}},
		{"never", `"never"`, DeferredSettings{Mode: DeferredNever, Explicit: true}},
		{"empty object", `{}`, DeferredSettings{Explicit: true}},
		{"object", `{"mode": "always", "pinned": ["clock_*"]}`, DeferredSettings{Mode: DeferredAlways, Pinned: []string{"clock_*"}, Explicit: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			settings := `{}`
			if c.deferred != "" {
				settings = `{"deferred": ` + c.deferred + `}`
			}
			cfg := mustParse(t, `{"mcpServers": {"clock": {"command": "clock", "pinned": ["now"]}}, "switchboard": `+settings+`}`, nil)
			got := cfg.Settings.Deferred
			if got.Mode != c.want.Mode || got.Share != c.want.Share || got.Explicit != c.want.Explicit || !slices.Equal(got.Pinned, c.want.Pinned) {
				t.Errorf("deferred %s: got %+v, want %+v", c.deferred, got, c.want)
			}
			if len(cfg.Warnings) != 0 {
				t.Errorf("warnings: %q", cfg.Warnings)
			}
		})
	}
	// The command line's reading of a mode is not the config's: it marks nothing.
	if d, err := ParseDeferredMode("always"); err != nil || d.Explicit {
		t.Errorf("ParseDeferredMode(always) = %+v, %v; want no Explicit mark", d, err)
	}
}
