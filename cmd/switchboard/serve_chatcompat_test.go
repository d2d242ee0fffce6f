package main

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// TestServeChatCompletions: switchboard serve answers OpenAI's Chat Completions in
// deferred mode: GET /v1/models lists the config's model, and a completion whose model
// calls a catalog tool by name runs it and answers, keeping no session.
func TestServeChatCompletions(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := chatConfig(t, s, "openai", fake.URL)
	p := startServe(t, s, cfg, "tok", "--store", "memory", "--deferred", "always")
	p.waitHealthy(t)
	if code, body := p.do(t, "GET", "/v1/models", ""); code != 200 || !strings.Contains(body, `"id": "test-model"`) {
		t.Fatalf("GET /v1/models: %d %s", code, body)
	}
	code, body := p.do(t, "POST", "/v1/chat/completions",
		`{"model": "test-model", "messages": [{"role": "user", "content": "call convert_time {\"time\": \"2026-01-02T03:04:05Z\", \"to\": \"Asia/Tokyo\"}"}]}`)
	if code != 200 || !strings.Contains(body, `"content": "convert_time: 2026-01-02T12:04:05+09:00`) || !strings.Contains(body, `"finish_reason": "stop"`) {
		t.Fatalf("chat completion: %d %s", code, body)
	}
	if code, body := p.do(t, "GET", "/v1/sessions", ""); code != 200 || !strings.Contains(body, `"sessions": []`) {
		t.Errorf("GET /v1/sessions: %d %s", code, body)
	}
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}
}
