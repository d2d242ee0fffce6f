package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/llm/openai"
)

// TestOutputFormat: Request.Output reaches the server in each API's own form —
// Chat Completions' response_format, the Responses API's text.format — a schema
// as it was written, named (OpenAI requires a name: "response" when none), strict
// when asked; no schema is json_object; and the answer's JSON comes back as text.
func TestOutputFormat(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)
	cases := []struct {
		name, api string
		out       *llm.Output
		want      fakellm.Format
	}{
		{"chat schema", openai.APIChat, &llm.Output{Schema: schema, Name: "place", Description: "a place", Strict: true},
			fakellm.Format{Param: "response_format", Type: "json_schema", Name: "place", Description: "a place", Strict: true, Schema: schema}},
		{"chat unnamed", openai.APIChat, &llm.Output{Schema: schema},
			fakellm.Format{Param: "response_format", Type: "json_schema", Name: "response", Schema: schema}},
		{"chat json object", openai.APIChat, &llm.Output{}, fakellm.Format{Param: "response_format", Type: "json_object"}},
		{"responses schema", openai.APIResponses, &llm.Output{Schema: schema, Name: "place", Strict: true},
			fakellm.Format{Param: "text.format", Type: "json_schema", Name: "place", Strict: true, Schema: schema}},
		{"responses json object", openai.APIResponses, &llm.Output{}, fakellm.Format{Param: "text.format", Type: "json_object"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Text: `{"city":"Paris"}`}, fakellm.Reply{Text: "plain"}))
			m := newModel(t, fake.URL, func(o *openai.Options) { o.API = c.api })
			req := llmtest.UserSays("where?")
			req.Output = c.out
			res, err := m.Generate(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Message.Text != `{"city":"Paris"}` {
				t.Errorf("text %q", res.Message.Text)
			}
			if _, err := m.Generate(context.Background(), llmtest.UserSays("again"), nil); err != nil {
				t.Fatal(err)
			}
			reqs := fake.Requests()
			got := reqs[0].Format
			if got == nil || got.Param != c.want.Param || got.Type != c.want.Type || got.Name != c.want.Name ||
				got.Description != c.want.Description || got.Strict != c.want.Strict || string(got.Schema) != string(c.want.Schema) {
				t.Errorf("format sent %+v, want %+v\n%s", got, c.want, reqs[0].Raw)
			}
			if reqs[1].Format != nil {
				t.Errorf("a request without Output sent %+v", reqs[1].Format)
			}
		})
	}
}
