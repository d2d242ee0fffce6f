package config

import (
	"strings"
	"testing"
)

func TestSearchSettings(t *testing.T) {
	cfg := mustParse(t, `{"servers": {"x": {"command": "c"}}, "switchboard": {"search": {"embeddings": {
  "baseURL": "${BASE}/v1", "model": "nomic-embed-text", "apiKeyEnv": "EMBED_KEY", "weight": 0.3}}}}`,
		map[string]string{"BASE": "http://127.0.0.1:11434"})
	e := cfg.Settings.Search.Embeddings
	if e == nil || *e != (EmbeddingsSettings{BaseURL: "http://127.0.0.1:11434/v1", Model: "nomic-embed-text", APIKeyEnv: "EMBED_KEY", Weight: 0.3}) {
		t.Errorf("embeddings settings = %+v", e)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
	// Without the setting, search is lexical: no embeddings.
	if cfg := mustParse(t, `{"servers": {"x": {"command": "c"}}}`, nil); cfg.Settings.Search.Embeddings != nil {
		t.Errorf("no search setting gives embeddings %+v", cfg.Settings.Search.Embeddings)
	}
	// Only the model is required.
	cfg = mustParse(t, `{"servers": {"x": {"command": "c"}}, "switchboard": {"search": {"embeddings": {"model": "m"}}}}`, nil)
	if e := cfg.Settings.Search.Embeddings; e == nil || *e != (EmbeddingsSettings{Model: "m"}) {
		t.Errorf("embeddings settings = %+v", e)
	}
}

func TestSearchSettingsErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"no model", `"search": {"embeddings": {"baseURL": "http://h/v1"}}`,
			`switchboard.search.embeddings: needs "model", the embedding model's name (e.g. "text-embedding-3-small")`},
		{"not an object", `"search": {"embeddings": "text-embedding-3-small"}`, `switchboard.search.embeddings: want an object`},
		{"search not an object", `"search": true`, `switchboard.search: want an object`},
		{"weight zero", `"search": {"embeddings": {"model": "m", "weight": 0}}`,
			`switchboard.search.embeddings.weight: want a number above 0 and at most 1 (the embeddings' share of the score)`},
		{"weight over one", `"search": {"embeddings": {"model": "m", "weight": 1.5}}`,
			`switchboard.search.embeddings.weight: want a number above 0 and at most 1 (the embeddings' share of the score)`},
		{"weight a string", `"search": {"embeddings": {"model": "m", "weight": "half"}}`, `switchboard.search.embeddings.weight: want a number`},
		{"key instead of its variable", `"search": {"embeddings": {"model": "m", "apiKeyEnv": "sk-abc123"}}`,
			`switchboard.search.embeddings.apiKeyEnv: want the name of an environment variable (the key itself never goes in the config)`},
		{"base URL without scheme", `"search": {"embeddings": {"model": "m", "baseURL": "localhost:11434/v1"}}`,
			`switchboard.search.embeddings.baseURL: want an http(s) URL such as "http://localhost:11434/v1"`},
		{"model a number", `"search": {"embeddings": {"model": 3}}`, `switchboard.search.embeddings.model: want a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := parseErrs(t, `{"servers": {"x": {"command": "c"}}, "switchboard": {`+tt.src+`}}`, nil)
			found := false
			for _, e := range errs {
				found = found || (strings.HasSuffix(e, tt.want) && strings.HasPrefix(e, "mcp.json:1:"))
			}
			if !found {
				t.Errorf("errors = %q, want one at mcp.json:1:… ending %q", errs, tt.want)
			}
		})
	}
}

func TestSearchSettingsUnknownKeyWarns(t *testing.T) {
	cfg := mustParse(t, `{"servers": {"x": {"command": "c"}}, "switchboard": {"search": {"engine": "x", "embeddings": {"model": "m", "dims": 3}}}}`, nil)
	want := []string{"switchboard.search.engine: unknown setting (ignored)", "switchboard.search.embeddings.dims: unknown setting (ignored)"}
	if len(cfg.Warnings) != len(want) {
		t.Fatalf("warnings = %q, want %q", cfg.Warnings, want)
	}
	for i, w := range want {
		if !strings.Contains(cfg.Warnings[i], w) {
			t.Errorf("warning %d = %q, want it to say %q", i, cfg.Warnings[i], w)
		}
	}
	if e := cfg.Settings.Search.Embeddings; e == nil || e.Model != "m" {
		t.Errorf("embeddings = %+v, want the known keys read", e)
	}
}
