package config

import (
	"errors"
	"strings"
	"testing"
)

// envOf returns a LookupEnv backed by m.
func envOf(m map[string]string) *Options {
	return &Options{LookupEnv: func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}}
}

// mustParse parses src as "mcp.json" and fails the test on any error.
func mustParse(t *testing.T, src string, env map[string]string) *Config {
	t.Helper()
	cfg, err := Parse([]byte(src), "mcp.json", envOf(env))
	if err != nil {
		t.Fatalf("Parse: unexpected error:\n%v", err)
	}
	return cfg
}

// parseErrs parses src as "mcp.json", expects failure and returns each message.
func parseErrs(t *testing.T, src string, env map[string]string) []string {
	t.Helper()
	cfg, err := Parse([]byte(src), "mcp.json", envOf(env))
	if err == nil {
		t.Fatalf("Parse: want an error, got config %+v", cfg)
	}
	if cfg != nil {
		t.Errorf("Parse: want a nil config along with the error")
	}
	var es Errors
	if !errors.As(err, &es) || len(es) == 0 {
		t.Fatalf("Parse: error %T is not a non-empty Errors", err)
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Error()
	}
	if got := strings.Join(out, "\n"); got != err.Error() {
		t.Errorf("Errors.Error() = %q, want the messages joined by newlines %q", err.Error(), got)
	}
	return out
}

func names(cfg *Config) []string {
	var out []string
	for _, s := range cfg.Servers {
		out = append(out, s.Name)
	}
	return out
}
