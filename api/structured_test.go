package api_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// Structured outputs through the compatible endpoints (issue 36): what each API's
// client asks of the answer's format reaches the model in its backend's own form,
// and the JSON the model wrote comes back where the SDK's parsing reads it.

// placeJSON is the answer the fake model writes; placeSchema the schema asked for.
const (
	placeJSON   = `{"city":"Paris","days":3}`
	placeSchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city","days"],"additionalProperties":false}`
)

type place struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

func placeSchemaMap(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(placeSchema), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// onBackend is su with its model on backend: "openai" (Chat Completions),
// "openai-responses" or "anthropic".
func onBackend(su setup, backend string) setup {
	su.anthropic, su.responsesAPI = backend == "anthropic", backend == "openai-responses"
	return su
}

// answersJSON is a model that writes placeJSON, whatever it is asked.
func answersJSON(fakellm.Request) fakellm.Reply { return fakellm.Reply{Text: placeJSON} }

// sameSchema reports whether the schema the model got is placeSchema.
func sameSchema(t *testing.T, got json.RawMessage) bool {
	t.Helper()
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(placeSchema), &b) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// wantFormat checks the format every model request got: the backend's field, and
// a json_schema with placeSchema (named name, strict, on OpenAI's).
func wantFormat(t *testing.T, e *env, param, name string, strict bool) {
	t.Helper()
	reqs := e.fake.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	for _, r := range reqs {
		f := r.Format
		if f == nil || f.Param != param || f.Type != "json_schema" || f.Name != name || f.Strict != strict || !sameSchema(t, f.Schema) {
			t.Errorf("the model got format %+v, want %s json_schema %q strict %v\n%s", f, param, name, strict, r.Raw)
		}
	}
}

// TestChatCompletionsResponseFormat: a chat completion's response_format reaches an
// OpenAI backend as response_format (name, schema, strict) and an Anthropic one as
// output_config.format, streamed or not; the message's content is the model's JSON,
// which the client unmarshals. The token limit reaches each backend under its name.
func TestChatCompletionsResponseFormat(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"openai", "anthropic"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			e := start(t, onBackend(setup{script: answersJSON}, backend))
			ctx := chatCtx(t)
			c := openAIClient(e, "unused")
			params := openai.ChatCompletionNewParams{
				Model:    "any",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Where and how long?")},
				ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
					JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "place", Schema: json.RawMessage(placeSchema), Strict: openai.Bool(true)},
				}},
				MaxCompletionTokens: openai.Int(222),
			}
			res, err := c.Chat.Completions.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			var p place
			if err := json.Unmarshal([]byte(res.Choices[0].Message.Content), &p); err != nil || p.City != "Paris" || p.Days != 3 {
				t.Errorf("content %q: %v", res.Choices[0].Message.Content, err)
			}
			stream := c.Chat.Completions.NewStreaming(ctx, params)
			acc := openai.ChatCompletionAccumulator{}
			for stream.Next() {
				acc.AddChunk(stream.Current())
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			if acc.Choices[0].Message.Content != placeJSON {
				t.Errorf("streamed content %q", acc.Choices[0].Message.Content)
			}
			switch backend {
			case "openai":
				wantFormat(t, e, "response_format", "place", true)
			case "anthropic":
				wantFormat(t, e, "output_config.format", "", false)
				for _, r := range e.fake.Requests() {
					if r.MaxTokens != 222 || r.MaxTokensParam != "max_tokens" {
						t.Errorf("the model got %d as %q", r.MaxTokens, r.MaxTokensParam)
					}
				}
			}
		})
	}
}

// TestResponsesTextFormat: a response's text.format reaches an OpenAI Chat
// Completions backend as response_format, a Responses backend as text.format and an
// Anthropic one as output_config.format; the response's output_text is the model's
// JSON, and the response object says the format it was made in. max_output_tokens
// reaches each backend under its name.
func TestResponsesTextFormat(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"openai", "openai-responses", "anthropic"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			e := start(t, onBackend(setup{script: answersJSON}, backend))
			ctx := chatCtx(t)
			c := openAIClient(e, "unused")
			res, err := c.Responses.New(ctx, responses.ResponseNewParams{
				Model: "any",
				Input: textInput("Where and how long?"),
				Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
					OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: "place", Schema: placeSchemaMap(t), Strict: openai.Bool(true)},
				}},
				MaxOutputTokens: openai.Int(333),
			})
			if err != nil {
				t.Fatal(err)
			}
			var p place
			if err := json.Unmarshal([]byte(res.OutputText()), &p); err != nil || p.City != "Paris" {
				t.Errorf("output_text %q: %v", res.OutputText(), err)
			}
			if res.Text.Format.Type != "json_schema" || res.Text.Format.Name != "place" {
				t.Errorf("the response says text.format %s", res.Text.Format.RawJSON())
			}
			param, name, strict, limit := map[string]string{"openai": "response_format", "openai-responses": "text.format", "anthropic": "output_config.format"}[backend], "place", true,
				map[string]string{"openai": "max_tokens", "openai-responses": "max_output_tokens", "anthropic": "max_tokens"}[backend]
			if backend == "anthropic" {
				name, strict = "", false
			}
			wantFormat(t, e, param, name, strict)
			for _, r := range e.fake.Requests() {
				if r.MaxTokens != 333 || r.MaxTokensParam != limit {
					t.Errorf("the model got %d as %q, want 333 as %q", r.MaxTokens, r.MaxTokensParam, limit)
				}
			}
		})
	}
}

