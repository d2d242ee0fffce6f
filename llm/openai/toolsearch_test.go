package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Chat Completions has no tool search: the backend says so, so that the agent keeps
// its own search, and another provider's kept content in the history changes nothing
// in the request.
func TestNoNativeToolSearch(t *testing.T) {
	srv := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Text: "a"}, fakellm.Reply{Text: "b"}))
	m := newModel(t, srv.URL, nil)
	var _ llm.NativeSearcher = m
	if m.NativeToolSearch() {
		t.Fatal("NativeToolSearch() = true on Chat Completions")
	}
	history := []llm.Message{
		{Role: llm.RoleUser, Text: "weather?"},
		{Role: llm.RoleAssistant, Calls: []llm.Call{{ID: "call_1", Name: "weather", Arguments: `{}`}}},
		{Role: llm.RoleTool, CallID: "call_1", Name: "weather", Result: &tool.Result{}},
	}
	with := append([]llm.Message(nil), history...)
	with[1].Native = &llm.Native{Provider: "anthropic", Content: json.RawMessage(`[{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{}}]`)}
	for _, msgs := range [][]llm.Message{history, with} {
		if _, err := m.Generate(context.Background(), &llm.Request{Messages: msgs, Tools: []tool.Tool{{Name: "weather"}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if string(reqs[0].Raw) != string(reqs[1].Raw) {
		t.Errorf("the requests differ:\n%s\n%s", reqs[0].Raw, reqs[1].Raw)
	}
}
