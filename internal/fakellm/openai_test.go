package fakellm_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// These tests read the fake with openai-go itself: what the SDK's own types and
// accumulator make of it is what any OpenAI client would.

func sdkClient(t *testing.T, s *fakellm.Server) openai.Client {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return openai.NewClient(option.WithBaseURL(s.URL), option.WithAPIKey("sk-fake"),
		option.WithHTTPClient(&http.Client{Transport: tr}), option.WithMaxRetries(0))
}

var twoCalls = []fakellm.Call{
	{ID: "call_1", Name: "weather", Arguments: `{"city":"Zürich"}`},
	{ID: "call_2", Name: "time", Arguments: `{}`},
}

func TestOpenAICompletion(t *testing.T) {
	s := fakellm.StartOpenAI(t, fakellm.Queue(
		fakellm.Reply{Text: "Hello there.", InputTokens: 12, OutputTokens: 3},
		fakellm.Reply{Calls: twoCalls},
	))
	c := sdkClient(t, s)
	params := openai.ChatCompletionNewParams{Model: "gpt-test", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}

	res, err := c.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if res.Object != "chat.completion" || res.ID == "" || res.Model != "gpt-test" || len(res.Choices) != 1 {
		t.Fatalf("completion = %s", res.RawJSON())
	}
	ch := res.Choices[0]
	if ch.Message.Content != "Hello there." || ch.Message.Role != "assistant" || ch.FinishReason != "stop" || len(ch.Message.ToolCalls) != 0 {
		t.Errorf("choice = %s", ch.RawJSON())
	}
	if u := res.Usage; u.PromptTokens != 12 || u.CompletionTokens != 3 || u.TotalTokens != 15 {
		t.Errorf("usage = %s", u.RawJSON())
	}

	res, err = c.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	ch = res.Choices[0]
	if ch.FinishReason != "tool_calls" || len(ch.Message.ToolCalls) != 2 {
		t.Fatalf("choice = %s", ch.RawJSON())
	}
	if ch.Message.JSON.Content.Raw() != "null" {
		t.Errorf("content = %s, want null beside tool calls", ch.Message.JSON.Content.Raw())
	}
	for i, want := range twoCalls {
		got := ch.Message.ToolCalls[i].AsFunction()
		if got.ID != want.ID || got.Type != "function" || got.Function.Name != want.Name || got.Function.Arguments != want.Arguments {
			t.Errorf("tool call %d = %s", i, ch.Message.ToolCalls[i].RawJSON())
		}
	}
	if res.Usage.PromptTokens == 0 || res.Usage.CompletionTokens == 0 {
		t.Errorf("usage not counted: %s", res.Usage.RawJSON())
	}
}

func TestOpenAIStreamWithSDKAccumulator(t *testing.T) {
	s := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Text: "Looking it up — one moment.", Calls: twoCalls, Chunks: 3, InputTokens: 20, OutputTokens: 9}))
	c := sdkClient(t, s)
	stream := c.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:         "gpt-test",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	var finished []openai.FinishedChatCompletionToolCall
	chunks, usageChunks := 0, 0
	var last openai.ChatCompletionChunk
	for stream.Next() {
		chunk := stream.Current()
		chunks++
		if chunk.Object != "chat.completion.chunk" {
			t.Errorf("object = %q", chunk.Object)
		}
		if chunk.JSON.Usage.Valid() {
			usageChunks++
		}
		if !acc.AddChunk(chunk) {
			t.Fatalf("the SDK's accumulator refused chunk %d: %s", chunks, chunk.RawJSON())
		}
		if tc, ok := acc.JustFinishedToolCall(); ok {
			finished = append(finished, tc)
		}
		last = chunk
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if usageChunks != 1 || len(last.Choices) != 0 || last.Usage.TotalTokens != 29 {
		t.Errorf("%d chunks with usage, last %s; want one, the last, with empty choices", usageChunks, last.RawJSON())
	}
	msg := acc.Choices[0].Message
	if msg.Content != "Looking it up — one moment." || acc.Choices[0].FinishReason != "tool_calls" || len(msg.ToolCalls) != 2 {
		t.Fatalf("accumulated %s", acc.RawJSON())
	}
	for i, want := range twoCalls {
		got := msg.ToolCalls[i]
		if got.ID != want.ID || got.Function.Name != want.Name || got.Function.Arguments != want.Arguments {
			t.Errorf("tool call %d = %+v, want %+v", i, got, want)
		}
	}
	if len(finished) != 2 || finished[0].Name != "weather" || finished[1].Arguments != "{}" {
		t.Errorf("JustFinishedToolCall gave %+v", finished)
	}
	if acc.Usage.PromptTokens != 20 || acc.Usage.CompletionTokens != 9 {
		t.Errorf("usage = %+v", acc.Usage)
	}
	if chunks < 10 {
		t.Errorf("%d chunks: want text and arguments in pieces", chunks)
	}
}

