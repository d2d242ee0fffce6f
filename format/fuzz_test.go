package format

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/tool"
)

// FuzzCalls: whatever a model server sends, ParseCalls does not panic; the calls
// it finds, written back by CallMessage, parse again to the same calls (what a
// conversation repeats is what the model said).
func FuzzCalls(f *testing.F) {
	f.Add(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`)
	f.Add(`{"output":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{\"a\":1}"},{"type":"message","content":[]}]}`)
	f.Add(`{"content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"f","input":{"a":[1,2]}}]}`)
	f.Add(`[{"id":"x","type":"function","function":{"name":"f","arguments":"not json"}}]`)
	f.Add(`{"choices":[{"message":{"tool_calls":[{"function":{"name":"","arguments":""}}]}}]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		for _, p := range []Provider{OpenAI, OpenAIResponses, Anthropic} {
			calls, err := ParseCalls(p, json.RawMessage(raw))
			if err != nil || len(calls) == 0 {
				continue
			}
			msg, err := CallMessage(p, "", calls)
			if err != nil {
				continue // a call that cannot be written back (Anthropic's input must be an object)
			}
			again, err := ParseCalls(p, msg)
			if err != nil {
				t.Fatalf("%s: CallMessage wrote %s, which does not parse: %v", p, msg, err)
			}
			if len(again) != len(calls) {
				t.Fatalf("%s: %d calls, %d after a round trip through %s", p, len(calls), len(again), msg)
			}
			for i := range calls {
				a, b := calls[i], again[i]
				if a.ID != b.ID || a.Name != b.Name || !bytes.Equal(compact(a.Args), compact(b.Args)) || (a.Err == "") != (b.Err == "") {
					t.Fatalf("%s: call %d was %+v, %+v after a round trip through %s", p, i, a, b, msg)
				}
			}
		}
	})
}

// FuzzDefinition: whatever input schema a server sends, Definition does not
// panic, and what it makes passes Validate for its provider (strict mode too).
func FuzzDefinition(f *testing.F) {
	f.Add(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)
	f.Add(`{"$schema":"http://json-schema.org/draft-07/schema#","anyOf":[{"type":"object","properties":{"a":{"type":"integer"}}}]}`)
	f.Add(`{"allOf":[{"type":"object","properties":{"a":{}}},{"properties":{"b":{"type":["string","null"]}}}]}`)
	f.Add(`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"array"}}}}}`)
	f.Add(`null`)
	f.Add(`{"type":"string"}`)
	f.Fuzz(func(t *testing.T, schema string) {
		tl := tool.Tool{Name: "t", Description: "d", InputSchema: json.RawMessage(schema)}
		for _, p := range []Provider{OpenAI, OpenAIResponses, Anthropic, MCP} {
			for _, strict := range []bool{false, true} {
				def, err := Definition(p, tl, &Options{Strict: strict})
				if err != nil {
					continue
				}
				if err := Validate(p, []json.RawMessage{def}); err != nil {
					t.Fatalf("%s (strict %v): Definition made %s, which Validate refuses: %v", p, strict, def, err)
				}
			}
		}
	})
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// FuzzResult: whatever result a server sends (any content, any text, any cap),
// Normalize and ResultMessage do not panic, the capped text is valid UTF-8 (the
// decoded result's always is: the cap must cut between characters), and every
// message is valid JSON.
func FuzzResult(f *testing.F) {
	f.Add(`{"content":[{"type":"text","text":"héllo wörld 🚀"}]}`, 5)
	f.Add(`{"content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"text","text":"caption"}],"isError":true}`, 0)
	f.Add(`{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"x"}},{"type":"resource_link","uri":"file:///b","name":"b"}],"structuredContent":{"a":1}}`, 1)
	f.Add(`{"content":[],"structuredContent":{"k":"ü"}}`, 3)
	f.Fuzz(func(t *testing.T, raw string, max int) {
		var res tool.Result
		if json.Unmarshal([]byte(raw), &res) != nil {
			return
		}
		for _, images := range []bool{false, true} {
			parts := Normalize(&res, &NormalizeOptions{Images: images, MaxChars: max})
			for _, p := range parts {
				if p.Type == PartText && !utf8.ValidString(p.Text) {
					t.Fatalf("cap %d: text %q is not valid UTF-8", max, p.Text)
				}
			}
		}
		for _, p := range []Provider{OpenAI, OpenAIResponses, Anthropic, MCP} {
			msg, err := ResultMessage(p, "c1", &res, &ResultOptions{MaxChars: max})
			if err != nil {
				continue
			}
			if !json.Valid(msg) {
				t.Fatalf("%s: ResultMessage wrote %q, not JSON", p, msg)
			}
		}
	})
}

// FuzzDropOptionalNulls: whatever schema and arguments, DropOptionalNulls does
// not panic, keeps valid JSON valid, is idempotent, and removes only nulls.
func FuzzDropOptionalNulls(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"string"}},"required":["b"]}`, `{"a":null,"b":null}`)
	f.Add(`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":["string","null"]},"y":{}}},"l":{"type":"array","items":{"type":"object","properties":{"z":{"type":"integer"}}}}}}`,
		`{"o":{"x":null,"y":null},"l":[{"z":null},null]}`)
	f.Add(`{}`, `null`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		out := DropOptionalNulls(json.RawMessage(schema), json.RawMessage(args))
		if json.Valid([]byte(args)) && !json.Valid(out) {
			t.Fatalf("valid arguments %s became %s", args, out)
		}
		if again := DropOptionalNulls(json.RawMessage(schema), out); !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %s, then %s", out, again)
		}
		if bytes.Equal(out, []byte(args)) {
			return
		}
		// What changed is only nulls left out: the same JSON without "null" tokens
		// has no more keys in the output than in the input.
		if bytes.Count(out, []byte("null")) >= bytes.Count([]byte(args), []byte("null")) {
			t.Fatalf("%s became %s, with no null removed", args, out)
		}
	})
}
