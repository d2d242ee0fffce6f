package api_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/switchboard-mcp/switchboard/api"
)

// threadsBeta is the anthropic-beta value of message threads, as the SDKs send it.
const threadsBeta = "message-threads-2026-08-12"

// createThread and continueThread are the request options of a thread's turns, as
// Anthropic's SDKs send them: the beta header (after another beta, in one list) and
// the "thread" field. anthropic-sdk-go has no thread helper yet; the wire is the same.
func createThread() []option.RequestOption {
	return []option.RequestOption{option.WithHeaderAdd("anthropic-beta", "fine-grained-tool-streaming-2025-05-14,"+threadsBeta),
		option.WithJSONSet("thread", map[string]any{"type": "create"})}
}

func continueThread(prev string) []option.RequestOption {
	return []option.RequestOption{option.WithHeaderAdd("anthropic-beta", threadsBeta),
		option.WithJSONSet("thread", map[string]any{"type": "continue", "previous_message_id": prev})}
}

// TestMessagesThreads: a thread created with the whole conversation, its system
// prompt and its tools is continued with only the new messages, as the SDK's tool
// runner sends them: the client's tool_result answers the tool_use of the message
// before (which a stateless request would refuse: "answers no tool_use block"), and
// the model sees the whole conversation, the create request's system prompt and tools
// included, the result of the catalog's call of the same step too. Each turn moves the
// thread to its new message's id, streamed or not; the previous id is then a 404 with
// error.details.error_code "thread_not_found", on which the SDKs send the whole
// conversation again. One session holds the thread.
func TestMessagesThreads(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	ctx := chatCtx(t)
	c := anthropicClient(e, "unused")
	// The beta API, as the SDKs' tool runner uses it (POST /v1/messages?beta=true, the
	// betas in anthropic-beta, comma-separated).
	betas := []anthropic.AnthropicBeta{"fine-grained-tool-streaming-2025-05-14", threadsBeta}
	first, err := c.Beta.Messages.New(ctx, anthropic.BetaMessageNewParams{
		Model:     "claude-any",
		MaxTokens: 100,
		Betas:     betas,
		System:    []anthropic.BetaTextBlockParam{{Text: "Be brief."}},
		Tools: []anthropic.BetaToolUnionParam{{OfTool: &anthropic.BetaToolParam{
			Name:        "lookup_order",
			InputSchema: anthropic.BetaToolInputSchemaParam{Properties: map[string]any{"order": map[string]any{"type": "string"}}},
		}}},
		// One step that calls a catalog tool and the client's.
		Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock(convertCall + "\n" + `call lookup_order {"order": "A-17"}`))},
	}, option.WithJSONSet("thread", map[string]any{"type": "create"}))
	if err != nil {
		t.Fatal(err)
	}
	if first.StopReason != anthropic.BetaStopReasonToolUse || len(first.Content) != 1 || first.Content[0].Name != "lookup_order" {
		t.Fatalf("first %s", first.RawJSON())
	}

	// The tool runner's next request: only the tool's result, no system, no tools.
	second, err := c.Beta.Messages.New(ctx, anthropic.BetaMessageNewParams{
		Model:     "claude-any",
		MaxTokens: 100,
		Betas:     betas,
		Messages:  []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaToolResultBlock(first.Content[0].ID, "shipped on Monday", false))},
	}, option.WithJSONSet("thread", map[string]any{"type": "continue", "previous_message_id": first.ID}))
	if err != nil {
		t.Fatal(err)
	}
	if second.ID == first.ID || second.StopReason != anthropic.BetaStopReasonEndTurn || len(second.Content) != 1 ||
		second.Content[0].Text != convertAnswer+"\nlookup_order: shipped on Monday" {
		t.Errorf("second %s", second.RawJSON())
	}
	reqs := e.fake.Requests()
	last := reqs[len(reqs)-1]
	var got []string
	for _, m := range last.Messages {
		got = append(got, m.Role)
	}
	var offered []string
	for _, tl := range last.Tools {
		offered = append(offered, tl.Name)
	}
	if last.System != "Be brief." || !slices.Equal(got, []string{"user", "assistant", "tool", "tool"}) ||
		last.Messages[0].Text != convertCall+"\n"+`call lookup_order {"order": "A-17"}` || !slices.Contains(offered, "lookup_order") {
		t.Errorf("the model got system %q, messages %v, tools %v", last.System, got, offered)
	}

	// Streamed, a plain message goes on from the second.
	stream := c.Messages.NewStreaming(ctx, anthropic.MessageNewParams{
		Model:     "claude-any",
		MaxTokens: 100,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("and the invoice?"))},
	}, continueThread(second.ID)...)
	var third anthropic.Message
	for stream.Next() {
		if err := third.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(third.Content) != 1 || !strings.HasPrefix(third.Content[0].Text, "You said: and the invoice?") {
		t.Errorf("third %s", third.RawJSON())
	}
	if n := len(e.fake.Requests()[len(e.fake.Requests())-1].Messages); n != 6 {
		t.Errorf("the third turn's model request has %d messages, want the 6 of the whole thread", n)
	}
	fourth, err := c.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-any", MaxTokens: 100,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("thanks"))}}, continueThread(third.ID)...)
	if err != nil || len(fourth.Content) != 1 || !strings.HasPrefix(fourth.Content[0].Text, "You said: thanks") {
		t.Fatalf("fourth: %v", err)
	}

	// The thread has moved on: an earlier id is the 404 on which the SDKs replay.
	_, err = c.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-any", MaxTokens: 100,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("again"))}}, continueThread(second.ID)...)
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound || ae.Type() != "not_found_error" || !strings.Contains(ae.RawJSON(), `no thread is kept at message`) ||
		!strings.Contains(ae.RawJSON(), `"error_code": "thread_not_found"`) {
		t.Errorf("continuing a message the thread has moved past: %v", err)
	}
	e.do("GET", "/v1/sessions", nil).want(t, 200, `"total": 1`, `"id": "`+fourth.ID+`"`)
}

