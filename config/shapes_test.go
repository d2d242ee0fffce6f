package config

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

func TestShapes(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		shape    string
		servers  []string
		skipped  []string
		warnings []string
	}{
		{
			name:    "mcpServers",
			src:     `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-fs"]}, "web": {"url": "https://example.com/mcp"}}}`,
			shape:   "mcpServers",
			servers: []string{"fs", "web"},
		},
		{
			name: "claude desktop extra keys",
			src: `{"globalShortcut": "Ctrl+Space", "mcpServers": {"fs": {"command": "npx"}},
				"preferences": {"x": 1}}`,
			shape:    "mcpServers",
			servers:  []string{"fs"},
			warnings: []string{"mcp.json:1:2: globalShortcut: unknown top-level key (ignored)", "mcp.json:2:5: preferences: unknown top-level key (ignored)"},
		},
		{
			name: "vscode servers with inputs",
			src: `{"inputs": [{"type": "promptString", "id": "key", "password": true, "default": "dflt"}],
				"servers": {"gh": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${input:key}"}}}}`,
			shape:   "servers",
			servers: []string{"gh"},
		},
		{
			name:    "vscode servers with empty inputs",
			src:     `{"servers": {"gh": {"command": "gh-mcp"}}, "inputs": []}`,
			shape:   "servers",
			servers: []string{"gh"},
		},
		{
			name:    "legacy services",
			src:     `{"services": {"old": {"command": "old-server"}, "off": {"command": "x", "enabled": false}}}`,
			shape:   "services",
			servers: []string{"old", "off"},
		},
		{
			name:    "bare map",
			src:     `{"$schema": "https://example.com/schema.json", "one": {"command": "a"}, "two": {"url": "http://localhost:3000/sse"}, "switchboard": {"naming": "always"}}`,
			shape:   "bare",
			servers: []string{"one", "two"},
		},
		{
			name:    "merged groups keep file order",
			src:     `{"servers": {"b": {"command": "b"}}, "mcpServers": {"a": {"command": "a"}}, "services": {"c": {"command": "c"}}}`,
			shape:   "servers",
			servers: []string{"b", "a", "c"},
		},
		{
			name:    "schema ignored silently",
			src:     `{"$schema": "x", "mcpServers": {"a": {"command": "a"}}}`,
			shape:   "mcpServers",
			servers: []string{"a"},
		},
		{
			name:     "empty object",
			src:      `{}`,
			shape:    "bare",
			warnings: []string{"no servers configured"},
		},
		{
			name:     "empty group",
			src:      `{"mcpServers": {}}`,
			shape:    "mcpServers",
			warnings: []string{"no servers configured"},
		},
		{
			name:     "null group",
			src:      `{"mcpServers": null}`,
			shape:    "mcpServers",
			warnings: []string{"no servers configured"},
		},
		{
			name:    "switchboard entries skipped",
			src:     `{"mcpServers": {"switchboard": {"command": "switchboard"}, "a": {"command": "a"}, "Switchboard-dev": {"anything": 1}}}`,
			shape:   "mcpServers",
			servers: []string{"a"},
			skipped: []string{"switchboard", "Switchboard-dev"},
		},
		{
			name: "jsonc comments and trailing commas",
			src: `// top comment
{
	/* block */
	"mcpServers": {
		"z": {"command": "z", "args": ["1", "2",],}, // trailing
		"a": {
			"command": "a", // why not
		},
		"m": {"url": "https://m.example/mcp"},
	},
}
`,
			shape:   "mcpServers",
			servers: []string{"z", "a", "m"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, tt.src, nil)
			if cfg.Shape != tt.shape {
				t.Errorf("Shape = %q, want %q", cfg.Shape, tt.shape)
			}
			if got := names(cfg); !slices.Equal(got, tt.servers) {
				t.Errorf("servers = %q, want %q", got, tt.servers)
			}
			if !slices.Equal(cfg.Skipped, tt.skipped) {
				t.Errorf("Skipped = %q, want %q", cfg.Skipped, tt.skipped)
			}
			if !slices.Equal(cfg.Warnings, tt.warnings) {
				t.Errorf("Warnings = %q, want %q", cfg.Warnings, tt.warnings)
			}
			if cfg.Source != "mcp.json" {
				t.Errorf("Source = %q", cfg.Source)
			}
		})
	}
}

