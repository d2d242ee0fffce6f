package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
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

// redirect sends every request to the server at base (http://host:port), whatever
// host it names: OpenAI's own host, served by a fake.
type redirect struct {
	host string
	tr   *http.Transport
}

func (rd redirect) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = "http", rd.host, ""
	return rd.tr.RoundTrip(r)
}

// TestMaxTokensParam: the bound reaches OpenAI's own host as max_completion_tokens
// (which its reasoning models require) and any other as max_tokens, unless
// Options.MaxTokensParam names the field; the Responses API's is max_output_tokens.
func TestMaxTokensParam(t *testing.T) {
	cases := []struct {
		name, base, param, api, want string
	}{
		{"openai host", openai.DefaultBaseURL, "", "", "max_completion_tokens"},
		{"azure host", "https://sb.openai.azure.com/v1", "", "", "max_completion_tokens"},
		{"openai host, named", openai.DefaultBaseURL, openai.ParamMaxTokens, "", "max_tokens"},
		{"compatible host, named", "", openai.ParamMaxCompletionTokens, "", "max_completion_tokens"},
		{"compatible host", "", "", "", "max_tokens"},
		{"responses", "", openai.ParamMaxTokens, openai.APIResponses, "max_output_tokens"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Text: "ok"}))
			base := c.base
			if base == "" {
				base = fake.URL
			}
			u, _ := url.Parse(fake.URL)
			tr := http.DefaultTransport.(*http.Transport).Clone()
			t.Cleanup(tr.CloseIdleConnections)
			m, err := openai.New("fake-model", &openai.Options{BaseURL: base, APIKey: testKey, MaxTokensParam: c.param, API: c.api,
				HTTPClient: &http.Client{Transport: redirect{u.Host, tr}}})
			if err != nil {
				t.Fatal(err)
			}
			req := llmtest.UserSays("hi")
			req.MaxTokens = 77
			if _, err := m.Generate(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			got := fake.Requests()[0]
			if got.MaxTokens != 77 || got.MaxTokensParam != c.want {
				t.Errorf("sent %d as %q, want 77 as %q\n%s", got.MaxTokens, got.MaxTokensParam, c.want, got.Raw)
			}
		})
	}
	if _, err := openai.New("m", &openai.Options{MaxTokensParam: "max_output_tokens"}); err == nil {
		t.Error("New took MaxTokensParam max_output_tokens")
	}
}
