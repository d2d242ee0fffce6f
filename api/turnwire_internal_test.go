package api

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/llm"
)

// sseOf is what a session's stream writes of e (renderTurn), and of data sent under
// name as it is: the wire's types and the maps the API wrote before, side by side.
func sseOf(e *conversation.Event, name string, data any) string {
	rec := httptest.NewRecorder()
	sw := httpx.NewSSEWriter(rec)
	if e != nil {
		(&Server{}).renderTurn(sw, *e)
	} else {
		_ = sw.Send(name, data)
	}
	return rec.Body.String()
}

// TestTurnEventsWireUnchanged: each event of a session's turn, written from the
// wire's types (apiwire), has the bytes the API wrote from maps and its own structs
// before they moved there, strings that HTML escapes and arguments that are not
// JSON included.
func TestTurnEventsWireUnchanged(t *testing.T) {
	since := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	q := &conversation.Question{ID: "in_1", Session: "s", Server: "github", Mode: "form", Message: "pick <one> & go",
		Form: &conversation.Form{Schema: json.RawMessage(`{"type":"object"}`)}, URL: "https://x/?a=1&b=2", Timeout: 90 * time.Second, CallID: "c1", Since: since}
	// pendingInput as api declared it before apiwire.Question.
	type oldPendingInput struct {
		RequestID string          `json:"requestId"`
		Server    string          `json:"server"`
		Mode      string          `json:"mode"`
		Message   string          `json:"message"`
		Schema    json.RawMessage `json:"schema,omitempty"`
		URL       string          `json:"url,omitempty"`
		TimeoutMs int64           `json:"timeoutMs"`
		CallID    string          `json:"callId,omitempty"`
		Since     time.Time       `json:"since"`
	}
	ev := func(a agent.Event) *conversation.Event { return &conversation.Event{Event: a} }
	cases := []struct {
		name  string
		event *conversation.Event
		old   any
	}{
		{"text", ev(agent.Event{Kind: agent.TextDelta, Step: 2, Text: "a <b> & \"c\"\n"}), map[string]any{"step": 2, "text": "a <b> & \"c\"\n"}},
		{"tool_call", ev(agent.Event{Kind: agent.ToolStarted, Step: 1, CallID: "c1", Name: "gh_search", Arguments: `{"q": "<x>"}`}),
			map[string]any{"step": 1, "callId": "c1", "name": "gh_search", "arguments": json.RawMessage(`{"q": "<x>"}`)}},
		{"tool_call", ev(agent.Event{Kind: agent.ToolStarted, Step: 1, CallID: "c2", Name: "gh_search", Arguments: `{"q": <broken`}),
			map[string]any{"step": 1, "callId": "c2", "name": "gh_search", "arguments": `{"q": <broken`}},
		{"tool_result", ev(agent.Event{Kind: agent.ToolFinished, Step: 3, CallID: "c1", Name: "gh_search", Result: "found <3> & more",
			IsError: true, Duration: 1234567 * time.Microsecond}),
			map[string]any{"step": 3, "callId": "c1", "name": "gh_search", "result": "found <3> & more", "isError": true, "durationMs": 1234.567}},
		{"usage", ev(agent.Event{Kind: agent.TurnUsage, Usage: llm.Usage{InputTokens: 12, OutputTokens: 34}}), llm.Usage{InputTokens: 12, OutputTokens: 34}},
		{"approval_required", &conversation.Event{Event: agent.Event{Kind: conversation.ApprovalRequired}, Approval: &conversation.Approval{
			CallID: "c1", Name: "gh_delete", Server: "github", Arguments: json.RawMessage(`{"repo":"a&b"}`), Timeout: 5 * time.Minute}},
			map[string]any{"callId": "c1", "name": "gh_delete", "server": "github", "arguments": json.RawMessage(`{"repo":"a&b"}`), "timeoutMs": int64(300000)}},
		{"input_required", &conversation.Event{Event: agent.Event{Kind: conversation.QuestionAsked}, Question: q},
			oldPendingInput{RequestID: "in_1", Server: "github", Mode: "form", Message: "pick <one> & go", Schema: json.RawMessage(`{"type":"object"}`),
				URL: "https://x/?a=1&b=2", TimeoutMs: 90000, CallID: "c1", Since: since}},
		{"input_closed", &conversation.Event{Event: agent.Event{Kind: conversation.QuestionClosed}, Question: q, Action: "decline"},
			map[string]any{"requestId": "in_1", "action": "decline"}},
	}
	for _, c := range cases {
		got, want := sseOf(c.event, "", nil), sseOf(nil, c.name, c.old)
		if got != want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, want)
		}
		if want == "" || want[:len("event: "+c.name)] != "event: "+c.name {
			t.Errorf("%s: the old form wrote %q", c.name, want)
		}
	}
}

