package api_test

import (
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// A mixed step (issue 36 item 4): the model calls a catalog tool (convert_time, run
// here) and a client's function (lookup_order) in one step. The client gets its own
// call only; when it answers it, the model gets the whole step back: both calls, the
// catalog tool's result and the client's. Only for the person whose turn it was.

const mixedCall = convertCall + "\n" + `call lookup_order {"order": "A-17"}`

// bothAnswered is the fake's answer when both results reach it, in call order.
const bothAnswered = convertAnswer + "\nlookup_order: shipped on Monday"

// wantWholeStep checks the model request that followed the client's answer: the
// assistant message with both calls, then both results.
func wantWholeStep(t *testing.T, r fakellm.Request) {
	t.Helper()
	n := len(r.Messages)
	if n < 3 {
		t.Fatalf("the model got %+v", r.Messages)
	}
	a := r.Messages[n-3]
	if a.Role != "assistant" || len(a.Calls) != 2 || a.Calls[0].Name != "convert_time" || a.Calls[1].Name != "lookup_order" {
		t.Errorf("the step's message the model got: %+v", a)
	}
	if r.Messages[n-2].Role != "tool" || r.Messages[n-2].CallID != a.Calls[0].ID || !strings.Contains(r.Messages[n-2].Text, "+09:00") ||
		r.Messages[n-1].Role != "tool" || r.Messages[n-1].CallID != a.Calls[1].ID || r.Messages[n-1].Text != "shipped on Monday" {
		t.Errorf("the results the model got: %+v", r.Messages[n-2:])
	}
}

// TestChatCompletionsMixedStep: through chat completions (the official client,
// streamed and not), on an OpenAI backend.
func TestChatCompletionsMixedStep(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "whole", true: "streamed"}[stream], func(t *testing.T) {
			t.Parallel()
			e := start(t, setup{model: true, opts: api.Options{Identify: testPeople}})
			ctx := chatCtx(t)
			alice, bob := openAIClient(e, "alice-token"), openAIClient(e, "bob-token")
			params := openai.ChatCompletionNewParams{
				Model:    "any",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(mixedCall)},
				Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
					Name: "lookup_order", Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"order": map[string]any{"type": "string"}}},
				})},
			}
			var msg openai.ChatCompletionMessage
			if stream {
				s := alice.Chat.Completions.NewStreaming(ctx, params)
				acc := openai.ChatCompletionAccumulator{}
				for s.Next() {
					acc.AddChunk(s.Current())
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
				msg = acc.Choices[0].Message
			} else {
				res, err := alice.Chat.Completions.New(ctx, params)
				if err != nil {
					t.Fatal(err)
				}
				msg = res.Choices[0].Message
			}
			if len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != "lookup_order" {
				t.Fatalf("the client got %s", msg.RawJSON())
			}
			params.Messages = append(params.Messages, msg.ToParam(), openai.ToolMessage("shipped on Monday", msg.ToolCalls[0].ID))
			res, err := alice.Chat.Completions.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Choices[0].Message.Content; got != bothAnswered {
				t.Errorf("answer %q, want %q", got, bothAnswered)
			}
			reqs := e.fake.Requests()
			wantWholeStep(t, reqs[len(reqs)-1])

			// Bob, sending the same conversation, gets nothing of alice's step.
			res, err = bob.Chat.Completions.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Choices[0].Message.Content; got != "lookup_order: shipped on Monday" {
				t.Errorf("bob's answer %q", got)
			}
		})
	}
}

// TestMessagesMixedStep: through messages (the official client, streamed and not),
// on an Anthropic backend, which takes every result of the step in one user
// message.
func TestMessagesMixedStep(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "whole", true: "streamed"}[stream], func(t *testing.T) {
			t.Parallel()
			e := start(t, setup{model: true, anthropic: true, opts: api.Options{Identify: testPeople}})
			ctx := chatCtx(t)
			alice, bob := anthropicClient(e, "alice-token"), anthropicClient(e, "bob-token")
			params := anthropic.MessageNewParams{
				Model:     "claude-any",
				MaxTokens: 100,
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(mixedCall))},
				Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
					Name:        "lookup_order",
					InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"order": map[string]any{"type": "string"}}},
				}}},
			}
			var msg anthropic.Message
			if stream {
				s := alice.Messages.NewStreaming(ctx, params)
				for s.Next() {
					if err := msg.Accumulate(s.Current()); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
			} else {
				res, err := alice.Messages.New(ctx, params)
				if err != nil {
					t.Fatal(err)
				}
				msg = *res
			}
			if len(msg.Content) != 1 || msg.Content[0].Type != "tool_use" || msg.Content[0].Name != "lookup_order" {
				t.Fatalf("the client got %s", msg.RawJSON())
			}
			params.Messages = append(params.Messages, msg.ToParam(),
				anthropic.NewUserMessage(anthropic.NewToolResultBlock(msg.Content[0].ID, "shipped on Monday", false)))
			res, err := alice.Messages.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Content) != 1 || res.Content[0].Text != bothAnswered {
				t.Errorf("answer %s, want %q", res.RawJSON(), bothAnswered)
			}
			reqs := e.fake.Requests()
			wantWholeStep(t, reqs[len(reqs)-1])

			res, err = bob.Messages.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Content) != 1 || res.Content[0].Text != "lookup_order: shipped on Monday" {
				t.Errorf("bob's answer %s", res.RawJSON())
			}
		})
	}
}

// TestResponsesMixedStep: a client of the Responses API that sends the whole input
// again (store false, no previous_response_id) gets the step's catalog call back as
// well; one that continues with previous_response_id gets it from the kept
// response, once.
func TestResponsesMixedStep(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	ctx := chatCtx(t)
	c := openAIClient(e, "unused")
	tools := []responses.ToolUnionParam{lookupOrder}
	res, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "any", Input: textInput(mixedCall), Tools: tools, Store: openai.Bool(false)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Output) != 1 || res.Output[0].Type != "function_call" {
		t.Fatalf("output %s", res.RawJSON())
	}
	call := res.Output[0].AsFunctionCall()
	whole, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "any", Store: openai.Bool(false), Tools: tools,
		Input: itemsInput(
			responses.ResponseInputItemParamOfMessage(mixedCall, responses.EasyInputMessageRoleUser),
			responses.ResponseInputItemParamOfFunctionCall(call.Arguments, call.CallID, call.Name),
			callOutput(call.CallID, "shipped on Monday"),
		)})
	if err != nil {
		t.Fatal(err)
	}
	if whole.OutputText() != bothAnswered {
		t.Errorf("answer %q, want %q", whole.OutputText(), bothAnswered)
	}
	reqs := e.fake.Requests()
	wantWholeStep(t, reqs[len(reqs)-1])

	// Kept, and continued from: the history holds the step whole already.
	res, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: "any", Input: textInput(mixedCall), Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	call = res.Output[0].AsFunctionCall()
	next, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "any", PreviousResponseID: openai.String(res.ID), Tools: tools,
		Input: itemsInput(callOutput(call.CallID, "shipped on Monday"))})
	if err != nil {
		t.Fatal(err)
	}
	if next.OutputText() != bothAnswered {
		t.Errorf("continued: %q", next.OutputText())
	}
	reqs = e.fake.Requests()
	wantWholeStep(t, reqs[len(reqs)-1])
}
