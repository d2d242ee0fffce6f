package api_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// anthropicClient is the official Anthropic Go client pointed at the API (the base
// URL as ANTHROPIC_BASE_URL takes it), with key as its API key (x-api-key); the
// environment's settings are not read.
func anthropicClient(e *env, key string) anthropic.Client {
	return anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(e.url), option.WithAPIKey(key), option.WithMaxRetries(0))
}

const convertAnswer = "convert_time: 2026-01-02T12:04:05+09:00 (Asia/Tokyo, Friday)"

// TestMessages: the official client's message runs the MCP tool the model calls
// inside Switchboard and gets the final answer, with the usage of every step; the
// request's system prompt, max_tokens and temperature reach the model, the model the
// client names is echoed, and no session is kept.
func TestMessages(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, opts: api.Options{Token: "secret", Model: "test-model"}})
	ctx := chatCtx(t)
	c := anthropicClient(e, "secret")
	res, err := c.Messages.New(ctx, anthropic.MessageNewParams{
		Model:       "claude-any",
		System:      []anthropic.TextBlockParam{{Text: "Be brief."}},
		Messages:    []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(convertCall))},
		MaxTokens:   321,
		Temperature: anthropic.Float(0.25),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.ID, "msg_") || res.Type != "message" || res.Role != "assistant" || res.Model != "claude-any" {
		t.Errorf("id %q type %q role %q model %q", res.ID, res.Type, res.Role, res.Model)
	}
	if res.StopReason != anthropic.StopReasonEndTurn || res.StopSequence != "" || len(res.Content) != 1 ||
		res.Content[0].Type != "text" || res.Content[0].Text != convertAnswer {
		t.Errorf("stop %q content %+v", res.StopReason, res.Content)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 2 || reqs[0].System != "Be brief." {
		t.Fatalf("%d model requests, system %q", len(reqs), reqs[0].System)
	}
	for _, r := range reqs {
		if r.MaxTokens != 321 || !strings.Contains(string(r.Raw), `"temperature":0.25`) {
			t.Errorf("the model got max tokens %d: %s", r.MaxTokens, r.Raw)
		}
	}
	if res.Usage.InputTokens <= 0 || res.Usage.OutputTokens <= 0 {
		t.Errorf("usage %+v", res.Usage)
	}
	e.do("GET", "/v1/sessions", nil).want(t, 200, `"sessions": []`)
}

// TestMessagesStream: streamed, the SDK's Accumulate rebuilds the message from the
// events: the text in several text_delta events of one text block, the stop reason
// and the usage in message_delta.
func TestMessagesStream(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	ctx := chatCtx(t)
	c := anthropicClient(e, "unused")
	stream := c.Messages.NewStreaming(ctx, anthropic.MessageNewParams{
		Model:     "claude-any",
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(convertCall))},
		MaxTokens: 100,
	})
	var acc anthropic.Message
	var kinds []string
	deltas := 0
	for stream.Next() {
		ev := stream.Current()
		if err := acc.Accumulate(ev); err != nil {
			t.Fatalf("accumulating %s: %v", ev.RawJSON(), err)
		}
		if !slices.Contains(kinds, ev.Type) {
			kinds = append(kinds, ev.Type)
		}
		if ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" {
			deltas++
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}; !slices.Equal(kinds, want) {
		t.Errorf("events %v, want %v", kinds, want)
	}
	if !strings.HasPrefix(acc.ID, "msg_") || acc.Model != "claude-any" || acc.StopReason != anthropic.StopReasonEndTurn ||
		len(acc.Content) != 1 || acc.Content[0].Type != "text" || acc.Content[0].Text != convertAnswer {
		t.Fatalf("accumulated %s", acc.RawJSON())
	}
	if deltas < 2 {
		t.Errorf("%d text deltas, want the text as the model streamed it", deltas)
	}
	if acc.Usage.InputTokens <= 0 || acc.Usage.OutputTokens <= 0 {
		t.Errorf("usage %+v", acc.Usage)
	}
}