// TestMessagesThreadErrors: a thread is its creator's: another person's message id is
// the same 404 as one that does not exist, and the creator goes on from it after;
// a continue request that changes the system prompt or the tools, a thread without the
// beta header, or of an unknown type, is a 400, in Anthropic's form.
func TestMessagesThreadErrors(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, opts: api.Options{Identify: testPeople}})
	ctx := chatCtx(t)
	alice, bob := anthropicClient(e, "alice-token"), anthropicClient(e, "bob-token")
	hi := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}
	first, err := alice.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: hi,
		System: []anthropic.TextBlockParam{{Text: "Be brief."}}}, createThread()...)
	if err != nil {
		t.Fatal(err)
	}
	var ae *anthropic.Error
	wantError := func(what string, err error, status int, typ, msg string) {
		t.Helper()
		if !errors.As(err, &ae) || ae.StatusCode != status || string(ae.Type()) != typ || !strings.Contains(ae.RawJSON(), msg) {
			t.Errorf("%s: %v, want %d %s %q", what, err, status, typ, msg)
		}
	}
	_, err = bob.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: hi}, continueThread(first.ID)...)
	wantError("bob continuing alice's", err, http.StatusNotFound, "not_found_error", `no thread is kept at message \"`+first.ID+`\"`)
	_, err = alice.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: hi,
		System: []anthropic.TextBlockParam{{Text: "Be long."}}}, continueThread(first.ID)...)
	wantError("another system prompt", err, http.StatusBadRequest, "invalid_request_error", "system: a thread keeps the system")
	_, err = alice.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: hi,
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "x", InputSchema: anthropic.ToolInputSchemaParam{}}}}}, continueThread(first.ID)...)
	wantError("other tools", err, http.StatusBadRequest, "invalid_request_error", "tools: a thread keeps the tools")
	_, err = alice.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: hi},
		option.WithJSONSet("thread", map[string]any{"type": "create"}))
	wantError("no beta header", err, http.StatusBadRequest, "invalid_request_error", "anthropic-beta: message-threads-2026-08-12")
	_, err = alice.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: hi},
		option.WithHeaderAdd("anthropic-beta", threadsBeta), option.WithJSONSet("thread", map[string]any{"type": "fork"}))
	wantError("unknown type", err, http.StatusBadRequest, "invalid_request_error", `thread.type: \"fork\"`)

	// The same system prompt, sent again, is no change; alice's thread goes on.
	second, err := alice.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 10, Messages: hi,
		System: []anthropic.TextBlockParam{{Text: "Be brief."}}}, continueThread(first.ID)...)
	if err != nil || len(second.Content) != 1 || !strings.HasPrefix(second.Content[0].Text, "You said: hi") {
		t.Fatalf("alice continuing her thread: %v", err)
	}
	reqs := e.fake.Requests()
	if last := reqs[len(reqs)-1]; last.System != "Be brief." || len(last.Messages) != 3 {
		t.Errorf("the model got system %q and %d messages", last.System, len(last.Messages))
	}
}
