package config

import (
	"strings"
	"testing"
)

// "model.api" picks OpenAI's API: "chat" or "responses", any case; anything else
// is an error that names the values.
func TestModelAPI(t *testing.T) {
	cfg := mustParse(t, `{"switchboard": {"model": {"provider": "openai", "name": "gpt-5.4", "api": "Responses"}}}`, nil)
	if cfg.Settings.Model.API != "responses" {
		t.Errorf("api = %q", cfg.Settings.Model.API)
	}
	if cfg := mustParse(t, `{"switchboard": {"model": {"name": "m"}}}`, nil); cfg.Settings.Model.API != "" {
		t.Errorf("default api = %q", cfg.Settings.Model.API)
	}
	errs := parseErrs(t, `{"switchboard": {"model": {"name": "m", "api": "completions"}}}`, nil)
	if len(errs) != 1 || !strings.Contains(errs[0], "switchboard.model.api") || !strings.Contains(errs[0], `unknown value "completions" (want chat, responses)`) {
		t.Errorf("errors: %q", errs)
	}
}
