package api_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// openAIClient is the official OpenAI Go client pointed at the API, with the token as
// its API key.
func openAIClient(e *env, key string) openai.Client {
	return openai.NewClient(option.WithBaseURL(e.url+"/v1/"), option.WithAPIKey(key), option.WithMaxRetries(0))
}

func chatCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestChatCompletions: the official client's chat completion runs the MCP tool the
// model calls inside Switchboard and gets the final answer, with the usage of every
// step; the request's system message reaches the model, and no session is kept.
func TestChatCompletions(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, opts: api.Options{Token: "secret", Model: "test-model"}})
	ctx := chatCtx(t)
	c := openAIClient(e, "secret")
	res, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "any-name",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("Be brief."),
			openai.UserMessage(convertCall),
		},
		MaxCompletionTokens: openai.Int(321),
		Temperature:         openai.Float(0.25),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.ID, "chatcmpl-") || res.Object != "chat.completion" || res.Model != "any-name" || res.Created == 0 {
		t.Errorf("id %q object %q model %q created %d", res.ID, res.Object, res.Model, res.Created)
	}
	if len(res.Choices) != 1 {
		t.Fatalf("choices %+v", res.Choices)
	}
	ch := res.Choices[0]
	if ch.FinishReason != "stop" || ch.Message.Role != "assistant" || len(ch.Message.ToolCalls) != 0 ||
		ch.Message.Content != "convert_time: 2026-01-02T12:04:05+09:00 (Asia/Tokyo, Friday)" {
		t.Errorf("choice %+v", ch)
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
	if res.Usage.PromptTokens <= 0 || res.Usage.CompletionTokens <= 0 || res.Usage.TotalTokens != res.Usage.PromptTokens+res.Usage.CompletionTokens {
		t.Errorf("usage %+v", res.Usage)
	}
	e.do("GET", "/v1/sessions", nil).want(t, 200, `"sessions": []`)
}

// TestChatCompletionsStream: streamed, the text arrives in several content chunks
// that the SDK's accumulator puts together, the finish reason in the last choice
// chunk, and the usage in a chunk of its own when stream_options asks for it.
func TestChatCompletionsStream(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	ctx := chatCtx(t)
	c := openAIClient(e, "unused")
	stream := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:         "test-model",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage(convertCall)},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	acc := openai.ChatCompletionAccumulator{}
	deltas, usageChunks := 0, 0
	for stream.Next() {
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			t.Fatalf("accumulator refused %s", chunk.RawJSON())
		}
		if chunk.Object != "chat.completion.chunk" {
			t.Errorf("object %q", chunk.Object)
		}
		if len(chunk.Choices) == 1 && chunk.Choices[0].Delta.Content != "" {
			deltas++
		}
		if len(chunk.Choices) == 0 {
			usageChunks++
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	want := "convert_time: 2026-01-02T12:04:05+09:00 (Asia/Tokyo, Friday)"
	if len(acc.Choices) != 1 || acc.Choices[0].Message.Content != want || acc.Choices[0].FinishReason != "stop" {
		t.Fatalf("accumulated %+v", acc.Choices)
	}
	if deltas < 2 || usageChunks != 1 {
		t.Errorf("%d content chunks, %d usage chunks", deltas, usageChunks)
	}
	if acc.Usage.PromptTokens <= 0 || acc.Usage.CompletionTokens <= 0 || acc.Usage.TotalTokens != acc.Usage.PromptTokens+acc.Usage.CompletionTokens {
		t.Errorf("usage %+v", acc.Usage)
	}
}

// TestChatCompletionsClientTool: a tool the request brings is the client's. The model
// sees it with the catalog's; its call comes back as tool_calls with finish_reason
// "tool_calls", not run, streamed or not; the client's result, sent back with the
// history, gets the model's answer.
func TestChatCompletionsClientTool(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	ctx := chatCtx(t)
	c := openAIClient(e, "unused")
	params := openai.ChatCompletionNewParams{
		Model:    "test-model",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(`call lookup_order {"order": "A-17"}`)},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        "lookup_order",
			Description: openai.String("Looks an order up in the client's database."),
			Parameters:  shared.FunctionParameters{"type": "object", "properties": map[string]any{"order": map[string]any{"type": "string"}}},
		})},
	}
	res, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	ch := res.Choices[0]
	if ch.FinishReason != "tool_calls" || len(ch.Message.ToolCalls) != 1 {
		t.Fatalf("choice %+v", ch)
	}
	call := ch.Message.ToolCalls[0]
	if call.Function.Name != "lookup_order" || call.Function.Arguments != `{"order": "A-17"}` || call.ID == "" || call.Type != "function" {
		t.Errorf("call %+v", call)
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

	// Streamed, the same call arrives as a tool_calls delta.
	stream := c.Chat.Completions.NewStreaming(ctx, params)
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(acc.Choices) != 1 || acc.Choices[0].FinishReason != "tool_calls" || len(acc.Choices[0].Message.ToolCalls) != 1 ||
		acc.Choices[0].Message.ToolCalls[0].Function.Name != "lookup_order" || acc.Choices[0].Message.ToolCalls[0].Function.Arguments != `{"order": "A-17"}` {
		t.Fatalf("accumulated %+v", acc.Choices)
	}

	// The client runs it and sends the result back.
	params.Messages = append(params.Messages, ch.Message.ToParam(), openai.ToolMessage("shipped on Monday", call.ID))
	res, err = c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Choices[0]; got.FinishReason != "stop" || got.Message.Content != "lookup_order: shipped on Monday" {
		t.Errorf("choice %+v", got)
	}
}