// TestMessagesOutputFormat: a message's output_config.format (the SDK's Beta
// client, with a Go struct as the schema, parses the answer into it) and the older
// output_format reach an Anthropic backend as output_config.format and an OpenAI one
// as a strict response_format; the text block is the model's JSON.
func TestMessagesOutputFormat(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"openai", "anthropic"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			e := start(t, onBackend(setup{script: answersJSON}, backend))
			ctx := chatCtx(t)
			c := anthropicClient(e, "unused")
			var p place
			msg := []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("Where and how long?"))}
			res, err := c.Beta.Messages.New(ctx, anthropic.BetaMessageNewParams{
				Model: "claude-any", MaxTokens: 444, Messages: msg,
				OutputConfig: anthropic.BetaOutputConfigParam{Format: anthropic.BetaJSONOutputFormatParam{Schema: json.RawMessage(placeSchema)}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Content) != 1 || json.Unmarshal([]byte(res.Content[0].Text), &p) != nil || p.City != "Paris" || p.Days != 3 {
				t.Errorf("content %s", res.RawJSON())
			}
			// The older beta field, with the SDK parsing the answer into a struct.
			var parsed struct {
				City string `json:"city"`
				Days int    `json:"days"`
			}
			if _, err := c.Beta.Messages.New(ctx, anthropic.BetaMessageNewParams{
				Model: "claude-any", MaxTokens: 444, Messages: msg,
				//lint:ignore SA1019 the older beta field (output_format) is what this part checks
				OutputFormat: anthropic.BetaJSONOutputFormatParam{Schema: &parsed},
			}); err != nil {
				t.Fatal(err)
			}
			if parsed.City != "Paris" || parsed.Days != 3 {
				t.Errorf("parsed %+v", parsed)
			}
			reqs := e.fake.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests", len(reqs))
			}
			want, name, strict, limit := "output_config.format", "", false, "max_tokens"
			if backend == "openai" {
				want, name, strict = "response_format", "response", true
			}
			if f := reqs[0].Format; f == nil || f.Param != want || f.Name != name || f.Strict != strict || !sameSchema(t, f.Schema) {
				t.Errorf("the model got %+v", f)
			}
			if f := reqs[1].Format; f == nil || f.Param != want || f.Type != "json_schema" || !strings.Contains(string(f.Schema), `"city"`) {
				t.Errorf("the model got %+v", f)
			}
			for _, r := range reqs {
				if r.MaxTokens != 444 || r.MaxTokensParam != limit {
					t.Errorf("the model got %d as %q", r.MaxTokens, r.MaxTokensParam)
				}
			}
		})
	}
}

