package openai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/tool"
)

func responsesModel(t *testing.T, url string) *openai.Model {
	return newModel(t, url, func(o *openai.Options) { o.API = openai.APIResponses; o.MaxTokens = 500 })
}

// TestResponsesTurn: on the Responses API a turn is streamed as events (text and
// call deltas, usage) and read as on Chat Completions; the tool result goes back as
// a function_call_output with the call's id, the system prompt as instructions,
// and nothing is stored.
func TestResponsesTurn(t *testing.T) {
	srv := fakellm.StartOpenAI(t, fakellm.Queue(
		fakellm.Reply{Text: "Let me look.", Calls: []fakellm.Call{{ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`}}},
		fakellm.Reply{Text: "It is 12°C in Paris.", InputTokens: 40, OutputTokens: 7},
		fakellm.Reply{Text: "cut", Stop: "max_tokens"},
	))
	m := responsesModel(t, srv.URL)
	if m.NativeToolSearch() != true {
		t.Error("NativeToolSearch() = false on the Responses API")
	}
	tools := []tool.Tool{{Name: "weather", Description: "Weather of a city"}}
	history := []llm.Message{{Role: llm.RoleUser, Text: "Weather in Paris?"}}
	var texts, args []string
	var usage llm.Usage
	onEvent := func(e llm.Event) {
		switch e.Kind {
		case llm.TextDelta:
			texts = append(texts, e.Text)
		case llm.CallDelta:
			args = append(args, e.Arguments)
		case llm.UsageReport:
			usage = e.Usage
		}
	}
	res, err := m.Generate(context.Background(), &llm.Request{System: "Be brief.", Messages: history, Tools: tools}, onEvent)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Text != "Let me look." || strings.Join(texts, "") != "Let me look." || len(texts) < 2 {
		t.Errorf("text %q from deltas %q", res.Message.Text, texts)
	}
	if len(res.Message.Calls) != 1 || res.Message.Calls[0] != (llm.Call{ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`}) || strings.Join(args, "") != `{"city":"Paris"}` {
		t.Errorf("calls %+v from deltas %q", res.Message.Calls, args)
	}
	if res.Stop != llm.StopToolCalls || res.Usage.InputTokens == 0 || usage != res.Usage || res.Model != "fake-model" || res.Message.Native != nil {
		t.Errorf("stop %q, usage %+v (event %+v), model %q, native %v", res.Stop, res.Usage, usage, res.Model, res.Message.Native)
	}
	history = append(history, res.Message, llm.Message{Role: llm.RoleTool, CallID: "call_1", Name: "weather", Result: &tool.Result{Content: []mcp.Content{&mcp.TextContent{Text: "12°C"}}}})
	res, err = m.Generate(context.Background(), &llm.Request{System: "Be brief.", Messages: history, Tools: tools}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Text != "It is 12°C in Paris." || res.Stop != llm.StopEnd || res.Usage != (llm.Usage{InputTokens: 40, OutputTokens: 7}) {
		t.Errorf("second reply %+v", res)
	}
	req := srv.Requests()[1]
	if req.System != "Be brief." || len(req.Messages) != 3 || req.Messages[2].CallID != "call_1" || req.Messages[2].Text != "12°C" ||
		len(req.Messages[1].Calls) != 1 || req.Messages[1].Text != "Let me look." || req.MaxTokens != 500 {
		t.Errorf("second request decoded as %+v", req)
	}
	var body struct {
		Store *bool `json:"store"`
		Input []struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
		} `json:"input"`
	}
	json.Unmarshal(req.Raw, &body)
	if body.Store == nil || *body.Store || len(body.Input) != 4 || body.Input[2].Type != "function_call" || body.Input[3].Type != "function_call_output" {
		t.Errorf("request body: %s", req.Raw)
	}
	if res, err = m.Generate(context.Background(), &llm.Request{Messages: history[:1]}, nil); err != nil || res.Stop != llm.StopMaxTokens {
		t.Errorf("an incomplete response: %v, %+v", err, res)
	}
}

// TestResponsesToolSearch: with Request.Deferred the request carries those tools
// with defer_loading and the tool_search tool; the reply's search items stay out of
// Calls, ride in Message.Native, and go back before the call on the next request,
// which the fake refuses without them (the call of a deferred tool nothing loaded).
func TestResponsesToolSearch(t *testing.T) {
	srv := fakellm.StartOpenAI(t, fakellm.Rules())
	m := responsesModel(t, srv.URL)
	tools := []tool.Tool{{Name: "clock"}}
	deferred := []tool.Tool{{Name: "weather", Description: "Weather of a city"}, {Name: "news"}}
	history := []llm.Message{{Role: llm.RoleUser, Text: `call weather {"city":"Paris"}`}}
	res, err := m.Generate(context.Background(), &llm.Request{Messages: history, Tools: tools, Deferred: deferred}, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := srv.Requests()[0]
	if first.ToolSearch != "tool_search" || len(first.Deferred) != 2 || len(first.Tools) != 1 {
		t.Errorf("first request: search %q, deferred %v, tools %v", first.ToolSearch, first.Deferred, first.Tools)
	}
	if len(res.Message.Calls) != 1 || res.Message.Calls[0].Name != "weather" || res.Stop != llm.StopToolCalls {
		t.Fatalf("reply: %+v", res)
	}
	if res.Message.Native == nil || res.Message.Native.Provider != "openai-responses" {
		t.Fatalf("no native items kept: %+v", res.Message)
	}
	var kept []map[string]any
	json.Unmarshal(res.Message.Native.Content, &kept)
	if len(kept) != 3 || kept[0]["type"] != "tool_search_call" || kept[1]["type"] != "tool_search_output" || kept[2]["type"] != "function_call" {
		t.Errorf("kept items: %s", res.Message.Native.Content)
	}
	history = append(history, res.Message, llm.Message{Role: llm.RoleTool, CallID: res.Message.Calls[0].ID, Name: "weather", Result: &tool.Result{Content: []mcp.Content{&mcp.TextContent{Text: "12°C"}}}})
	// The last step of a turn: no tools, yet the search tool and the tool found stay declared.
	res, err = m.Generate(context.Background(), &llm.Request{Messages: history}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Text != "weather: 12°C" {
		t.Errorf("answer %q", res.Message.Text)
	}
	second := srv.Requests()[1]
	var body struct {
		Input []struct {
			Type string `json:"type"`
		} `json:"input"`
		Tools      []map[string]any `json:"tools"`
		ToolChoice any              `json:"tool_choice"`
	}
	json.Unmarshal(second.Raw, &body)
	var types []string
	for _, it := range body.Input {
		types = append(types, it.Type)
	}
	if got := strings.Join(types, ","); got != ",tool_search_call,tool_search_output,function_call,function_call_output" {
		t.Errorf("second request's items: %s", got)
	}
	if len(second.Messages[1].Found) != 1 || len(body.Tools) != 2 || body.ToolChoice != "none" {
		t.Errorf("second request: found %v, tools %v, tool_choice %v", second.Messages[1].Found, body.Tools, body.ToolChoice)
	}

	// Without the kept items, the history names a deferred tool nothing loaded.
	history[1].Native = nil
	if _, err := m.Generate(context.Background(), &llm.Request{Messages: history, Tools: tools, Deferred: deferred}, nil); err == nil ||
		!strings.Contains(err.Error(), "no tool_search_output before it loaded") {
		t.Errorf("without the search items: %v", err)
	}
}

// On Chat Completions nothing changes: the same Native is not this API's, and the
// option is checked.
func TestResponsesOption(t *testing.T) {
	if _, err := openai.New("m", &openai.Options{API: "completions"}); err == nil || !strings.Contains(err.Error(), `API "completions"`) {
		t.Errorf("unknown API: %v", err)
	}
	srv := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Text: "a"}))
	m := newModel(t, srv.URL, func(o *openai.Options) { o.API = openai.APIChat })
	if m.NativeToolSearch() {
		t.Error("NativeToolSearch() = true on Chat Completions")
	}
	if _, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests(); len(got) != 1 || !strings.Contains(string(got[0].Raw), `"messages"`) {
		t.Errorf("chat request: %v", got)
	}
}
