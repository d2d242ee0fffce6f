package api_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

func textInput(s string) responses.ResponseNewParamsInputUnion {
	return responses.ResponseNewParamsInputUnion{OfString: openai.String(s)}
}

func itemsInput(items ...responses.ResponseInputItemUnionParam) responses.ResponseNewParamsInputUnion {
	return responses.ResponseNewParamsInputUnion{OfInputItemList: items}
}

// callOutput is a function_call_output item answering call id.
func callOutput(id, output string) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(output)
	item.OfFunctionCallOutput.CallID = openai.String(id)
	return item
}

var lookupOrder = responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
	Name:        "lookup_order",
	Description: openai.String("Looks an order up in the client's database."),
	Parameters:  map[string]any{"type": "object", "properties": map[string]any{"order": map[string]any{"type": "string"}}},
	Strict:      openai.Bool(false),
}}

// TestResponses: the official client's response runs the MCP tool the model calls
// inside Switchboard and gets the final answer as a message item, with the usage of
// every step; the instructions reach the model, the client's model name is echoed,
// and the response is kept: GET /v1/responses/{id} answers it again.
func TestResponses(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, opts: api.Options{Token: "secret", Model: "test-model"}})
	ctx := chatCtx(t)
	c := openAIClient(e, "secret")
	res, err := c.Responses.New(ctx, responses.ResponseNewParams{
		Model:           "any-name",
		Instructions:    openai.String("Be brief."),
		Input:           textInput(convertCall),
		MaxOutputTokens: openai.Int(321),
		Temperature:     openai.Float(0.25),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.ID, "resp_") || res.Object != "response" || res.Model != "any-name" || res.CreatedAt == 0 || res.Status != "completed" {
		t.Errorf("id %q object %q model %q created %v status %q", res.ID, res.Object, res.Model, res.CreatedAt, res.Status)
	}
	if len(res.Output) != 1 || res.Output[0].Type != "message" || res.Output[0].Role != "assistant" || res.OutputText() != convertAnswer {
		t.Errorf("output %s", res.RawJSON())
	}
	if res.Usage.InputTokens <= 0 || res.Usage.OutputTokens <= 0 || res.Usage.TotalTokens != res.Usage.InputTokens+res.Usage.OutputTokens {
		t.Errorf("usage %+v", res.Usage)
	}
	if res.Instructions.OfString != "Be brief." || !stored(t, res) {
		t.Errorf("instructions %+v, stored %v", res.Instructions, stored(t, res))
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
	got, err := c.Responses.Get(ctx, res.ID, responses.ResponseGetParams{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != res.ID || got.OutputText() != convertAnswer || got.Usage.TotalTokens != res.Usage.TotalTokens || got.Output[0].ID != res.Output[0].ID {
		t.Errorf("GET answered %s", got.RawJSON())
	}
	_, err = c.Responses.Get(ctx, "resp_nothing", responses.ResponseGetParams{})
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound || ae.Code != "not_found" {
		t.Errorf("GET of no response: %v", err)
	}

	// A session is not a response.
	var sess struct {
		ID string `json:"id"`
	}
	e.do("POST", "/v1/sessions", map[string]any{}).decode(t, &sess)
	if _, err = c.Responses.Get(ctx, sess.ID, responses.ResponseGetParams{}); !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound {
		t.Errorf("GET of a session as a response: %v", err)
	}

	// "store": false keeps nothing.
	res, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: textInput("hello"), Store: openai.Bool(false)})
	if err != nil {
		t.Fatal(err)
	}
	if stored(t, res) || !strings.HasPrefix(res.OutputText(), "You said: hello") {
		t.Errorf("unstored response %s", res.RawJSON())
	}
	if _, err = c.Responses.Get(ctx, res.ID, responses.ResponseGetParams{}); !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound {
		t.Errorf("GET of an unstored response: %v", err)
	}
}

// TestResponsesStream: streamed, the events come numbered from 0 in OpenAI's order
// (created, in_progress, the message's item, part, several text deltas, done events,
// completed), and the deltas make the completed response's text.
func TestResponsesStream(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	ctx := chatCtx(t)
	c := openAIClient(e, "unused")
	stream := c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "test-model", Input: textInput(convertCall)})
	var types []string
	var text strings.Builder
	var done responses.Response
	for stream.Next() {
		ev := stream.Current()
		if ev.SequenceNumber != int64(len(types)) {
			t.Errorf("event %d (%s) has sequence_number %d", len(types), ev.Type, ev.SequenceNumber)
		}
		types = append(types, ev.Type)
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.completed":
			done = ev.AsResponseCompleted().Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	deltas := 0
	for _, typ := range types {
		if typ == "response.output_text.delta" {
			deltas++
		}
	}
	want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added", "response.output_text.delta"}
	tail := []string{"response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"}
	if deltas < 2 || len(types) != len(want)+len(tail)+deltas-1 || !slices.Equal(types[:len(want)], want) || !slices.Equal(types[len(types)-len(tail):], tail) {
		t.Errorf("events %v", types)
	}
	if text.String() != convertAnswer || done.OutputText() != convertAnswer || done.Status != "completed" || done.Usage.TotalTokens <= 0 {
		t.Errorf("streamed %q, completed %s", text.String(), done.RawJSON())
	}
	got, err := c.Responses.Get(ctx, done.ID, responses.ResponseGetParams{})
	if err != nil || got.OutputText() != convertAnswer {
		t.Errorf("GET of a streamed response: %v %+v", err, got)
	}
}

