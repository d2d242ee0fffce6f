package config

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestExpansion(t *testing.T) {
	const secret = "s3cr3t-value"
	env := map[string]string{"VAR": secret, "EMPTY": "", "SWITCHBOARD_INPUT_KEY": "input-value"}

	forms := []struct {
		name    string
		in      string
		want    string
		missing string // variable reported as not set, if any
	}{
		{"plain", "${VAR}", secret, ""},
		{"default unused", "${VAR:-dflt}", secret, ""},
		{"default when unset", "${UNSET:-dflt}", "dflt", ""},
		{"default when empty", "${EMPTY:-dflt}", "dflt", ""},
		{"empty default", "${UNSET:-}", "", ""},
		{"set but empty", "${EMPTY}", "", ""},
		{"env form", "${env:VAR}", secret, ""},
		{"env form with default", "${env:UNSET:-d}", "d", ""},
		{"missing", "${UNSET}", "", "UNSET"},
		{"missing env form", "${env:UNSET}", "", "UNSET"},
		{"nested default", "${UNSET:-${VAR}}", secret, ""},
		{"twice", "${VAR}-${VAR}", secret + "-" + secret, ""},
		{"lone dollar", "$VAR a$b$", "$VAR a$b$", ""},
		{"double dollar not special", "$${VAR}", "$" + secret, ""},
		{"unterminated", "${VAR", "${VAR", ""},
		{"unterminated after one", "${VAR}${VAR", secret + "${VAR", ""},
		{"not a name", "${not a name}", "${not a name}", ""},
		{"empty braces", "${}", "${}", ""},
		{"input from its variable", "${input:key}", "input-value", ""},
	}
	type field struct {
		name string
		path string
		pre  string // keeps the value valid when the reference expands to ""
		get  func(*Config) string
	}
	fields := []field{
		{"command", "servers.s.command", "x", func(c *Config) string { return c.Server("s").Command }},
		{"args", "servers.s.args[1]", "x", func(c *Config) string { return c.Server("s").Args[1] }},
		{"env", "servers.s.env.K", "x", func(c *Config) string { return c.Server("s").Env["K"] }},
		{"cwd", "servers.s.cwd", "x", func(c *Config) string { return c.Server("s").Cwd }},
		{"url", "servers.h.url", "https://h.example/", func(c *Config) string { return c.Server("h").URL }},
		{"headers", "servers.h.headers.X-Key", "x", func(c *Config) string { return c.Server("h").Headers["X-Key"] }},
	}
	for _, f := range fields {
		for _, form := range forms {
			t.Run(f.name+"/"+form.name, func(t *testing.T) {
				s := map[string]any{"command": "cmd", "args": []string{"a", "b"}, "env": map[string]string{}, "cwd": "/"}
				h := map[string]any{"url": "https://h.example/", "headers": map[string]string{}}
				v := f.pre + form.in
				switch f.name {
				case "args":
					s["args"] = []string{"a", v}
				case "env":
					s["env"] = map[string]string{"K": v}
				case "headers":
					h["headers"] = map[string]string{"X-Key": v}
				case "url":
					h["url"] = v
				default:
					s[f.name] = v
				}
				src, _ := json.Marshal(map[string]any{"servers": map[string]any{"s": s, "h": h}})
				cfg := mustParse(t, string(src), env)
				if got, want := f.get(cfg), f.pre+form.want; got != want {
					t.Errorf("got %q, want %q", got, want)
				}
				var want []string
				if form.missing != "" {
					want = append(want, f.path+": ${"+form.missing+`} is not set (using "")`)
				}
				if !slices.Equal(cfg.Warnings, want) {
					t.Errorf("Warnings = %q, want %q", cfg.Warnings, want)
				}
				for _, w := range cfg.Warnings {
					if strings.Contains(w, secret) {
						t.Errorf("warning %q leaks the value", w)
					}
				}
			})
		}
	}
}

func TestExpansionOnlyInValueFields(t *testing.T) {
	cfg := mustParse(t, `{"servers": {"${VAR}": {
		"command": "c", "description": "${VAR}", "env": {"${VAR}": "v"}, "tools": {"allow": ["${VAR}"]}
	}}}`, map[string]string{"VAR": "expanded"})
	s := cfg.Server("${VAR}")
	if s == nil {
		t.Fatalf("server name was expanded: %q", names(cfg))
	}
	if s.Description != "${VAR}" || s.Env["${VAR}"] != "v" || s.Tools.Allow[0] != "${VAR}" {
		t.Errorf("server = %+v, want no expansion outside value fields", s)
	}
}

func TestMissingVariableWarnedOncePerField(t *testing.T) {
	cfg := mustParse(t, `{"servers": {"gh": {"command": "gh", "env": {"GITHUB_TOKEN": "${GITHUB_PAT}${GITHUB_PAT}", "B": "${GITHUB_PAT}"}}}}`, nil)
	want := []string{
		`servers.gh.env.GITHUB_TOKEN: ${GITHUB_PAT} is not set (using "")`,
		`servers.gh.env.B: ${GITHUB_PAT} is not set (using "")`,
	}
	if !slices.Equal(cfg.Warnings, want) {
		t.Errorf("Warnings = %q, want %q", cfg.Warnings, want)
	}
}

func TestExpansionUsesOSEnvByDefault(t *testing.T) {
	t.Setenv("SWITCHBOARD_TEST_VAR", "from-os")
	for _, opts := range []*Options{nil, {}} {
		cfg, err := Parse([]byte(`{"a": {"command": "${SWITCHBOARD_TEST_VAR}"}}`), "x", opts)
		if err != nil || cfg.Server("a").Command != "from-os" {
			t.Errorf("opts %+v: cfg, err = %+v, %v", opts, cfg, err)
		}
	}
}

func TestSecretName(t *testing.T) {
	tests := []struct {
		name   string
		secret bool
	}{
		{"GITHUB_TOKEN", true}, {"OPENAI_API_KEY", true}, {"APIKEY", true}, {"DB_PASSWORD", true},
		{"AWS_SECRET_ACCESS_KEY", true}, {"GH_PAT", true}, {"BASIC_AUTH", true}, {"ssh-key", true},
		{"HOME", false}, {"PWD", false}, {"PATH", false}, {"MONKEY", false}, {"AUTHOR", false},
		{"KEYBOARD", false}, {"WORKSPACE", false}, {"PATCH_DIR", false},
	}
	for _, tt := range tests {
		if got := secretName(tt.name); got != tt.secret {
			t.Errorf("secretName(%q) = %v, want %v", tt.name, got, tt.secret)
		}
	}
}