// TestOpenAIStreamWire reads the event stream as bytes: data lines only, every
// chunk with "usage": null but the usage chunk when include_usage is set, no usage
// key without it, and [DONE] last.
func TestOpenAIStreamWire(t *testing.T) {
	s := fakellm.StartOpenAI(t, func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Text: "abc def ghi"} })
	for _, includeUsage := range []bool{true, false} {
		body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]`
		if includeUsage {
			body += `,"stream_options":{"include_usage":true}`
		}
		res, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(body+"}"))
		if err != nil {
			t.Fatal(err)
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			t.Errorf("Content-Type = %q", ct)
		}
		var data []string
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				continue
			}
			d, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				t.Errorf("line %q is not a data line", line)
			}
			data = append(data, d)
		}
		res.Body.Close()
		if len(data) < 3 || data[len(data)-1] != "[DONE]" {
			t.Fatalf("events = %q, want chunks then [DONE]", data)
		}
		for i, d := range data[:len(data)-1] {
			var chunk map[string]json.RawMessage
			if err := json.Unmarshal([]byte(d), &chunk); err != nil {
				t.Fatalf("event %d is not JSON: %s", i, d)
			}
			usage, has := chunk["usage"]
			isLast := i == len(data)-2
			switch {
			case !includeUsage && has:
				t.Errorf("usage without include_usage: %s", d)
			case includeUsage && !isLast && string(usage) != "null":
				t.Errorf("chunk %d usage = %s, want null", i, usage)
			case includeUsage && isLast && (string(chunk["choices"]) != "[]" || string(usage) == "null"):
				t.Errorf("last chunk = %s, want empty choices and the usage", d)
			}
		}
	}
	http.DefaultClient.CloseIdleConnections()
}

func TestOpenAIDecodesRequest(t *testing.T) {
	s := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Text: "ok"}))
	c := sdkClient(t, s)
	assistant := openai.ChatCompletionAssistantMessageParam{
		ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
			ID: "call_9", Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "look", Arguments: `{"at":"sky"}`},
		}}},
	}
	_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.DeveloperMessage("Be brief."),
			openai.SystemMessage("Be kind."),
			openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
				openai.TextContentPart("what is"),
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64,AAAA"}),
				openai.TextContentPart("this?"),
			}),
			{OfAssistant: &assistant},
			openai.ToolMessage("blue", "call_9"),
		},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: "look", Description: openai.String("Look at something."), Parameters: shared.FunctionParameters{"type": "object"},
		})},
		MaxCompletionTokens: openai.Int(64),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Requests()[0]
	want := []fakellm.Message{
		{Role: "user", Text: "what is\n[image_url]\nthis?"},
		{Role: "assistant", Calls: []fakellm.Call{{ID: "call_9", Name: "look", Arguments: `{"at":"sky"}`}}},
		{Role: "tool", CallID: "call_9", Text: "blue"},
	}
	gm, _ := json.Marshal(got.Messages)
	wm, _ := json.Marshal(want)
	if string(gm) != string(wm) {
		t.Errorf("messages:\n got %s\nwant %s", gm, wm)
	}
	if got.System != "Be brief.\n\nBe kind." || got.Model != "gpt-test" || got.MaxTokens != 64 || got.Stream {
		t.Errorf("request = %+v", got)
	}
	if len(got.Tools) != 1 || got.Tools[0].Name != "look" || got.Tools[0].Description != "Look at something." || string(got.Tools[0].Schema) != `{"type":"object"}` {
		t.Errorf("tools = %+v", got.Tools)
	}
	if got.Header.Get("Authorization") != "Bearer sk-fake" || len(got.Raw) == 0 {
		t.Errorf("header or raw body not kept")
	}
}

func TestOpenAIErrors(t *testing.T) {
	s := fakellm.StartOpenAI(t, fakellm.Queue(
		fakellm.Reply{Status: http.StatusUnauthorized, ErrorMessage: "Incorrect API key provided."},
		fakellm.Reply{Status: http.StatusTooManyRequests, ErrorMessage: "Rate limit reached."},
	))
	c := sdkClient(t, s)
	params := openai.ChatCompletionNewParams{Model: "gpt-test", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
	for _, want := range []struct {
		status        int
		message, code string
	}{
		{401, "Incorrect API key provided.", "invalid_api_key"},
		{429, "Rate limit reached.", "rate_limit_exceeded"},
		{500, "fakellm: the script has no more replies", ""},
	} {
		_, err := c.Chat.Completions.New(context.Background(), params)
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("err = %v, want *openai.Error", err)
		}
		if apiErr.StatusCode != want.status || apiErr.Message != want.message || apiErr.Code != want.code || apiErr.Type == "" {
			t.Errorf("error = %d %s, want %d %q code %q", apiErr.StatusCode, apiErr.RawJSON(), want.status, want.message, want.code)
		}
	}
	// A bad request is answered as OpenAI answers it, before the script sees it.
	_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "gpt-test"})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Type != "invalid_request_error" {
		t.Errorf("no messages: err = %v", err)
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("the script saw %d requests, want 3", n)
	}
}

func TestOpenAIModels(t *testing.T) {
	s := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Text: "ok"}))
	c := sdkClient(t, s)
	if _, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "my-model", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}); err != nil {
		t.Fatal(err)
	}
	page, err := c.Models.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range page.Data {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, ",") != "fakellm,my-model" {
		t.Errorf("models = %v", ids)
	}
	_, err = c.Models.Get(context.Background(), "nope")
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Errorf("GET an unknown path: err = %v, want a 404 in OpenAI's error shape", err)
	}
}
