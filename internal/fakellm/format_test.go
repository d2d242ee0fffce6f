package fakellm_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// TestFormats: each wire format's structured output and token limit are recorded
// as the request put them (Request.Format, MaxTokensParam), and a format the API
// would refuse gets its 400 without reaching the script.
func TestFormats(t *testing.T) {
	const schema = `{"type":"object"}`
	openAI := fakellm.StartOpenAI(t, func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Text: "{}"} })
	anthropic := fakellm.StartAnthropic(t, func(fakellm.Request) fakellm.Reply { return fakellm.Reply{Text: "{}"} })
	cases := []struct {
		name, path, body string
		status           int
		format           *fakellm.Format // when 200
		limit            string
		wantErr          string // when 400
	}{
		{"chat json_schema", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":9,
			"response_format":{"type":"json_schema","json_schema":{"name":"n","description":"d","schema":` + schema + `,"strict":true}}}`,
			200, &fakellm.Format{Param: "response_format", Type: "json_schema", Name: "n", Description: "d", Strict: true, Schema: []byte(schema)}, "max_completion_tokens", ""},
		{"chat json_object", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":9,"response_format":{"type":"json_object"}}`,
			200, &fakellm.Format{Param: "response_format", Type: "json_object"}, "max_tokens", ""},
		{"chat text", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"text"}}`, 200, nil, "", ""},
		{"chat unnamed", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"schema":{}}}}`,
			400, nil, "", "response_format.json_schema.name"},
		{"chat bad type", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"xml"}}`,
			400, nil, "", "response_format.type"},
		{"responses json_schema", "/v1/responses", `{"model":"m","input":"hi","max_output_tokens":9,"text":{"format":{"type":"json_schema","name":"n","schema":` + schema + `}}}`,
			200, &fakellm.Format{Param: "text.format", Type: "json_schema", Name: "n", Schema: []byte(schema)}, "max_output_tokens", ""},
		{"responses no schema", "/v1/responses", `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"n"}}}`,
			400, nil, "", "text.format.schema"},
		{"anthropic output_config", "/v1/messages", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"output_config":{"format":{"type":"json_schema","schema":` + schema + `}}}`,
			200, &fakellm.Format{Param: "output_config.format", Type: "json_schema", Schema: []byte(schema)}, "max_tokens", ""},
		{"anthropic output_format", "/v1/messages", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"output_format":{"type":"json_schema","schema":` + schema + `}}`,
			200, &fakellm.Format{Param: "output_format", Type: "json_schema", Schema: []byte(schema)}, "max_tokens", ""},
		{"anthropic json_object", "/v1/messages", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"output_config":{"format":{"type":"json_object"}}}`,
			400, nil, "", "output_config.format.type"},
		{"anthropic no schema", "/v1/messages", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}],"output_format":{"type":"json_schema"}}`,
			400, nil, "", "output_format.schema: Field required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := openAI
			if c.path == "/v1/messages" {
				srv = anthropic
			}
			before := len(srv.Requests())
			url := strings.TrimSuffix(srv.URL, "/v1") + c.path
			req, _ := http.NewRequest("POST", url, strings.NewReader(c.body))
			req.Header.Set("content-type", "application/json")
			req.Header.Set("anthropic-version", "2023-06-01")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Fatalf("status %d: %s", res.StatusCode, body)
			}
			reqs := srv.Requests()
			if c.status != 200 {
				if !strings.Contains(string(body), c.wantErr) || len(reqs) != before {
					t.Errorf("body %s, want %q, and no request recorded", body, c.wantErr)
				}
				return
			}
			got := reqs[len(reqs)-1]
			if got.MaxTokensParam != c.limit {
				t.Errorf("limit param %q, want %q", got.MaxTokensParam, c.limit)
			}
			f, w := got.Format, c.format
			if (f == nil) != (w == nil) || f != nil && (f.Param != w.Param || f.Type != w.Type || f.Name != w.Name ||
				f.Description != w.Description || f.Strict != w.Strict || string(f.Schema) != string(w.Schema)) {
				t.Errorf("format %+v, want %+v", f, w)
			}
		})
	}
	http.DefaultClient.CloseIdleConnections()
}

// TestRulesStructured: with a format asked, a user's JSON object is the answer;
// without one, or when the message is no JSON object, the answer is the usual echo.
func TestRulesStructured(t *testing.T) {
	rules := fakellm.Rules()
	user := func(text string, f *fakellm.Format) fakellm.Request {
		return fakellm.Request{Messages: []fakellm.Message{{Role: "user", Text: text}}, Format: f}
	}
	asked := &fakellm.Format{Param: "response_format", Type: "json_schema", Name: "time"}
	for _, c := range []struct {
		req  fakellm.Request
		want string
	}{
		{user(` {"city": "Tokyo"} `, asked), `{"city": "Tokyo"}`},
		{user(`{"city": "Tokyo"}`, nil), `You said: {"city": "Tokyo"}`},
		{user(`[1, 2]`, asked), `You said: [1, 2]`},
		{user(`{"city": `, asked), `You said: {"city": `},
	} {
		if got := rules(c.req).Text; got != c.want {
			t.Errorf("Rules(%q, format %v) = %q, want %q", c.req.Messages[0].Text, c.req.Format != nil, got, c.want)
		}
	}
}
