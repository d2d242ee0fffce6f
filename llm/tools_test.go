package llm_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/tool"
)

// TestDefinitionsLeaveOutWhatTheProviderRefuses: a tool whose schema a provider
// refuses is left out of the definitions, said once, and the others are kept.
func TestDefinitionsLeaveOutWhatTheProviderRefuses(t *testing.T) {
	tools := []tool.Tool{
		{Name: "good", Description: "fine", InputSchema: json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string"}}}`)},
		{Name: "odd", Description: "top-level allOf of anyOf", InputSchema: json.RawMessage(`{"type": "object", "allOf": [{"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}]}`)},
		{Name: "also_good", Description: "fine", InputSchema: json.RawMessage(`{"type": "object"}`)},
	}
	for _, p := range []format.Provider{format.OpenAI, format.Anthropic} {
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		d := &llm.Definitions{Provider: p}
		for range 2 {
			defs := d.Of(tools, log)
			var names []string
			for _, def := range defs {
				var v struct {
					Name     string `json:"name"`
					Function struct {
						Name string `json:"name"`
					} `json:"function"`
				}
				if err := json.Unmarshal(def, &v); err != nil {
					t.Fatal(err)
				}
				names = append(names, v.Name+v.Function.Name)
			}
			if got := strings.Join(names, ","); got != "good,also_good" {
				t.Errorf("%s: definitions of %s, want good,also_good", p, got)
			}
		}
		if n := strings.Count(logs.String(), "tool left out of model requests"); n != 1 || !strings.Contains(logs.String(), "tool=odd") {
			t.Errorf("%s: %d warnings, want one naming odd:\n%s", p, n, logs.String())
		}
	}
}

// TestCallParse: a call's arguments text is read by format's one reader, whatever
// the backend: an object compacted, empty as {}, anything else Err in format's words.
func TestCallParse(t *testing.T) {
	for _, tt := range []struct {
		args, want, err string
	}{
		{`{"city": "Paris"}`, `{"city":"Paris"}`, ""},
		{"", `{}`, ""},
		{`{"city":`, "", `arguments for tool "weather" are not valid JSON`},
		{`"Paris"`, "", `arguments for tool "weather" must be a JSON object, got a JSON string`},
	} {
		c := llm.Call{ID: "c1", Name: "weather", Arguments: tt.args}
		got := c.Parse()
		if got.ID != "c1" || got.Name != "weather" || got.Arguments != tt.args || string(got.Args) != tt.want || !strings.Contains(got.Err, tt.err) || (tt.err == "") != (got.Err == "") {
			t.Errorf("%q: parsed as %+v, want args %s, error %q", tt.args, got, tt.want, tt.err)
		}
	}
}
