package format

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestParseCalls(t *testing.T) {
	tests := []struct {
		name string
		p    Provider
		raw  string
		want []Call // Err compared by substring
	}{
		// OpenAI Chat Completions.
		{"openai parallel", OpenAI, `{"role":"assistant","content":null,"tool_calls":[
			{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}},
			{"id":"call_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]}`,
			[]Call{{ID: "call_1", Name: "get_weather", Args: json.RawMessage(`{"city":"Paris"}`)}, {ID: "call_2", Name: "get_time", Args: json.RawMessage(`{}`)}}},
		{"openai completion", OpenAI, `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"x","arguments":"{\"a\":1}"}}]}}]}`,
			[]Call{{ID: "c", Name: "x", Args: json.RawMessage(`{"a":1}`)}}},
		{"openai bare list", OpenAI, `[{"id":"c","type":"function","function":{"name":"x","arguments":""}}]`,
			[]Call{{ID: "c", Name: "x", Args: json.RawMessage(`{}`)}}},
		{"openai text only", OpenAI, `{"role":"assistant","content":"Hello"}`, []Call{}},
		{"openai no choices", OpenAI, `{"choices":[]}`, []Call{}},
		{"openai empty args", OpenAI, `{"tool_calls":[{"id":"c","type":"function","function":{"name":"x","arguments":"  "}}]}`,
			[]Call{{ID: "c", Name: "x", Args: json.RawMessage(`{}`)}}},
		{"openai null args", OpenAI, `{"tool_calls":[{"id":"c","type":"function","function":{"name":"x","arguments":"null"}}]}`,
			[]Call{{ID: "c", Name: "x", Args: json.RawMessage(`{}`)}}},
		{"openai object args", OpenAI, `{"tool_calls":[{"id":"c","type":"function","function":{"name":"x","arguments":{"a": [1, 2]}}}]}`,
			[]Call{{ID: "c", Name: "x", Args: json.RawMessage(`{"a":[1,2]}`)}}},
		{"openai malformed", OpenAI, `{"tool_calls":[
			{"id":"c1","type":"function","function":{"name":"x","arguments":"{\"city\": \"Par"}},
			{"id":"c2","type":"function","function":{"name":"y","arguments":"[1,2]"}},
			{"id":"c3","type":"function","function":{"name":"z","arguments":"\"Paris\""}},
			{"id":"c4","type":"function","function":{"name":"ok","arguments":"{\"n\":1}"}}]}`,
			[]Call{
				{ID: "c1", Name: "x", Err: `arguments for tool "x" are not valid JSON: unexpected end of JSON input`},
				{ID: "c2", Name: "y", Err: `arguments for tool "y" must be a JSON object, got a JSON array`},
				{ID: "c3", Name: "z", Err: `arguments for tool "z" must be a JSON object, got a JSON string`},
				{ID: "c4", Name: "ok", Args: json.RawMessage(`{"n":1}`)},
			}},
		{"openai missing id", OpenAI, `{"tool_calls":[{"type":"function","function":{"name":"x","arguments":"{}"}}]}`,
			[]Call{{Name: "x", Args: json.RawMessage(`{}`)}}},
		{"openai missing name", OpenAI, `{"tool_calls":[{"id":"c","type":"function","function":{"arguments":"{}"}}]}`,
			[]Call{{ID: "c", Err: "no tool name"}}},
		{"openai custom tool", OpenAI, `{"tool_calls":[{"id":"c","type":"custom","custom":{"name":"x","input":"hi"}}]}`,
			[]Call{{ID: "c", Err: `tool call type "custom" is not supported`}}},

		// OpenAI Responses.
		{"responses output", OpenAIResponses, `[
			{"type":"reasoning","id":"rs_1","summary":[]},
			{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"},
			{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]},
			{"type":"function_call","id":"fc_2","call_id":"call_2","name":"get_time","arguments":""}]`,
			[]Call{{ID: "call_1", Name: "get_weather", Args: json.RawMessage(`{"city":"Paris"}`)}, {ID: "call_2", Name: "get_time", Args: json.RawMessage(`{}`)}}},
		{"responses whole response", OpenAIResponses, `{"id":"resp_1","object":"response","output":[{"type":"function_call","call_id":"c","name":"x","arguments":"{}"}]}`,
			[]Call{{ID: "c", Name: "x", Args: json.RawMessage(`{}`)}}},
		{"responses single item", OpenAIResponses, `{"type":"function_call","call_id":"c","name":"x","arguments":"{\"a\":true}"}`,
			[]Call{{ID: "c", Name: "x", Args: json.RawMessage(`{"a":true}`)}}},
		{"responses malformed", OpenAIResponses, `[{"type":"function_call","call_id":"c1","name":"x","arguments":"not json"},
			{"type":"function_call","call_id":"c2","name":"y","arguments":"[]"}]`,
			[]Call{{ID: "c1", Name: "x", Err: `arguments for tool "x" are not valid JSON: invalid character 'o' in literal null`}, {ID: "c2", Name: "y", Err: "must be a JSON object, got a JSON array"}}},
		{"responses missing id", OpenAIResponses, `[{"type":"function_call","name":"x","arguments":"{}"}]`,
			[]Call{{Name: "x", Args: json.RawMessage(`{}`)}}},
		{"responses no calls", OpenAIResponses, `{"output":[{"type":"message","content":[]}]}`, []Call{}},

		// Anthropic.
		{"anthropic message", Anthropic, `{"id":"msg_1","type":"message","role":"assistant","stop_reason":"tool_use","content":[
			{"type":"text","text":"Let me check."},
			{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}},
			{"type":"tool_use","id":"toolu_2","name":"get_time","input":{}}]}`,
			[]Call{{ID: "toolu_1", Name: "get_weather", Args: json.RawMessage(`{"city":"Paris"}`)}, {ID: "toolu_2", Name: "get_time", Args: json.RawMessage(`{}`)}}},
		{"anthropic content array", Anthropic, `[{"type":"tool_use","id":"t","name":"x","input":{"a":1}}]`,
			[]Call{{ID: "t", Name: "x", Args: json.RawMessage(`{"a":1}`)}}},
		{"anthropic single block", Anthropic, `{"type":"tool_use","id":"t","name":"x","input":{}}`,
			[]Call{{ID: "t", Name: "x", Args: json.RawMessage(`{}`)}}},
		{"anthropic malformed", Anthropic, `[{"type":"tool_use","id":"t1","name":"x","input":[1]},
			{"type":"tool_use","id":"t2","name":"y","input":"{\"a\":1}"},
			{"type":"tool_use","id":"t3","name":"z"}]`,
			[]Call{{ID: "t1", Name: "x", Err: "must be a JSON object, got a JSON array"}, {ID: "t2", Name: "y", Err: "must be a JSON object, got a JSON string"}, {ID: "t3", Name: "z", Args: json.RawMessage(`{}`)}}},
		{"anthropic missing id", Anthropic, `[{"type":"tool_use","name":"x","input":{}}]`, []Call{{Name: "x", Args: json.RawMessage(`{}`)}}},
		{"anthropic string content", Anthropic, `{"role":"assistant","content":"plain"}`, []Call{}},
		{"anthropic empty", Anthropic, ``, []Call{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCalls(tt.p, json.RawMessage(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || len(got) != len(tt.want) {
				t.Fatalf("got %d calls %+v, want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.ID != w.ID || g.Name != w.Name {
					t.Errorf("call %d: id/name = %q/%q, want %q/%q", i, g.ID, g.Name, w.ID, w.Name)
				}
				if w.Err == "" {
					if g.Err != "" || !reflect.DeepEqual(g.Args, w.Args) || g.ErrorResult() != nil {
						t.Errorf("call %d: args %s err %q, want args %s", i, g.Args, g.Err, w.Args)
					}
					continue
				}
				if !strings.Contains(g.Err, w.Err) || g.Args != nil {
					t.Errorf("call %d: err %q (args %s), want it to contain %q", i, g.Err, g.Args, w.Err)
				}
				res := g.ErrorResult()
				if res == nil || !res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != g.Err {
					t.Errorf("call %d: ErrorResult = %+v", i, res)
				}
			}
		})
	}
}

func TestParseCallsBadShape(t *testing.T) {
	tests := []struct {
		p   Provider
		raw string
	}{
		{OpenAI, `{"tool_calls":"nope"}`},
		{OpenAI, `{"tool_calls":[`},
		{OpenAI, `42`},
		{OpenAIResponses, `{"output":{}}`},
		{Anthropic, `{"content":[1]}`},
		{Anthropic, `{"content":{"type":"tool_use"}}`},
		{MCP, `{}`},
		{Provider("x"), `{}`},
	}
	for _, tt := range tests {
		if calls, err := ParseCalls(tt.p, json.RawMessage(tt.raw)); err == nil {
			t.Errorf("%s %s: no error, got %+v", tt.p, tt.raw, calls)
		}
	}
}

// TestCallJSON pins the Call's own JSON (used by the CLI and events).
func TestCallJSON(t *testing.T) {
	b, _ := json.Marshal([]Call{{ID: "a", Name: "x", Args: json.RawMessage(`{}`)}, {ID: "b", Name: "y", Err: "bad"}})
	jsonEqual(t, b, `[{"id":"a","name":"x","args":{}},{"id":"b","name":"y","error":"bad"}]`)
}