// TestResponsesClientTool: a function tool the request brings is the client's: its
// call comes back as a function_call item, not run, streamed or not; its output sent
// with previous_response_id gets the model's answer, and so does the whole
// conversation sent back as items without one.
func TestResponsesClientTool(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	ctx := chatCtx(t)
	c := openAIClient(e, "unused")
	params := responses.ResponseNewParams{Model: "test-model", Input: textInput(`call lookup_order {"order": "A-17"}`),
		Tools: []responses.ToolUnionParam{lookupOrder}}
	res, err := c.Responses.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Output) != 1 || res.Output[0].Type != "function_call" {
		t.Fatalf("output %s", res.RawJSON())
	}
	call := res.Output[0].AsFunctionCall()
	if call.Name != "lookup_order" || call.Arguments != `{"order": "A-17"}` || call.CallID == "" || call.Status != "completed" {
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

	// Streamed, the same call arrives as a function_call item with its arguments.
	stream := c.Responses.NewStreaming(ctx, params)
	var types []string
	var args string
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		if ev.Type == "response.function_call_arguments.done" {
			args = ev.Arguments
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done", "response.completed"}
	if !slices.Equal(types, want) || args != `{"order": "A-17"}` {
		t.Errorf("events %v, arguments %q", types, args)
	}

	// The client runs it and sends the output on from the response.
	next, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "test-model", PreviousResponseID: openai.String(res.ID),
		Input: itemsInput(callOutput(call.CallID, "shipped on Monday")), Tools: params.Tools})
	if err != nil {
		t.Fatal(err)
	}
	if next.OutputText() != "lookup_order: shipped on Monday" || next.PreviousResponseID != res.ID {
		t.Errorf("continued: %s", next.RawJSON())
	}
	// Or it sends the whole conversation back, without storing anything.
	whole, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "test-model", Store: openai.Bool(false), Tools: params.Tools,
		Input: itemsInput(
			responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
				{OfInputText: &responses.ResponseInputTextParam{Text: `call lookup_order `}},
				{OfInputText: &responses.ResponseInputTextParam{Text: `{"order": "A-17"}`}},
			}, responses.EasyInputMessageRoleUser),
			responses.ResponseInputItemParamOfFunctionCall(call.Arguments, call.CallID, call.Name),
			callOutput(call.CallID, "shipped on Tuesday"),
		)})
	if err != nil {
		t.Fatal(err)
	}
	if whole.OutputText() != "lookup_order: shipped on Tuesday" {
		t.Errorf("whole conversation: %s", whole.RawJSON())
	}
}

