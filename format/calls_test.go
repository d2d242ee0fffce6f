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

// TestCallRoundTrip: calls written by CallMessage (and CallItem) read back by
// ParseCalls are the same calls, per provider: ids, names, arguments text, the
// arguments object, and for malformed arguments the same Err that ParseCall gives
// the text. Anthropic's input can only be an object, so a malformed call goes back
// as {}.
func TestCallRoundTrip(t *testing.T) {
	calls := []Call{
		{ID: "c1", Name: "get_weather", Arguments: `{"city": "Paris"}`},
		{ID: "c2", Name: "get_time", Arguments: "  "},
		{ID: "c3", Name: "count", Args: json.RawMessage(`{"n":1}`)},
		{ID: "c4", Name: "cut", Arguments: `{"city": "Par`},
		{ID: "c5", Name: "list", Arguments: `[1, 2]`},
		{ID: "c6", Name: "html", Arguments: `{"q":"<b>&</b>"}`},
	}
	asText := []Call{ // OpenAI and Responses: the arguments string goes back as sent
		{ID: "c1", Name: "get_weather", Arguments: `{"city": "Paris"}`, Args: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "c2", Name: "get_time", Arguments: "{}", Args: json.RawMessage(`{}`)},
		{ID: "c3", Name: "count", Arguments: `{"n":1}`, Args: json.RawMessage(`{"n":1}`)},
		{ID: "c4", Name: "cut", Arguments: `{"city": "Par`, Err: `arguments for tool "cut" are not valid JSON: unexpected end of JSON input; send the arguments as one JSON object`},
		{ID: "c5", Name: "list", Arguments: `[1, 2]`, Err: `arguments for tool "list" must be a JSON object, got a JSON array`},
		{ID: "c6", Name: "html", Arguments: `{"q":"<b>&</b>"}`, Args: json.RawMessage(`{"q":"<b>&</b>"}`)},
	}
	asObject := []Call{ // Anthropic: input is an object, {} for arguments that are not one
		{ID: "c1", Name: "get_weather", Arguments: `{"city":"Paris"}`, Args: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "c2", Name: "get_time", Arguments: "{}", Args: json.RawMessage(`{}`)},
		{ID: "c3", Name: "count", Arguments: `{"n":1}`, Args: json.RawMessage(`{"n":1}`)},
		{ID: "c4", Name: "cut", Arguments: "{}", Args: json.RawMessage(`{}`)},
		{ID: "c5", Name: "list", Arguments: "{}", Args: json.RawMessage(`{}`)},
		{ID: "c6", Name: "html", Arguments: `{"q":"<b>&</b>"}`, Args: json.RawMessage(`{"q":"<b>&</b>"}`)},
	}
	for _, tt := range []struct {
		p    Provider
		want []Call
	}{{OpenAI, asText}, {OpenAIResponses, asText}, {Anthropic, asObject}} {
		t.Run(string(tt.p), func(t *testing.T) {
			for _, text := range []string{"", "Let me check."} {
				msg, err := CallMessage(tt.p, text, calls)
				if err != nil {
					t.Fatal(err)
				}
				got, err := ParseCalls(tt.p, msg)
				if err != nil {
					t.Fatalf("%s: %v", msg, err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("text %q: written as %s\nread back %+v\nwant      %+v", text, msg, got, tt.want)
				}
			}
			// One call alone, as a backend writes it between kept items.
			if tt.p == OpenAI {
				return // a lone tool_calls entry goes in a list
			}
			item, err := CallItem(tt.p, calls[0])
			if err != nil {
				t.Fatal(err)
			}
			if got, err := ParseCalls(tt.p, item); err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], tt.want[0]) {
				t.Errorf("CallItem %s read back as %+v, %v", item, got, err)
			}
		})
	}
	// The text of every malformed call gets the words ParseCalls gives it.
	for _, c := range asText {
		if got := ParseCall(c.ID, c.Name, c.Arguments); !reflect.DeepEqual(got, c) {
			t.Errorf("ParseCall(%q) = %+v, want %+v", c.Arguments, got, c)
		}
	}
}

// TestCallMessageShapes pins the JSON each provider's request gets.
func TestCallMessageShapes(t *testing.T) {
	calls := []Call{{ID: "c1", Name: "get_weather", Arguments: `{"city": "Paris"}`}, {ID: "c2", Name: "get_time"}}
	tests := []struct {
		p          Provider
		text, want string
	}{
		{OpenAI, "", `{"role":"assistant","content":null,"tool_calls":[
			{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}},
			{"id":"c2","type":"function","function":{"name":"get_time","arguments":"{}"}}]}`},
		{OpenAI, "Checking.", `{"role":"assistant","content":"Checking.","tool_calls":[
			{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}},
			{"id":"c2","type":"function","function":{"name":"get_time","arguments":"{}"}}]}`},
		{OpenAIResponses, "Checking.", `[{"role":"assistant","content":"Checking."},
			{"type":"function_call","call_id":"c1","name":"get_weather","arguments":"{\"city\": \"Paris\"}"},
			{"type":"function_call","call_id":"c2","name":"get_time","arguments":"{}"}]`},
		{Anthropic, "Checking.", `{"role":"assistant","content":[{"type":"text","text":"Checking."},
			{"type":"tool_use","id":"c1","name":"get_weather","input":{"city":"Paris"}},
			{"type":"tool_use","id":"c2","name":"get_time","input":{}}]}`},
	}
	for _, tt := range tests {
		got, err := CallMessage(tt.p, tt.text, calls)
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, got, tt.want)
	}
	// No calls: the text alone.
	for p, want := range map[Provider]string{
		OpenAI:          `{"role":"assistant","content":""}`,
		OpenAIResponses: `[]`,
		Anthropic:       `{"role":"assistant","content":[]}`,
	} {
		got, err := CallMessage(p, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		jsonEqual(t, got, want)
	}
	for _, p := range []Provider{MCP, "x"} {
		if _, err := CallMessage(p, "", calls); err == nil {
			t.Errorf("CallMessage(%s): no error", p)
		}
		if _, err := CallItem(p, calls[0]); err == nil {
			t.Errorf("CallItem(%s): no error", p)
		}
	}
}
