package anthropic_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/tool"
)

var (
	pinned   = []tool.Tool{{Name: "clock", Description: "The time."}}
	deferred = []tool.Tool{
		{Name: "weather", Description: "Forecast for a city.", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)},
		{Name: "notes_put", Description: "Store a note."},
	}
)

// sentTools are the "tools" and "tool_choice" of a request as sent.
func sentTools(t *testing.T, r fakellm.Request) ([]map[string]any, map[string]any) {
	t.Helper()
	var body struct {
		Tools      []map[string]any `json:"tools"`
		ToolChoice map[string]any   `json:"tool_choice"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	return body.Tools, body.ToolChoice
}

// toolNames lists the tools sent, a deferred one as "name (deferred)" and a server
// tool by its type.
func toolNames(tools []map[string]any) string {
	var names []string
	for _, d := range tools {
		n, _ := d["name"].(string)
		if typ, ok := d["type"].(string); ok && typ != "custom" {
			n = typ
		}
		if d["defer_loading"] == true {
			n += " (deferred)"
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// A turn in native deferred mode against the fake, which runs the tool search as
// the API does: the request sends the deferred tools with defer_loading next to the
// search tool; the streamed reply's search blocks become no call (only the tool
// found and called is one) and ride in Message.Native; the next requests send them
// back before the call (else the fake, like the API, refuses the tool_use of a
// deferred tool), the last one without tools included.
func TestNativeToolSearch(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Rules())
	m := newModel(t, srv.URL, anthropic.Options{})
	if !m.NativeToolSearch() {
		t.Fatal("NativeToolSearch() = false by default")
	}
	req := llmtest.UserSays(`call weather {"city":"Oslo"}`)
	req.Tools, req.Deferred = pinned, deferred
	var rec llmtest.Recorder
	res, err := m.Generate(context.Background(), req, rec.On)
	if err != nil {
		t.Fatal(err)
	}

	first := srv.Requests()[0]
	tools, choice := sentTools(t, first)
	if got := toolNames(tools); got != "clock, tool_search_tool_bm25_20251119, weather (deferred), notes_put (deferred)" {
		t.Errorf("tools sent: %s", got)
	}
	if tools[1]["name"] != "tool_search_tool_bm25" || choice != nil {
		t.Errorf("search tool %v, tool_choice %v", tools[1], choice)
	}

	want := llm.Call{Name: "weather", Arguments: `{"city":"Oslo"}`}
	if len(res.Message.Calls) != 1 || res.Message.Calls[0].Name != want.Name || res.Message.Calls[0].Arguments != want.Arguments || res.Stop != llm.StopToolCalls {
		t.Fatalf("calls %+v, stop %q: want only the weather call", res.Message.Calls, res.Stop)
	}
	for _, e := range rec.Kind(llm.CallDelta) {
		if e.Index != 0 || (e.Name != "" && e.Name != "weather") {
			t.Errorf("call event %+v: the search is no call", e)
		}
	}
	if res.Usage.InputTokens == 0 || res.Usage.OutputTokens == 0 || len(rec.Kind(llm.UsageReport)) != 1 {
		t.Errorf("usage %+v, reports %d", res.Usage, len(rec.Kind(llm.UsageReport)))
	}
	n := res.Message.Native
	if n == nil || n.Provider != "anthropic" {
		t.Fatalf("Native = %+v", n)
	}
	var blocks []struct{ Type string }
	json.Unmarshal(n.Content, &blocks)
	if len(blocks) != 3 || blocks[0].Type != "server_tool_use" || blocks[1].Type != "tool_search_tool_result" || blocks[2].Type != "tool_use" {
		t.Errorf("Native.Content = %s", n.Content)
	}

	// The message survives a session store (JSON) and goes back as it came.
	saved, err := json.Marshal(res.Message)
	if err != nil {
		t.Fatal(err)
	}
	var msg llm.Message
	if err := json.Unmarshal(saved, &msg); err != nil {
		t.Fatal(err)
	}
	id := msg.Calls[0].ID
	req.Messages = append(req.Messages, msg, llm.Message{Role: llm.RoleTool, CallID: id, Name: "weather", Result: &tool.Result{Content: []mcp.Content{&mcp.TextContent{Text: "2°C"}}}})
	res, err = m.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Text != "weather: 2°C" || res.Message.Native != nil {
		t.Errorf("answer %q, native %v", res.Message.Text, res.Message.Native)
	}
	second := srv.Requests()[1]
	if got := second.Messages[1]; len(got.Found) != 1 || got.Found[0] != "weather" || len(got.Calls) != 1 || got.Calls[0].ID != id {
		t.Errorf("history sent back: %+v", got)
	}
	var body struct {
		Messages []struct {
			Role    string
			Content []struct{ Type string }
		}
	}
	json.Unmarshal(second.Raw, &body)
	var types []string
	for _, b := range body.Messages[1].Content {
		types = append(types, b.Type)
	}
	if strings.Join(types, " ") != "server_tool_use tool_search_tool_result tool_use" {
		t.Errorf("assistant blocks sent back: %v", types)
	}

	// The last step of a turn has no tools: the history's search tool and the tool
	// found are declared (the API needs a definition for each tool_reference), and
	// none may be called.
	req.Tools, req.Deferred = nil, nil
	req.Messages = append(req.Messages, res.Message, llm.Message{Role: llm.RoleUser, Text: "thanks"})
	if _, err := m.Generate(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	tools, choice = sentTools(t, srv.Requests()[2])
	if got := toolNames(tools); got != "weather (deferred), tool_search_tool_bm25_20251119" || choice["type"] != "none" {
		t.Errorf("last step: tools %s, tool_choice %v", got, choice)
	}

	// A step whose catalog lost the tool found still declares it.
	req.Tools, req.Deferred = pinned, deferred[1:]
	if _, err := m.Generate(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	tools, _ = sentTools(t, srv.Requests()[3])
	if got := toolNames(tools); got != "clock, tool_search_tool_bm25_20251119, notes_put (deferred), weather (deferred)" {
		t.Errorf("after the catalog changed: %s", got)
	}
}

// Options.ToolSearch picks the regex tool, or none.
func TestToolSearchOptions(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Rules())
	m := newModel(t, srv.URL, anthropic.Options{ToolSearch: anthropic.ToolSearchRegex})
	req := llmtest.UserSays("search store a note")
	req.Tools, req.Deferred = pinned, deferred
	res, err := m.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Message.Calls) != 1 || res.Message.Calls[0].Name != "notes_put" || res.Message.Native == nil {
		t.Errorf("calls %+v, native %v", res.Message.Calls, res.Message.Native)
	}
	tools, _ := sentTools(t, srv.Requests()[0])
	if got := toolNames(tools); got != "clock, tool_search_tool_regex_20251119, weather (deferred), notes_put (deferred)" || tools[1]["name"] != "tool_search_tool_regex" {
		t.Errorf("tools sent: %s", got)
	}

	off := newModel(t, srv.URL, anthropic.Options{ToolSearch: anthropic.ToolSearchOff})
	if off.NativeToolSearch() {
		t.Error(`NativeToolSearch() = true with ToolSearch "off"`)
	}
	_, err = anthropic.New("m", &anthropic.Options{ToolSearch: "semantic"})
	if err == nil || err.Error() != `anthropic: Options.ToolSearch is "semantic": want "bm25" (the default), "regex" or "off"` {
		t.Errorf("New with a bad ToolSearch: %v", err)
	}
}

// Without Deferred and without kept content, a request is what it was before
// native search existed, byte for byte; another provider's Native is ignored.
func TestNonNativeRequestUnchanged(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: "a"}, fakellm.Reply{Text: "b"}, fakellm.Reply{Text: "c"}))
	m := newModel(t, srv.URL, anthropic.Options{})
	history := []llm.Message{
		{Role: llm.RoleUser, Text: "weather?"},
		{Role: llm.RoleAssistant, Text: "Looking.", Calls: []llm.Call{{ID: "toolu_1", Name: "weather", Arguments: `{"city":"Oslo"}`}}},
		{Role: llm.RoleTool, CallID: "toolu_1", Name: "weather", Result: &tool.Result{Content: []mcp.Content{&mcp.TextContent{Text: "2°C"}}}},
	}
	withTools := &llm.Request{System: "s", Messages: history, Tools: pinned}
	last := &llm.Request{System: "s", Messages: history}
	other := make([]llm.Message, len(history))
	copy(other, history)
	other[1].Native = &llm.Native{Provider: "openai", Content: json.RawMessage(`[{"type":"server_tool_use"}]`)}
	for _, req := range []*llm.Request{withTools, last, {System: "s", Messages: other}} {
		if _, err := m.Generate(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
	}
	// As the code before native search sent them.
	const (
		wantTools = `{"max_tokens":4096,"messages":[{"content":[{"text":"weather?","type":"text"}],"role":"user"},{"content":[{"text":"Looking.","type":"text"},{"id":"toolu_1","input":{"city":"Oslo"},"name":"weather","type":"tool_use"}],"role":"assistant"},{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"2°C"}]}],"role":"user"}],"model":"claude-test","system":[{"text":"s","type":"text"}],"tools":[{"name":"clock","description":"The time.","input_schema":{"properties":{},"type":"object"}}],"stream":true}`
		wantLast  = `{"max_tokens":4096,"messages":[{"content":[{"text":"weather?","type":"text"}],"role":"user"},{"content":[{"text":"Looking.","type":"text"},{"id":"toolu_1","input":{"city":"Oslo"},"name":"weather","type":"tool_use"}],"role":"assistant"},{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"2°C"}]}],"role":"user"}],"model":"claude-test","system":[{"text":"s","type":"text"}],"tool_choice":{"type":"none"},"tools":[{"name":"weather","description":"MCP tool: weather","input_schema":{"properties":{},"type":"object"}}],"stream":true}`
	)
	reqs := srv.Requests()
	for i, want := range []string{wantTools, wantLast, wantLast} {
		if got := string(reqs[i].Raw); got != want {
			t.Errorf("request %d:\n%s\nwant\n%s", i, got, want)
		}
	}
}