// TestResponsesPrevious: previous_response_id continues the conversation server-side:
// the model gets the earlier turn's history, tool calls included. With identities a
// response is its creator's: another person's id is a 404 to continue or to get, as
// one that does not exist; an admin gets it.
func TestResponsesPrevious(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, opts: api.Options{Identify: testPeople}})
	ctx := chatCtx(t)
	alice := openAIClient(e, "alice-token")
	first, err := alice.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: textInput(convertCall)})
	if err != nil {
		t.Fatal(err)
	}
	second, err := alice.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: textInput("thanks"), PreviousResponseID: openai.String(first.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(second.OutputText(), "You said: thanks") {
		t.Errorf("second answer %q", second.OutputText())
	}
	reqs := e.fake.Requests()
	last := reqs[len(reqs)-1].Messages
	var roles []string
	for _, m := range last {
		roles = append(roles, m.Role)
	}
	if !slices.Equal(roles, []string{"user", "assistant", "tool", "assistant", "user"}) || last[0].Text != convertCall || last[3].Text != convertAnswer {
		t.Errorf("the model got %+v", last)
	}

	bob := openAIClient(e, "bob-token")
	var ae *openai.Error
	_, err = bob.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: textInput("hi"), PreviousResponseID: openai.String(first.ID)})
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound || ae.Param != "previous_response_id" {
		t.Errorf("bob continuing alice's: %v", err)
	}
	_, err = bob.Responses.Get(ctx, first.ID, responses.ResponseGetParams{})
	var missing *openai.Error
	_, merr := bob.Responses.Get(ctx, "resp_"+strings.Repeat("0", 48), responses.ResponseGetParams{})
	if !errors.As(err, &ae) || !errors.As(merr, &missing) || ae.StatusCode != http.StatusNotFound ||
		strings.Replace(ae.Message, first.ID, "ID", 1) != strings.Replace(missing.Message, "resp_"+strings.Repeat("0", 48), "ID", 1) {
		t.Errorf("bob getting alice's: %v; a missing one: %v", err, merr)
	}
	carol := openAIClient(e, "carol-token")
	if got, err := carol.Responses.Get(ctx, second.ID, responses.ResponseGetParams{}); err != nil || got.OutputText() != second.OutputText() {
		t.Errorf("carol (admin) getting alice's: %v", err)
	}
}

// TestResponsesErrors: a request Switchboard cannot take is a 400 in OpenAI's error
// form naming the parameter at fault; without a model, 503.
func TestResponsesErrors(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	ctx := chatCtx(t)
	c := openAIClient(e, "unused")
	for _, tc := range []struct {
		name   string
		params responses.ResponseNewParams
		param  string
		msg    string
	}{
		{"no input", responses.ResponseNewParams{Model: "m"}, "input", "required"},
		{"image", responses.ResponseNewParams{Model: "m", Input: itemsInput(responses.ResponseInputItemParamOfMessage(
			responses.ResponseInputMessageContentListParam{{OfInputImage: &responses.ResponseInputImageParam{ImageURL: openai.String("https://x/y.png")}}},
			responses.EasyInputMessageRoleUser))},
			"input[0].content[0].type", "only text parts"},
		{"unknown call", responses.ResponseNewParams{Model: "m", Input: itemsInput(callOutput("call_x", "hi"))}, "input[0].call_id", "answers no function call"},
		{"hosted tool", responses.ResponseNewParams{Model: "m", Input: textInput("hi"),
			Tools: []responses.ToolUnionParam{{OfWebSearch: &responses.WebSearchToolParam{Type: responses.WebSearchToolTypeWebSearch}}}},
			"tools[0].type", `only "function" tools`},
		{"bad function name", responses.ResponseNewParams{Model: "m", Input: textInput("hi"),
			Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "no spaces", Strict: openai.Bool(false)}}}},
			"tools[0].name", "function name"},
		{"max tokens", responses.ResponseNewParams{Model: "m", Input: textInput("hi"), MaxOutputTokens: openai.Int(0)}, "max_output_tokens", "at least 1"},
		{"no previous", responses.ResponseNewParams{Model: "m", Input: textInput("hi"), PreviousResponseID: openai.String("resp_none")}, "previous_response_id", "no response"},
	} {
		_, err := c.Responses.New(ctx, tc.params)
		var ae *openai.Error
		want := http.StatusBadRequest
		if tc.name == "no previous" {
			want = http.StatusNotFound
		}
		if !errors.As(err, &ae) || ae.StatusCode != want || ae.Param != tc.param || ae.Type != "invalid_request_error" || !strings.Contains(ae.Message, tc.msg) {
			t.Errorf("%s: %v (param %q)", tc.name, err, paramOf(err))
		}
	}
	e.do("POST", "/v1/responses", `{"input": [`).want(t, 400, "malformed JSON")
	e.do("POST", "/v1/responses", map[string]any{"input": "hi", "stream": "yes"}).want(t, 400, `"param": "stream"`)

	none := start(t, setup{})
	nc := openAIClient(none, "unused")
	_, err := nc.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: textInput("hi")})
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusServiceUnavailable || ae.Code != "no_model" {
		t.Errorf("no model: %v", err)
	}
}