func TestLegacyServicesDefaults(t *testing.T) {
	cfg := mustParse(t, `{"services": {"old": {"command": "old-server"}, "off": {"command": "x", "enabled": false}}}`, nil)
	old := cfg.Server("old")
	if old.Transport != Stdio || old.Disabled || !old.InheritEnv {
		t.Errorf("old = %+v, want stdio, enabled, inheriting env", old)
	}
	if off := cfg.Server("off"); !off.Disabled {
		t.Errorf("off.Disabled = false, want true")
	}
	if got := cfg.Enabled(); len(got) != 1 || got[0].Name != "old" {
		t.Errorf("Enabled() = %+v, want just old", got)
	}
	if cfg.Server("nope") != nil {
		t.Errorf("Server(nope) != nil")
	}
}

func TestSettings(t *testing.T) {
	cfg := mustParse(t, `{
		"switchboard": {"naming": "Never", "heartbeat": "15s", "retryFailed": 0, "future": {"a": [1, 2,]}},
		"mcpServers": {"a": {"command": "a"}}
	}`, nil)
	st := cfg.Settings
	if st.Naming != NamingNever || st.Heartbeat != 15*time.Second || st.RetryFailed != -1 {
		t.Errorf("Settings = %+v", st)
	}
	if got := string(st.Extra["future"]); got != `{"a":[1,2]}` {
		t.Errorf("Extra[future] = %s", got)
	}
	want := []string{"mcp.json:2:86: switchboard.future: unknown setting (ignored)"}
	if !slices.Equal(cfg.Warnings, want) {
		t.Errorf("Warnings = %q, want %q", cfg.Warnings, want)
	}

	// Unset naming stays empty: callers apply the default.
	cfg = mustParse(t, `{"switchboard": {}, "a": {"command": "a"}}`, nil)
	if cfg.Settings.Naming != "" || cfg.Settings.Extra != nil {
		t.Errorf("Settings = %+v, want zero", cfg.Settings)
	}
	for _, n := range []string{"auto", "never", "always", ""} {
		cfg = mustParse(t, `{"switchboard": {"naming": "`+n+`"}}`, nil)
		if string(cfg.Settings.Naming) != n {
			t.Errorf("naming %q: got %q", n, cfg.Settings.Naming)
		}
	}
}

func TestOrderPreservedAcrossManyServers(t *testing.T) {
	src := `{"mcpServers": {`
	var want []string
	for i, n := range []string{"zeta", "alpha", "mu", "beta", "omega", "delta", "kappa"} {
		if i > 0 {
			src += ","
		}
		src += `"` + n + `": {"command": "x"}`
		want = append(want, n)
	}
	cfg := mustParse(t, src+"}}", nil)
	if got := names(cfg); !slices.Equal(got, want) {
		t.Errorf("order = %q, want %q", got, want)
	}
}

