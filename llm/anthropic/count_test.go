package anthropic_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/tool"
)

// TestCountTokens: a request is counted by the API's count_tokens as Generate would
// send it (system, a history with a tool call and its result, tools), without what
// only an answer takes, which count_tokens refuses (max_tokens, temperature); more
// text, more tokens; no message is asked for.
func TestCountTokens(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Rules())
	m := newModel(t, srv.URL, anthropic.Options{})
	temp := 0.5
	req := &llm.Request{
		System: "Be brief.",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "weather?"},
			{Role: llm.RoleAssistant, Calls: []llm.Call{{ID: "toolu_1", Name: "weather", Arguments: `{"city": "Paris"}`}}},
			{Role: llm.RoleTool, CallID: "toolu_1", Name: "weather", Result: tool.TextResult("sunny")},
		},
		Tools:       []tool.Tool{{Name: "weather", InputSchema: []byte(`{"type": "object", "properties": {"city": {"type": "string"}}}`)}},
		MaxTokens:   50,
		Temperature: &temp,
	}
	small, err := m.CountTokens(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages[0].Text = strings.Repeat("weather? ", 100)
	big, err := m.CountTokens(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if small <= 0 || big < small+200 {
		t.Errorf("counted %d, then %d for 900 more bytes", small, big)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d messages asked for", n)
	}
}