// TestChatCompletionsModels: GET /v1/models lists the configured model through the
// client; a wrong key is refused; without a model a completion is 503 with OpenAI's
// error body, and a bad request 400, both readable by the client.
func TestChatCompletionsModels(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, opts: api.Options{Token: "secret", Model: "gpt-test"}})
	ctx := chatCtx(t)
	c := openAIClient(e, "secret")
	page, err := c.Models.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 || page.Data[0].ID != "gpt-test" || page.Data[0].OwnedBy != "switchboard" || page.Data[0].Object != "model" {
		t.Errorf("models %+v", page.Data)
	}
	wrong := openAIClient(e, "wrong")
	_, err = wrong.Models.List(ctx)
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnauthorized || !strings.Contains(ae.Message, "bearer token") {
		t.Errorf("wrong key: %v", err)
	}

	_, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "m"})
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest || ae.Type != "invalid_request_error" || !strings.Contains(ae.Message, "at least one message") {
		t.Errorf("no messages: %v", err)
	}
	e.do("POST", "/v1/chat/completions", `{"messages": [`).want(t, 400, "malformed JSON")
	e.do("POST", "/v1/chat/completions", map[string]any{"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "image_url"}}}}}).
		want(t, 400, `messages[0].content[0]: type \"image_url\": only text parts are supported`)
	e.do("POST", "/v1/chat/completions", map[string]any{"messages": []any{map[string]any{"role": "tool", "tool_call_id": "x", "content": "hi"}}}).
		want(t, 400, `tool_call_id \"x\" answers no tool call`)

	none := start(t, setup{})
	nc := openAIClient(none, "unused")
	_, err = nc.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusServiceUnavailable || ae.Code != "no_model" || !strings.Contains(ae.Message, "no model configured") {
		t.Errorf("no model: %v", err)
	}
	page, err = nc.Models.List(ctx)
	if err != nil || len(page.Data) != 0 {
		t.Errorf("models without a model: %+v, %v", page, err)
	}
}

// TestChatCompletionsFailures: a model that fails is a 502 the client reads, streamed
// or not (the stream had sent nothing yet); a tool that needs a person's approval is
// refused, since the Chat Completions API cannot ask, and the model is told where to
// go instead.
func TestChatCompletionsFailures(t *testing.T) {
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
	c := openAIClient(e, "unused")
	params := openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("fail")}}
	_, err := c.Chat.Completions.New(ctx, params)
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadGateway || ae.Code != "model_failed" || !strings.Contains(ae.Message, "the model broke") {
		t.Errorf("model failing: %v", err)
	}
	stream := c.Chat.Completions.NewStreaming(ctx, params)
	for stream.Next() {
		t.Errorf("a chunk: %s", stream.Current().RawJSON())
	}
	if err := stream.Err(); !errors.As(err, &ae) || ae.StatusCode != http.StatusBadGateway || !strings.Contains(ae.Message, "the model broke") {
		t.Errorf("model failing, streamed: %v", err)
	}

	params.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage(convertCall)}
	res, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Choices[0].Message.Content; !strings.Contains(got, "convert_time failed: Error: the call to \"convert_time\" was denied: the user must approve convert_time, which /v1/chat/completions cannot ask for") {
		t.Errorf("answer %q", got)
	}
}

// TestChatCompletionsRecentCalls: the catalog calls of a chat completion are recent
// calls, streamed or not (a streamed one's were missing), from "chat" with the
// completion's id, as GET /v1/calls and the events list them.
func TestChatCompletionsRecentCalls(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	ctx := chatCtx(t)
	c := openAIClient(e, "unused")
	params := openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(convertCall)}}
	res, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	stream := c.Chat.Completions.NewStreaming(ctx, params)
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	var calls struct {
		Calls []eventCall `json:"calls"`
	}
	e.do("GET", "/v1/calls", nil).decode(t, &calls)
	if len(calls.Calls) != 2 {
		t.Fatalf("GET /v1/calls = %+v, want the two completions' calls", calls.Calls)
	}
	for i, id := range []string{res.ID, acc.ID} {
		if c := calls.Calls[i]; c.Tool != "convert_time" || c.Server != "clock" || c.Source != "chat" || c.Session != id || c.IsError {
			t.Errorf("call %d = %+v, want convert_time on clock from chat %s", i, c, id)
		}
	}
}

// TestChatCompletionsStreamFailsAfterCalls: a streamed completion whose first step
// only called tools (no text, so nothing to stream) and whose model then fails is
// still a plain 502: the steps that sent nothing did not start the stream.
func TestChatCompletionsStreamFailsAfterCalls(t *testing.T) {
	t.Parallel()
	e := start(t, setup{script: func(r fakellm.Request) fakellm.Reply {
		if last := r.Messages[len(r.Messages)-1]; last.Role == "tool" {
			return fakellm.Reply{Status: 500, ErrorMessage: "the model broke"}
		}
		return fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "no_such_tool", Arguments: `{}`}}}
	}})
	c := openAIClient(e, "unused")
	stream := c.Chat.Completions.NewStreaming(chatCtx(t), openai.ChatCompletionNewParams{Model: "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("go")}})
	for stream.Next() {
		t.Errorf("a chunk: %s", stream.Current().RawJSON())
	}
	var ae *openai.Error
	if err := stream.Err(); !errors.As(err, &ae) || ae.StatusCode != http.StatusBadGateway || !strings.Contains(ae.Message, "the model broke") {
		t.Errorf("model failing after a step of calls, streamed: %v", err)
	}
}
