package fakellm_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

func anthropicClient(t *testing.T, srv *fakellm.Server) sdk.Client {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(srv.URL), option.WithAPIKey("test"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: tr}))
}

var anthropicReplyWithCalls = fakellm.Reply{
	Text: "Checking — два moments.",
	Calls: []fakellm.Call{
		{ID: "toolu_a", Name: "weather", Arguments: `{"city": "Paris", "days": [1, 2, 3]}`},
		{Name: "broken", Arguments: `{"city": `},
	},
	InputTokens:  11,
	OutputTokens: 22,
	Chunks:       3,
}

// The official SDK reads what the fake sends, streamed or not, into the same message.
func TestAnthropicSDKReadsReplies(t *testing.T) {
	srv := fakellm.StartAnthropic(t, func(fakellm.Request) fakellm.Reply { return anthropicReplyWithCalls })
	client := anthropicClient(t, srv)
	params := sdk.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 100,
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("hi"))},
	}
	whole, err := client.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	stream := client.Messages.NewStreaming(context.Background(), params)
	defer stream.Close()
	var acc sdk.Message
	var partial []string
	for stream.Next() {
		ev := stream.Current()
		if err := acc.Accumulate(ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "content_block_delta" && ev.Delta.Type == "input_json_delta" && ev.Index == 2 {
			partial = append(partial, ev.Delta.PartialJSON)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	for _, m := range []sdk.Message{*whole, acc} {
		if len(m.Content) != 3 || m.Content[0].Type != "text" || m.Content[0].Text != anthropicReplyWithCalls.Text {
			t.Fatalf("content = %+v", m.Content)
		}
		use := m.Content[1]
		if use.Type != "tool_use" || use.ID != "toolu_a" || use.Name != "weather" {
			t.Errorf("tool_use = %+v", use)
		}
		var input struct {
			City string
			Days []int
		}
		if err := json.Unmarshal(use.Input, &input); err != nil || input.City != "Paris" || len(input.Days) != 3 {
			t.Errorf("input = %s (%v)", use.Input, err)
		}
		if m.Content[2].ID == "" || m.StopReason != sdk.StopReasonToolUse || m.Usage.InputTokens != 11 || m.Usage.OutputTokens != 22 || m.Model != "claude-test" {
			t.Errorf("message = %+v", m)
		}
	}
	// Malformed arguments: {} in a whole message, the text as it is in a stream.
	if string(whole.Content[2].Input) != "{}" {
		t.Errorf("malformed arguments in a whole message: input %s, want {}", whole.Content[2].Input)
	}
	if got := strings.Join(partial, ""); got != `{"city": ` || len(partial) < 3 || partial[0] != "" {
		t.Errorf("malformed arguments streamed as %q", partial)
	}
}

// anthropicPost sends body to the fake's /v1/messages and returns the status, the
// content type and the body.
func anthropicPost(t *testing.T, srv *fakellm.Server, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("POST", srv.URL+"/v1/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	return res.StatusCode, res.Header, b.String()
}

var anthropicVersion = map[string]string{"anthropic-version": "2023-06-01"}

func TestAnthropicRequestChecks(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue())
	cases := []struct {
		name, body string
		header     map[string]string
		want       string
	}{
		{"no version", `{"model":"m","max_tokens":5,"messages":[]}`, nil, "anthropic-version: header is required"},
		{"no max_tokens", `{"model":"m","messages":[]}`, anthropicVersion, "max_tokens: Field required"},
		{"no model", `{"max_tokens":5,"messages":[]}`, anthropicVersion, "model: Field required"},
		{"tool blocks without tools", `{"model":"m","max_tokens":5,"messages":[
			{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"t","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`, anthropicVersion,
			"Requests which include `tool_use` or `tool_result` blocks must define tools."},
		{"tool_use unanswered", `{"model":"m","max_tokens":5,"tools":[{"name":"t","input_schema":{"type":"object"}}],"messages":[
			{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"t","input":{}},{"type":"tool_use","id":"toolu_2","name":"t","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`, anthropicVersion,
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, _, body := anthropicPost(t, srv, c.body, c.header)
			var e struct {
				Type  string
				Error struct{ Type, Message string }
			}
			if status != 400 || json.Unmarshal([]byte(body), &e) != nil || e.Type != "error" || e.Error.Type != "invalid_request_error" || e.Error.Message != c.want {
				t.Errorf("status %d, body %s; want 400 invalid_request_error %q", status, body, c.want)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d invalid requests reached the script", n)
	}
}

func TestAnthropicDecodesRequest(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: "ok"}))
	body := `{"model":"claude-x","max_tokens":50,
		"system":[{"type":"text","text":"Be brief."},{"type":"text","text":"Be kind."}],
		"tools":[{"name":"t","description":"A tool.","input_schema":{"type":"object"}}],
		"messages":[
			{"role":"user","content":"hello"},
			{"role":"assistant","content":[{"type":"text","text":"On it."},{"type":"tool_use","id":"toolu_1","name":"t","input":{ "a" : 1 }}]},
			{"role":"user","content":[
				{"type":"tool_result","tool_use_id":"toolu_1","content":"plain"},
				{"type":"text","text":"and then?"}]},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"t","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[
				{"type":"text","text":"bad"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}]}]}`
	status, _, out := anthropicPost(t, srv, body, anthropicVersion)
	if status != 200 {
		t.Fatalf("status %d: %s", status, out)
	}
	r := srv.Requests()[0]
	if r.Model != "claude-x" || r.MaxTokens != 50 || r.Stream || r.System != "Be brief.\nBe kind." {
		t.Errorf("request = %+v", r)
	}
	if len(r.Tools) != 1 || r.Tools[0].Name != "t" || r.Tools[0].Description != "A tool." || string(r.Tools[0].Schema) != `{"type":"object"}` {
		t.Errorf("tools = %+v", r.Tools)
	}
	want := []fakellm.Message{
		{Role: "user", Text: "hello"},
		{Role: "assistant", Text: "On it.", Calls: []fakellm.Call{{ID: "toolu_1", Name: "t", Arguments: `{"a":1}`}}},
		{Role: "tool", CallID: "toolu_1", Text: "plain"},
		{Role: "user", Text: "and then?"},
		{Role: "assistant", Calls: []fakellm.Call{{ID: "toolu_2", Name: "t", Arguments: `{}`}}},
		{Role: "tool", CallID: "toolu_2", Text: "bad\n[image image/png]", IsError: true},
	}
	if fmt.Sprintf("%+v", r.Messages) != fmt.Sprintf("%+v", want) {
		t.Errorf("messages:\n%+v\nwant\n%+v", r.Messages, want)
	}
}

// The event sequence of a stream, as the streaming reference lists it.
func TestAnthropicStreamEvents(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: strings.Repeat("x", 200), Calls: []fakellm.Call{{Name: "t", Arguments: `{"k":"v"}`}}}))
	_, h, body := anthropicPost(t, srv, `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, anthropicVersion)
	if !strings.HasPrefix(h.Get("content-type"), "text/event-stream") {
		t.Errorf("content-type %q", h.Get("content-type"))
	}
	var names []string
	for _, line := range strings.Split(body, "\n") {
		if name, ok := strings.CutPrefix(line, "event: "); ok && (len(names) == 0 || names[len(names)-1] != name) {
			names = append(names, name)
		}
	}
	// 25 text deltas: a ping after the block starts and one every 16 deltas.
	want := "message_start content_block_start ping content_block_delta ping content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_stop message_delta message_stop"
	if strings.Join(names, " ") != want {
		t.Errorf("events (repeats folded):\n%s\nwant\n%s", strings.Join(names, " "), want)
	}
}

func TestAnthropicErrorReply(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Status: 529}, fakellm.Reply{Status: 429, ErrorMessage: "slow down"}))
	for _, want := range []struct {
		status     int
		typ, msg   string
		retryAfter string
	}{{529, "overloaded_error", "Overloaded", "0"}, {429, "rate_limit_error", "slow down", "0"}} {
		status, h, body := anthropicPost(t, srv, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, anthropicVersion)
		var e struct {
			Type      string
			Error     struct{ Type, Message string }
			RequestID string `json:"request_id"`
		}
		if status != want.status || json.Unmarshal([]byte(body), &e) != nil || e.Type != "error" || e.Error.Type != want.typ || e.Error.Message != want.msg || e.RequestID == "" {
			t.Errorf("status %d, body %s; want %d %s %q", status, body, want.status, want.typ, want.msg)
		}
		if h.Get("retry-after") != want.retryAfter {
			t.Errorf("retry-after %q", h.Get("retry-after"))
		}
	}
}
