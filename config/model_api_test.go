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

// "model.maxTokensParam" names the token limit's field for OpenAI's Chat
// Completions: max_completion_tokens or max_tokens, any case; anything else is an
// error that names the values.
func TestModelMaxTokensParam(t *testing.T) {
	cfg := mustParse(t, `{"switchboard": {"model": {"name": "m", "maxTokensParam": "Max_Completion_Tokens"}}}`, nil)
	if cfg.Settings.Model.MaxTokensParam != "max_completion_tokens" {
		t.Errorf("maxTokensParam = %q", cfg.Settings.Model.MaxTokensParam)
	}
	errs := parseErrs(t, `{"switchboard": {"model": {"name": "m", "maxTokensParam": "max_output_tokens"}}}`, nil)
	if len(errs) != 1 || !strings.Contains(errs[0], "switchboard.model.maxTokensParam") || !strings.Contains(errs[0], "want max_completion_tokens, max_tokens") {
		t.Errorf("errors: %q", errs)
	}
}