func TestFromValue(t *testing.T) {
	type entry struct {
		Command string            `json:"command,omitempty"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
		URL     string            `json:"url,omitempty"`
		Timeout string            `json:"timeout,omitempty"`
	}
	type file struct {
		Servers map[string]entry `json:"mcpServers"`
	}
	env := envOf(map[string]string{"TOKEN": "t0k"})

	t.Run("struct", func(t *testing.T) {
		cfg, err := FromValue(file{Servers: map[string]entry{
			"b": {Command: "b", Env: map[string]string{"T": "${TOKEN}"}, Timeout: "5s"},
			"a": {URL: "https://a.example/sse"},
		}}, env)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Source != "<value>" || cfg.Shape != "mcpServers" {
			t.Errorf("Source, Shape = %q, %q", cfg.Source, cfg.Shape)
		}
		// encoding/json sorts map keys.
		if got := names(cfg); !slices.Equal(got, []string{"a", "b"}) {
			t.Errorf("servers = %q", got)
		}
		b := cfg.Server("b")
		if b.Env["T"] != "t0k" || b.InitTimeout != 5*time.Second || b.Args != nil {
			t.Errorf("b = %+v", b)
		}
		if a := cfg.Server("a"); a.Transport != SSE {
			t.Errorf("a.Transport = %q, want sse", a.Transport)
		}
	})
	t.Run("map", func(t *testing.T) {
		cfg, err := FromValue(map[string]any{
			"gh":          map[string]any{"command": "gh", "args": []any{"mcp"}},
			"switchboard": map[string]any{"naming": "auto"},
		}, env)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Shape != "bare" || cfg.Settings.Naming != NamingAuto || cfg.Server("gh").Args[0] != "mcp" {
			t.Errorf("cfg = %+v", cfg)
		}
	})
	t.Run("errors have paths but no positions", func(t *testing.T) {
		_, err := FromValue(map[string]any{"servers": map[string]any{"x": map[string]any{"args": []any{1}}}}, env)
		want := "<value>: servers.x.args[0]: want a string\n<value>: servers.x: \"command\" or \"url\" is required"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v, want %q", err, want)
		}
	})
	t.Run("not encodable", func(t *testing.T) {
		_, err := FromValue(map[string]any{"x": make(chan int)}, env)
		if err == nil {
			t.Fatal("want an error")
		}
	})
	t.Run("not an object", func(t *testing.T) {
		_, err := FromValue([]string{"a"}, env)
		if err == nil || err.Error() != "<value>: top level must be an object" {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("round trip of a parsed server", func(t *testing.T) {
		// Server's own JSON form is not a config entry (durations are nanoseconds),
		// but a raw message is passed through as is.
		cfg, err := FromValue(json.RawMessage(`{"a": {"command": "a", "timeout": 3}}`), env)
		if err != nil || cfg.Server("a").InitTimeout != 3*time.Second {
			t.Errorf("cfg, err = %+v, %v", cfg, err)
		}
	})
}

// TestDidYouMean: a top-level key one edit from a known one (or equal but for case) is
// an error that names the known key, in every shape, instead of being taken for a
// server name (bare) or ignored (the others).
func TestDidYouMean(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"lower case", `{"mcpservers": {"a": {"command": "a"}}}`, `mcp.json:1:2: mcpservers: unknown top-level key: did you mean "mcpServers"?`},
		{"missing letter", `{"mcpServer": {"a": {"command": "a"}}}`, `mcp.json:1:2: mcpServer: unknown top-level key: did you mean "mcpServers"?`},
		{"underscore", `{"mcp_servers": {"a": {"command": "a"}}}`, `mcp.json:1:2: mcp_servers: unknown top-level key: did you mean "mcpServers"?`},
		{"upper case", `{"SERVERS": {"a": {"command": "a"}}}`, `mcp.json:1:2: SERVERS: unknown top-level key: did you mean "servers"?`},
		{"services", `{"service": {"a": {"command": "a"}}}`, `mcp.json:1:2: service: unknown top-level key: did you mean "services"?`},
		{"next to mcpServers", `{"mcpServers": {"a": {"command": "a"}}, "switchbaord": {"naming": "never"}}`,
			`mcp.json:1:41: switchbaord: unknown top-level key: did you mean "switchboard"?`},
		{"inputs in the VS Code shape", `{"servers": {"a": {"command": "a"}}, "input": []}`,
			`mcp.json:1:38: input: unknown top-level key: did you mean "inputs"?`},
		{"bare map settings typo", `{"a": {"command": "a"}, "Switchboard": {"naming": "never"}}`,
			`mcp.json:1:25: Switchboard: unknown top-level key: did you mean "switchboard"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseErrs(t, tt.src, nil); !slices.Equal(got, []string{tt.want}) {
				t.Errorf("errors = %q, want %q", got, tt.want)
			}
		})
	}
	// A bare map's server may be called like a known key when it is a server entry.
	cfg := mustParse(t, `{"server": {"command": "s"}, "service": {"url": "https://h"}}`, nil)
	if got := names(cfg); !slices.Equal(got, []string{"server", "service"}) || cfg.Shape != "bare" {
		t.Errorf("servers = %q, shape %q", got, cfg.Shape)
	}
	// Far from every known key: still a warning only, next to a servers key.
	cfg = mustParse(t, `{"mcpServers": {"a": {"command": "a"}}, "globalShortcut": ""}`, nil)
	if !slices.Equal(cfg.Warnings, []string{"mcp.json:1:41: globalShortcut: unknown top-level key (ignored)"}) {
		t.Errorf("warnings = %q", cfg.Warnings)
	}
}

func TestOneEdit(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"abc", "abc", true}, {"abc", "abd", true}, {"abc", "ab", true}, {"abc", "xabc", true}, {"abc", "acb", true}, {"abc", "cab", false},
		{"abc", "a", false}, {"", "a", true}, {"mcpservers", "mcp_servers", true}, {"servers", "services", false},
	} {
		if got := oneEdit(tt.a, tt.b); got != tt.want {
			t.Errorf("oneEdit(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
