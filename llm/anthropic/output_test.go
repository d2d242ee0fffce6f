package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/llm/llmtest"
)

// TestOutputFormat: Request.Output with a schema reaches the API as
// output_config.format (json_schema, the schema as written), and the answer's JSON
// comes back as text; without a schema (any JSON object), which the API has no form
// of, Generate refuses with an *llm.UnsupportedError naming Output and sends
// nothing.
func TestOutputFormat(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)
	fake := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: `{"city":"Paris"}`}))
	m := newModel(t, fake.URL, anthropic.Options{})
	req := llmtest.UserSays("where?")
	req.Output = &llm.Output{Schema: schema, Name: "place", Strict: true}
	res, err := m.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Text != `{"city":"Paris"}` {
		t.Errorf("text %q", res.Message.Text)
	}
	got := fake.Requests()[0]
	if f := got.Format; f == nil || f.Param != "output_config.format" || f.Type != "json_schema" || string(f.Schema) != string(schema) {
		t.Errorf("format sent %+v\n%s", f, got.Raw)
	}
	if got.MaxTokensParam != "max_tokens" {
		t.Errorf("token limit sent as %q", got.MaxTokensParam)
	}

	req.Output = &llm.Output{}
	_, err = m.Generate(context.Background(), req, nil)
	var ue *llm.UnsupportedError
	if !errors.As(err, &ue) || ue.Field != "Output" || ue.Provider != "anthropic" {
		t.Fatalf("err = %v, want an UnsupportedError of Output", err)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("%d requests sent, want the first only", n)
	}
}
