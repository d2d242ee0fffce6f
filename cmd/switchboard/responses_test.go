package main

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// TestChatResponsesNativeSearch: "model.api": "responses" makes chat speak OpenAI's
// Responses API, and with "deferred": {"mode": "always", "native": true} the tools go
// deferred behind OpenAI's tool_search, which the fake runs server side: the model
// finds current_time, the agent runs it, and the answer comes back.
func TestChatResponsesNativeSearch(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"clock": `+demoEntry(t, "clock")+`},
  "switchboard": {
    "model": {"provider": "openai", "name": "gpt-5.4", "api": "responses", "baseURL": `+jsonString(fake.URL)+`},
    "deferred": {"mode": "always", "native": true}
  }
}`)
	r := s.run("--config", cfg, "chat", "-m", `call current_time {"zone": "UTC"}`)
	r.wantCode(t, exitOK)
	if !strings.Contains(r.stdout, "current_time: ") {
		t.Errorf("answer:\n%s", r)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || reqs[0].ToolSearch != "tool_search" || len(reqs[0].Deferred) == 0 || len(reqs[1].Messages) < 2 || len(reqs[1].Messages[1].Found) != 1 {
		t.Errorf("%d requests; the first offers tool search %q with %d tools deferred; want 2, the Responses API's tool_search, the catalog deferred", len(reqs), reqs[0].ToolSearch, len(reqs[0].Deferred))
	}
}