// TestOutputFormatRefused: a format the backend cannot give (any JSON object, on
// Anthropic's API) is refused with a 400 naming the request's field, in each API's
// error shape, and the model is not asked; a format none of them takes is refused
// likewise, whatever the backend.
func TestOutputFormatRefused(t *testing.T) {
	t.Parallel()
	e := start(t, setup{script: answersJSON, anthropic: true})
	ctx := chatCtx(t)
	c := openAIClient(e, "unused")
	jsonObject := openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	user := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}
	var oe *openai.Error
	_, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "any", Messages: user, ResponseFormat: jsonObject})
	if !errors.As(err, &oe) || oe.StatusCode != http.StatusBadRequest || !strings.Contains(oe.Message, "response_format") || !strings.Contains(oe.Message, "json_schema") {
		t.Errorf("chat completion: %v", err)
	}
	stream := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: "any", Messages: user, ResponseFormat: jsonObject})
	for stream.Next() {
	}
	if err := stream.Err(); !errors.As(err, &oe) || oe.StatusCode != http.StatusBadRequest || !strings.Contains(oe.Message, "response_format") {
		t.Errorf("streamed chat completion: %v", err)
	}
	_, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: "any", Input: textInput("hi"),
		Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}}})
	if !errors.As(err, &oe) || oe.StatusCode != http.StatusBadRequest || !strings.Contains(oe.Message, "text.format") {
		t.Errorf("response: %v", err)
	}
	if n := len(e.fake.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
	for _, bad := range []struct{ path, body, want string }{
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"xml"}}`, `response_format.type`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"schema":{}}}}`, `response_format.json_schema.name`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x"}}}`, `response_format.json_schema.schema`},
		{"/v1/responses", `{"input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":[]}}}`, `text.format.schema`},
		{"/v1/messages", `{"max_tokens":5,"messages":[{"role":"user","content":"hi"}],"output_config":{"format":{"type":"json_object"}}}`, `output_config.format.type`},
		{"/v1/messages", `{"max_tokens":5,"messages":[{"role":"user","content":"hi"}],"output_format":{"type":"json_schema"}}`, `output_format.schema`},
	} {
		r := e.do("POST", bad.path, bad.body)
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, bad.want) {
			t.Errorf("%s %s: %d %s, want 400 naming %s", bad.path, bad.body, r.status, r.body, bad.want)
		}
	}
	// A session's turn takes its content alone: a format there is refused, not
	// dropped (docs/api.md, "Turns").
	var sess struct {
		ID string `json:"id"`
	}
	r := e.do("POST", "/v1/sessions", nil)
	r.want(t, 201)
	if err := json.Unmarshal([]byte(r.body), &sess); err != nil {
		t.Fatal(err)
	}
	e.do("POST", "/v1/sessions/"+sess.ID+"/messages", `{"content":"hi","response_format":{"type":"json_object"}}`).
		want(t, 400, `unknown field \"response_format\"`)
	// Anthropic's shape on /v1/messages.
	e.do("POST", "/v1/messages", `{"max_tokens":5,"messages":[{"role":"user","content":"hi"}],"output_format":{"type":"json_schema"}}`).
		want(t, 400, `"type": "invalid_request_error"`)
}

// TestOutputFormatAnswerOnly: when a format is asked for, what the client parses is
// the answer alone, streamed or not, in every API: a step that wrote text before it
// called a catalog tool ("Let me check.") is not part of it.
func TestOutputFormatAnswerOnly(t *testing.T) {
	t.Parallel()
	script := func(r fakellm.Request) fakellm.Reply {
		if r.Messages[len(r.Messages)-1].Role == "tool" {
			return fakellm.Reply{Text: placeJSON}
		}
		return fakellm.Reply{Text: "Let me check.", Calls: []fakellm.Call{{ID: "call_t", Name: "convert_time", Arguments: `{"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}`}}}
	}
	e := start(t, setup{script: script})
	ctx := chatCtx(t)
	oc, ac := openAIClient(e, "unused"), anthropicClient(e, "unused")

	chat := openai.ChatCompletionNewParams{
		Model:    "any",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Where?")},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "place", Schema: json.RawMessage(placeSchema)},
		}},
	}
	cs := oc.Chat.Completions.NewStreaming(ctx, chat)
	acc := openai.ChatCompletionAccumulator{}
	for cs.Next() {
		acc.AddChunk(cs.Current())
	}
	if err := cs.Err(); err != nil || acc.Choices[0].Message.Content != placeJSON {
		t.Errorf("streamed chat content %q (%v)", acc.Choices[0].Message.Content, err)
	}

	rp := responses.ResponseNewParams{Model: "any", Input: textInput("Where?"),
		Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: "place", Schema: placeSchemaMap(t)},
		}}}
	res, err := oc.Responses.New(ctx, rp)
	if err != nil || res.OutputText() != placeJSON {
		t.Errorf("response output_text %q (%v)", res.OutputText(), err)
	}
	rs := oc.Responses.NewStreaming(ctx, rp)
	var done string
	for rs.Next() {
		if ev := rs.Current(); ev.Type == "response.completed" {
			done = ev.Response.OutputText()
		}
	}
	if err := rs.Err(); err != nil || done != placeJSON {
		t.Errorf("streamed response output_text %q (%v)", done, err)
	}

	ms := ac.Messages.NewStreaming(ctx, anthropic.MessageNewParams{
		Model: "claude-any", MaxTokens: 100,
		Messages:     []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Where?"))},
		OutputConfig: anthropic.OutputConfigParam{Format: anthropic.JSONOutputFormatParam{Schema: placeSchemaMap(t)}},
	})
	var msg anthropic.Message
	for ms.Next() {
		if err := msg.Accumulate(ms.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := ms.Err(); err != nil || len(msg.Content) != 1 || msg.Content[0].Text != placeJSON {
		t.Errorf("streamed message %s (%v)", msg.RawJSON(), err)
	}
}
