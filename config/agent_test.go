package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAgentSettings(t *testing.T) {
	cfg := mustParse(t, `{
  "mcpServers": {
    "fs": {"command": "fs", "approve": ["write_*", "delete_*"], "sampling": true},
    "all": {"command": "all", "approve": "always"},
    "none": {"command": "none", "approve": "never"},
  },
  "switchboard": {
    "model": {"provider": "Anthropic", "name": "claude-x", "baseURL": "${BASE}/v1",
              "apiKeyEnv": "MY_KEY", "maxTokens": 2048, "temperature": 0.2},
    "agent": {"maxSteps": 4, "parallelTools": 2, "system": "Be terse."},
    "sessions": {"store": "postgres", "dsn": "postgres://sb:${PGPASS}@db/sb", "timeout": "30m"},
  },
}`, map[string]string{"BASE": "http://127.0.0.1:9", "PGPASS": "hunter2"})
	m := cfg.Settings.Model
	if m.Provider != "anthropic" || m.Name != "claude-x" || m.BaseURL != "http://127.0.0.1:9/v1" || m.APIKeyEnv != "MY_KEY" ||
		m.MaxTokens != 2048 || m.Temperature == nil || *m.Temperature != 0.2 {
		t.Errorf("model settings = %+v", m)
	}
	if a := cfg.Settings.Agent; a != (AgentSettings{MaxSteps: 4, ParallelTools: 2, System: "Be terse."}) {
		t.Errorf("agent settings = %+v", a)
	}
	if s := cfg.Settings.Sessions; s.Store != "postgres" || s.DSN != "postgres://sb:hunter2@db/sb" || s.Timeout != 30*time.Minute {
		t.Errorf("session settings = %+v", s)
	}
	// The DSN and its password are secrets: masked wherever the config's secrets are.
	for _, secret := range []string{"postgres://sb:hunter2@db/sb", "hunter2"} {
		if !slices.Contains(cfg.Secrets(), secret) {
			t.Errorf("Secrets() = %q, want it to hold %q", cfg.Secrets(), secret)
		}
	}
	approvals := []struct {
		server, tool string
		want         bool
	}{
		{"fs", "write_file", true},
		{"fs", "delete_dir", true},
		{"fs", "read_file", false},
		{"all", "anything", true},
		{"none", "anything", false},
	}
	for _, a := range approvals {
		if got := cfg.Server(a.server).NeedsApproval(a.tool); got != a.want {
			t.Errorf("%s.NeedsApproval(%q) = %v, want %v", a.server, a.tool, got, a.want)
		}
	}
	if !cfg.Server("fs").Sampling || cfg.Server("all").Sampling {
		t.Errorf("sampling: fs %v, all %v; want true, false", cfg.Server("fs").Sampling, cfg.Server("all").Sampling)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
}

func TestAgentSettingsErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown provider", `"model": {"provider": "gemini"}`,
			`switchboard.model.provider: unknown value "gemini" (want openai, anthropic)`},
		{"key instead of its variable", `"model": {"apiKeyEnv": "sk-abc123"}`,
			`switchboard.model.apiKeyEnv: want the name of an environment variable (the key itself never goes in the config)`},
		{"maxTokens zero", `"model": {"maxTokens": 0}`, `switchboard.model.maxTokens: want a whole number of at least 1`},
		{"maxTokens fraction", `"model": {"maxTokens": 1.5}`, `switchboard.model.maxTokens: want a whole number of at least 1`},
		{"maxTokens string", `"model": {"maxTokens": "100"}`, `switchboard.model.maxTokens: want a number`},
		{"temperature", `"model": {"temperature": 3}`, `switchboard.model.temperature: want a number from 0 to 2`},
		{"maxSteps negative", `"agent": {"maxSteps": -1}`, `switchboard.agent.maxSteps: want a whole number of at least 1`},
		{"parallelTools", `"agent": {"parallelTools": 0}`, `switchboard.agent.parallelTools: want a whole number of at least 1`},
		{"unknown store", `"sessions": {"store": "redis"}`,
			`switchboard.sessions.store: unknown value "redis" (want sqlite, memory, postgres)`},
		{"postgres without dsn", `"sessions": {"store": "postgres"}`,
			`switchboard.sessions: "store": "postgres" needs "dsn" (a PostgreSQL connection string)`},
		{"model not an object", `"model": "gpt"`, `switchboard.model: want an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := parseErrs(t, `{"servers": {"x": {"command": "c"}}, "switchboard": {`+tt.src+`}}`, nil)
			if len(errs) != 1 || !strings.HasSuffix(errs[0], tt.want) || !strings.HasPrefix(errs[0], "mcp.json:1:") {
				t.Errorf("errors = %q, want one at mcp.json:1:… ending %q", errs, tt.want)
			}
		})
	}
	for _, tt := range []struct{ name, approve, want string }{
		{"approve word", `"sometimes"`, `servers.x.approve: want "always", "never" or a list of tool globs`},
		{"approve bad glob", `["[a"]`, `servers.x.approve[0]: bad pattern "[a": syntax error in pattern`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			errs := parseErrs(t, `{"servers": {"x": {"command": "c", "approve": `+tt.approve+`}}}`, nil)
			if len(errs) != 1 || !strings.HasSuffix(errs[0], tt.want) {
				t.Errorf("errors = %q, want one ending %q", errs, tt.want)
			}
		})
	}
}

func TestAgentSettingsUnknownKeyWarns(t *testing.T) {
	cfg := mustParse(t, `{"servers": {"x": {"command": "c"}}, "switchboard": {"model": {"name": "m", "topK": 3}}}`, nil)
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "switchboard.model.topK: unknown setting (ignored)") {
		t.Errorf("warnings = %q", cfg.Warnings)
	}
	if cfg.Settings.Model.Name != "m" {
		t.Errorf("model name = %q, want the known keys read", cfg.Settings.Model.Name)
	}
}