// TestMessagesClientTool: a tool the request brings is the client's. The model sees
// it with the catalog's; its call comes back as a tool_use block with stop_reason
// "tool_use", not run, streamed or not; the client's tool_result, sent back with the
// history, gets the model's answer.
func TestMessagesClientTool(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	ctx := chatCtx(t)
	c := anthropicClient(e, "unused")
	params := anthropic.MessageNewParams{
		Model:     "claude-any",
		MaxTokens: 100,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(`call lookup_order {"order": "A-17"}`))},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        "lookup_order",
			Description: anthropic.String("Looks an order up in the client's database."),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"order": map[string]any{"type": "string"}}},
		}}},
	}
	res, err := c.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != anthropic.StopReasonToolUse || len(res.Content) != 1 {
		t.Fatalf("stop %q content %s", res.StopReason, res.RawJSON())
	}
	use := res.Content[0]
	var input struct{ Order string }
	if use.Type != "tool_use" || use.Name != "lookup_order" || json.Unmarshal(use.Input, &input) != nil || input.Order != "A-17" || use.ID == "" {
		t.Errorf("tool_use %s", use.RawJSON())
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1: the call must not be run", len(reqs))
	}
	var names []string
	for _, tl := range reqs[0].Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "lookup_order") || !slices.Contains(names, "convert_time") {
		t.Errorf("tools offered %v", names)
	}

	// Streamed, the same call arrives as a tool_use block and its input_json_delta.
	stream := c.Messages.NewStreaming(ctx, params)
	var acc anthropic.Message
	for stream.Next() {
		if err := acc.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if acc.StopReason != anthropic.StopReasonToolUse || len(acc.Content) != 1 || acc.Content[0].Type != "tool_use" ||
		acc.Content[0].Name != "lookup_order" || string(acc.Content[0].Input) != `{"order": "A-17"}` || acc.Content[0].ID != use.ID {
		t.Fatalf("accumulated %s", acc.RawJSON())
	}

	// The client runs it and sends the result back.
	params.Messages = append(params.Messages, res.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock(use.ID, "shipped on Monday", false)))
	res, err = c.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != anthropic.StopReasonEndTurn || len(res.Content) != 1 || res.Content[0].Text != "lookup_order: shipped on Monday" {
		t.Errorf("answer %s", res.RawJSON())
	}
}