// TestReplyWireUnchanged: a turn's reply (the done event's data and the JSON answer
// of POST /v1/sessions/{id}/messages), written from apiwire.Reply with each message
// as the session keeps it, has the bytes of the struct of llm's types the API wrote
// before, in the stream and indented.
func TestReplyWireUnchanged(t *testing.T) {
	type oldStep struct {
		Assistant llm.Message   `json:"assistant"`
		Results   []llm.Message `json:"results,omitempty"`
		Usage     llm.Usage     `json:"usage"`
	}
	type oldReply struct {
		Session string         `json:"session"`
		Answer  string         `json:"answer"`
		Steps   []oldStep      `json:"steps"`
		Usage   llm.Usage      `json:"usage"`
		Stop    llm.StopReason `json:"stop,omitempty"`
	}
	result := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "<b>shipped</b> & paid"}},
		StructuredContent: map[string]any{"state": "a<b"}, IsError: true}
	steps := []agent.Step{
		{Assistant: llm.Message{Role: llm.RoleAssistant, Text: "let me look", Calls: []llm.Call{{ID: "c1", Name: "orders_lookup", Arguments: `{"id": "<7>"}`}}},
			Results: []llm.Message{{Role: llm.RoleTool, CallID: "c1", Name: "orders_lookup", Result: result}},
			Usage:   llm.Usage{InputTokens: 10, OutputTokens: 5}},
		{Assistant: llm.Message{Role: llm.RoleAssistant, Text: "shipped <Monday> & paid"}, Usage: llm.Usage{InputTokens: 20, OutputTokens: 7}},
	}
	for _, turn := range []*conversation.Result{
		{Session: "s1", Answer: "shipped <Monday> & paid", Steps: steps, Usage: llm.Usage{InputTokens: 30, OutputTokens: 12}, Stop: llm.StopEnd},
		{Session: "s2"}, // no step, no stop
	} {
		old := oldReply{Session: turn.Session, Answer: turn.Answer, Steps: []oldStep{}, Usage: turn.Usage, Stop: turn.Stop}
		for _, st := range turn.Steps {
			old.Steps = append(old.Steps, oldStep{st.Assistant, st.Results, st.Usage})
		}
		rp, err := replyOf(turn)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sseOf(nil, apiwire.EventDone, rp), sseOf(nil, "done", old); got != want {
			t.Errorf("%s, the done event:\n got  %s\n want %s", turn.Session, got, want)
		}
		got, want := httptest.NewRecorder(), httptest.NewRecorder()
		writeJSON(got, 200, rp)
		writeJSON(want, 200, old)
		if got.Body.String() != want.Body.String() {
			t.Errorf("%s, the JSON answer:\n got  %s\n want %s", turn.Session, got.Body, want.Body)
		}
	}
}

// TestModelsWireUnchanged: GET /v1/models's body, from apiwire.Models, has the
// bytes of the maps the API wrote before, with a model and without.
func TestModelsWireUnchanged(t *testing.T) {
	cases := []struct {
		body apiwire.Models
		old  map[string]any
	}{
		{apiwire.Models{Object: "list", Data: []apiwire.Model{{ID: "gpt-<test>", Object: "model", Created: 1764400000, OwnedBy: "switchboard"}}},
			map[string]any{"object": "list", "data": []map[string]any{{"id": "gpt-<test>", "object": "model", "created": int64(1764400000), "owned_by": "switchboard"}}}},
		{apiwire.Models{Object: "list", Data: []apiwire.Model{}}, map[string]any{"object": "list", "data": []map[string]any{}}},
	}
	for _, c := range cases {
		got, want := httptest.NewRecorder(), httptest.NewRecorder()
		writeJSON(got, 200, c.body)
		writeJSON(want, 200, c.old)
		if got.Body.String() != want.Body.String() {
			t.Errorf("got  %s\nwant %s", got.Body, want.Body)
		}
	}
}

// TestPendingApprovalWireUnchanged: a call that waits, as GET /v1/sessions/{id}
// lists it under "approvals" (apiwire.Approval), has the bytes of the struct api
// declared before it moved there, arguments and strings that HTML escapes included.
func TestPendingApprovalWireUnchanged(t *testing.T) {
	type oldPendingApproval struct {
		CallID    string          `json:"callId"`
		Name      string          `json:"name"`
		Server    string          `json:"server"`
		Arguments json.RawMessage `json:"arguments"`
		Since     time.Time       `json:"since"`
	}
	since := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	args := json.RawMessage(`{"repo":"a&b","q":"<x>"}`)
	got, want := httptest.NewRecorder(), httptest.NewRecorder()
	writeJSON(got, 200, sessionView{Busy: true, Approvals: []pendingApproval{{CallID: "c1", Name: "gh_delete", Server: "git<hub>", Arguments: args, Since: since}}})
	writeJSON(want, 200, struct {
		Busy      bool                 `json:"busy"`
		Approvals []oldPendingApproval `json:"approvals,omitempty"`
	}{true, []oldPendingApproval{{"c1", "gh_delete", "git<hub>", args, since}}})
	if got.Body.String() != want.Body.String() {
		t.Errorf("got  %s\nwant %s", got.Body, want.Body)
	}
}