// stored is the response's "store", which the client's Response leaves out.
func stored(t *testing.T, res *responses.Response) bool {
	t.Helper()
	var o struct {
		Store *bool `json:"store"`
	}
	if err := json.Unmarshal([]byte(res.RawJSON()), &o); err != nil || o.Store == nil {
		t.Fatalf("no store in %s: %v", res.RawJSON(), err)
	}
	return *o.Store
}

func paramOf(err error) string {
	var ae *openai.Error
	if errors.As(err, &ae) {
		return ae.Param
	}
	return ""
}

// TestResponsesFailures: a model that fails is a 502 the client reads, streamed or
// not; a tool that needs a person's approval is refused, and the model told why.
func TestResponsesFailures(t *testing.T) {
	t.Parallel()
	e := start(t, setup{
		conv: conversation.Options{NeedsApproval: func(c agent.Call) bool { return c.Name == "convert_time" }},
		script: func(r fakellm.Request) fakellm.Reply {
			if last := r.Messages[len(r.Messages)-1]; last.Role == "user" && last.Text == "fail" {
				return fakellm.Reply{Status: 500, ErrorMessage: "the model broke"}
			}
			if r.Messages[0].Text == "fail later" {
				if len(r.Messages) == 1 {
					return fakellm.Reply{Text: "Let me look.", Calls: []fakellm.Call{{Name: "convert_time", Arguments: `{"time": "2026-01-02T03:04:05Z", "to": "UTC"}`}}}
				}
				return fakellm.Reply{Status: 500, ErrorMessage: "the model broke later"}
			}
			return fakellm.Rules()(r)
		},
	})
	ctx := chatCtx(t)
	c := openAIClient(e, "unused")
	params := responses.ResponseNewParams{Model: "m", Input: textInput("fail")}
	_, err := c.Responses.New(ctx, params)
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadGateway || ae.Code != "model_failed" || !strings.Contains(ae.Message, "the model broke") {
		t.Errorf("model failing: %v", err)
	}
	stream := c.Responses.NewStreaming(ctx, params)
	for stream.Next() {
		t.Errorf("an event: %s", stream.Current().RawJSON())
	}
	if err := stream.Err(); !errors.As(err, &ae) || ae.StatusCode != http.StatusBadGateway {
		t.Errorf("model failing, streamed: %v", err)
	}
	// Failing after the stream began: the message streamed so far is done, then
	// response.failed says why.
	stream = c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "m", Input: textInput("fail later")})
	var types []string
	var failed responses.Response
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		if ev.Type == "response.failed" {
			failed = ev.AsResponseFailed().Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if n := len(types); n < 2 || types[n-2] != "response.output_item.done" || types[n-1] != "response.failed" ||
		failed.Status != "failed" || failed.Error.Code != "model_failed" || !strings.Contains(failed.Error.Message, "the model broke later") || failed.OutputText() != "Let me look." {
		t.Errorf("events %v, failed %s", types, failed.RawJSON())
	}

	res, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: textInput(convertCall)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.OutputText(); !strings.Contains(got, "convert_time failed: Error: the call to \"convert_time\" was denied: the user must approve convert_time, which /v1/responses cannot ask for") {
		t.Errorf("answer %q", got)
	}
}