// TestMessagesErrors: errors come in Anthropic's form with their status, which the
// client reads as *anthropic.Error with its type: a missing max_tokens (400
// invalid_request_error, as Anthropic answers), a wrong key (401
// authentication_error), a body too big (413 request_too_large), the rate limit (429
// rate_limit_error), a person's key for Options.Identify in x-api-key, and requests
// that are not understood.
func TestMessagesErrors(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, opts: api.Options{Token: "secret", MaxRequestBytes: 4096}})
	ctx := chatCtx(t)
	c := anthropicClient(e, "secret")
	var ae *anthropic.Error
	wantError := func(what string, err error, status int, typ, msg string) {
		t.Helper()
		if !errors.As(err, &ae) || ae.StatusCode != status || string(ae.Type()) != typ || !strings.Contains(ae.RawJSON(), msg) {
			t.Errorf("%s: %v, want %d %s %q", what, err, status, typ, msg)
		}
	}
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}
	_, err := c.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", Messages: msgs, MaxTokens: 10}, option.WithJSONDel("max_tokens"))
	wantError("no max_tokens", err, http.StatusBadRequest, "invalid_request_error", "max_tokens: Field required")
	wrong := anthropicClient(e, "wrong")
	_, err = wrong.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", Messages: msgs, MaxTokens: 10})
	wantError("wrong key", err, http.StatusUnauthorized, "authentication_error", "bearer token")
	_, err = c.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 10})
	wantError("no messages", err, http.StatusBadRequest, "invalid_request_error", "at least one message")
	big := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(strings.Repeat("x", 5000)))}
	_, err = c.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", Messages: big, MaxTokens: 10})
	wantError("too big", err, http.StatusRequestEntityTooLarge, "request_too_large", "over the limit of 4096 bytes")
	stream := c.Messages.NewStreaming(ctx, anthropic.MessageNewParams{Model: "m", Messages: msgs})
	for stream.Next() {
		t.Errorf("an event: %s", stream.Current().RawJSON())
	}
	wantError("max_tokens 0, streamed", stream.Err(), http.StatusBadRequest, "invalid_request_error", "max_tokens: want at least 1")

	e.do("POST", "/v1/messages", `{"max_tokens": 5, "messages": [`).want(t, 400, `"type": "error"`, `"type": "invalid_request_error"`, "malformed JSON")
	e.do("POST", "/v1/messages", map[string]any{"max_tokens": 5, "messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "image"}}}}}).
		want(t, 400, `messages.0.content.0: type \"image\"`)
	e.do("POST", "/v1/messages", map[string]any{"max_tokens": 5, "messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "x"}}}}}).
		want(t, 400, `tool_use_id \"x\" answers no tool_use block`)
	e.do("POST", "/v1/messages", map[string]any{"max_tokens": 5, "messages": msgs, "tools": []any{map[string]any{"type": "web_search_20250305", "name": "web_search"}}}).
		want(t, 400, `tools.0: type \"web_search_20250305\"`)

	// People's keys, in x-api-key, go to Options.Identify; past the rate limit a
	// person gets Anthropic's 429.
	people := start(t, setup{model: true, opts: api.Options{Identify: testPeople, RequestsPerMinute: 1}})
	alice := anthropicClient(people, "alice-token")
	res, err := alice.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", Messages: msgs, MaxTokens: 10})
	if err != nil || res.StopReason != anthropic.StopReasonEndTurn {
		t.Fatalf("alice: %v", err)
	}
	_, err = alice.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", Messages: msgs, MaxTokens: 10})
	wantError("past the limit", err, http.StatusTooManyRequests, "rate_limit_error", "requests a minute")
	mallory := anthropicClient(people, "mallory-token")
	_, err = mallory.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", Messages: msgs, MaxTokens: 10})
	wantError("unknown person", err, http.StatusUnauthorized, "authentication_error", "not one of this service's")
}

// TestMessagesFailures: a model that fails is a 502 api_error the client reads,
// streamed or not (the stream had sent nothing yet); a tool that needs a person's
// approval is refused, since the Messages API cannot ask, and the model is told where
// to go instead.
func TestMessagesFailures(t *testing.T) {
	t.Parallel()
	e := start(t, setup{
		conv: conversation.Options{NeedsApproval: func(c agent.Call) bool { return c.Name == "convert_time" }},
		script: func(r fakellm.Request) fakellm.Reply {
			if last := r.Messages[len(r.Messages)-1]; last.Role == "user" && last.Text == "fail" {
				return fakellm.Reply{Status: 500, ErrorMessage: "the model broke"}
			}
			return fakellm.Rules()(r)
		},
	})
	ctx := chatCtx(t)
	c := anthropicClient(e, "unused")
	params := anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("fail"))}}
	_, err := c.Messages.New(ctx, params)
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadGateway || ae.Type() != "api_error" || !strings.Contains(ae.RawJSON(), "the model broke") {
		t.Errorf("model failing: %v", err)
	}
	stream := c.Messages.NewStreaming(ctx, params)
	for stream.Next() {
		t.Errorf("an event: %s", stream.Current().RawJSON())
	}
	if err := stream.Err(); !errors.As(err, &ae) || ae.StatusCode != http.StatusBadGateway || !strings.Contains(ae.RawJSON(), "the model broke") {
		t.Errorf("model failing, streamed: %v", err)
	}

	params.Messages = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(convertCall))}
	res, err := c.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, `convert_time failed: Error: the call to "convert_time" was denied: the user must approve convert_time, which /v1/messages cannot ask for`) {
		t.Errorf("answer %s", res.RawJSON())
	}
}
