package format

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/tool"
)

func strictParams(t *testing.T, schema string) ([]byte, error) {
	t.Helper()
	def, err := Definition(OpenAI, tool.Tool{Name: "t", Description: "d", InputSchema: json.RawMessage(schema)}, &Options{Strict: true})
	if err != nil {
		return nil, err
	}
	if err := Validate(OpenAI, []json.RawMessage{def}); err != nil {
		t.Errorf("strict output does not validate: %v\n%s", err, def)
	}
	params, _ := json.Marshal(field(t, def, "function", "parameters"))
	return params, nil
}

func TestStrictConversions(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", `{}`, `{"type":"object","properties":{},"required":[],"additionalProperties":false}`},
		{"annotations dropped", `{"type":"object","properties":{"a":{"type":"string","default":"x","examples":["y"],"deprecated":true,"x-ui":1,"title":"A"}},"required":["a"],"$id":"urn:x","$comment":"c"}`,
			`{"type":"object","properties":{"a":{"type":"string","title":"A"}},"required":["a"],"additionalProperties":false}`},
		{"noted constraints", `{"type":"object","properties":{"a":{"type":"string","maxLength":5,"pattern":"^(?!x)","description":"Name"}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"string","description":"Name (maxLength=5, pattern=^(?!x))"}},"required":["a"],"additionalProperties":false}`},
		{"supported constraints kept", `{"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMaximum":10,"multipleOf":0.5},"l":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$","format":"uuid"},"minItems":1,"maxItems":3}},"required":["n","l"]}`,
			`{"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMaximum":10,"multipleOf":0.5},"l":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$","format":"uuid"},"minItems":1,"maxItems":3}},"required":["l","n"],"additionalProperties":false}`},
		{"nullable keyword", `{"type":"object","properties":{"a":{"type":"integer","nullable":true}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":["integer","null"]}},"required":["a"],"additionalProperties":false}`},
		{"optional const", `{"type":"object","properties":{"k":{"type":"string","const":"v"}}}`,
			`{"type":"object","properties":{"k":{"type":["string","null"],"enum":["v",null]}},"required":["k"],"additionalProperties":false}`},
		{"optional enum without type", `{"type":"object","properties":{"k":{"enum":[1,2]}}}`,
			`{"type":"object","properties":{"k":{"anyOf":[{"enum":[1,2]},{"type":"null"}]}},"required":["k"],"additionalProperties":false}`},
		{"type inferred", `{"type":"object","properties":{"o":{"properties":{"x":{"type":"boolean"}},"required":["x"]},"l":{"items":{"type":"integer"}}},"required":["o","l"]}`,
			`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"boolean"}},"required":["x"],"additionalProperties":false},"l":{"type":"array","items":{"type":"integer"}}},"required":["l","o"],"additionalProperties":false}`},
		{"single allOf ref", `{"type":"object","properties":{"p":{"allOf":[{"$ref":"#/definitions/P"}],"description":"The P"}},"required":["p"],"definitions":{"P":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}`,
			`{"type":"object","properties":{"p":{"anyOf":[{"$ref":"#/definitions/P"}],"description":"The P"}},"required":["p"],"additionalProperties":false,"definitions":{"P":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}}}`},
		{"recursive ref", `{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#"}}},"required":["children"]}`,
			`{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#"}}},"required":["children"],"additionalProperties":false}`},
		{"anyOf branches closed", `{"type":"object","properties":{"v":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"integer"}]}},"required":["v"]}`,
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"object","properties":{"a":{"type":["string","null"]}},"required":["a"],"additionalProperties":false},{"type":"integer"}]}},"required":["v"],"additionalProperties":false}`},
		{"additionalProperties false kept", `{"type":"object","properties":{},"additionalProperties":false}`,
			`{"type":"object","properties":{},"required":[],"additionalProperties":false}`},
		{"property named like a keyword", `{"type":"object","properties":{"$schema":{"type":"string"},"default":{"type":"string"}},"required":["$schema","default"]}`,
			`{"type":"object","properties":{"$schema":{"type":"string"},"default":{"type":"string"}},"required":["$schema","default"],"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := strictParams(t, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, got, tt.want)
		})
	}
}

func TestStrictErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"untyped property", `{"type":"object","properties":{"any":{"description":"anything"}}}`, "/properties/any: a value without a type"},
		{"true property", `{"type":"object","properties":{"any":true}}`, "/properties/any: a value without a type"},
		{"array without items", `{"type":"object","properties":{"l":{"type":"array"}}}`, "/properties/l: an array without items"},
		{"tuple", `{"type":"object","properties":{"l":{"type":"array","items":[{"type":"string"}]}}}`, "/properties/l: a tuple"},
		{"open object", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":true}}}`, "/properties/m: an open object"},
		{"map", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}`, "/properties/m: a map"},
		{"open root", `{"type":"object","additionalProperties":true}`, "at /: an open object"},
		{"untyped in $defs", `{"type":"object","$defs":{"x":{}}}`, "/$defs/x: a value without a type"},
		{"allOf of scalars", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"maxLength":3}]}}}`, "/properties/a: allOf cannot be merged"},
		{"anyOf and oneOf", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}],"oneOf":[{"type":"number"}]}}}`, "/properties/a: both anyOf and oneOf"},
		{"root $ref", `{"type":"object","$ref":"#/$defs/a","$defs":{"a":{"type":"object","properties":{"x":{"type":"string"}}}}}`, "at /: the root must be a plain object schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := strictParams(t, tt.in)
			if err == nil {
				t.Fatalf("no error; got %s", got)
			}
			var te *ToolError
			if !errors.As(err, &te) || !te.Strict || te.Tool != "t" {
				t.Errorf("error %v is not a strict ToolError for t", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "strict") {
				t.Errorf("error %q should contain %q", err, tt.want)
			}
			// The same tool without strict is fine.
			if _, err := Definition(OpenAI, tool.Tool{Name: "t", InputSchema: json.RawMessage(tt.in)}, nil); err != nil {
				t.Errorf("non-strict: %v", err)
			}
		})
	}
}

// TestDefinitionDoesNotAliasTool makes sure a definition shares no memory with the
// tool: for every provider, strict or not, converting twice gives the same result,
// and scribbling over a definition changes neither the tool's schemas nor the next
// definition.
func TestDefinitionDoesNotAliasTool(t *testing.T) {
	for _, p := range Providers {
		for _, strict := range []bool{false, true} {
			for _, tl := range catalog {
				if tl.Name == "string_schema" {
					continue
				}
				in, out := string(tl.InputSchema), string(tl.OutputSchema)
				a, err := Definition(p, tl, &Options{Strict: strict})
				if err != nil {
					t.Fatal(err)
				}
				first := string(a)
				for i := range a {
					a[i] = 'x'
				}
				b, _ := Definition(p, tl, &Options{Strict: strict})
				if string(b) != first || string(tl.InputSchema) != in || string(tl.OutputSchema) != out {
					t.Errorf("%s strict=%v %s: conversion is not repeatable or shares memory with the tool", p, strict, tl.Name)
				}
			}
		}
	}
}

func TestValidateFindsProblems(t *testing.T) {
	tests := []struct {
		name string
		p    Provider
		defs []string
		want []string // substrings of the error; none = valid
	}{
		{"valid chat", OpenAI, []string{`{"type":"function","function":{"name":"a","description":"d","parameters":{"type":"object","properties":{}}}}`}, nil},
		{"bad name", OpenAI, []string{`{"type":"function","function":{"name":"a.b","parameters":{"type":"object"}}}`}, []string{`definition 0 ("a.b"): name "a.b" does not match`}},
		{"no function", OpenAI, []string{`{"type":"function","name":"a"}`}, []string{`"function" must be an object`}},
		{"not an object", Anthropic, []string{`[]`}, []string{"must be a JSON object"}},
		{"invalid JSON", Anthropic, []string{`{`}, []string{"not valid JSON"}},
		{"top anyOf", Anthropic, []string{`{"name":"a","input_schema":{"type":"object","anyOf":[]}}`}, []string{`"anyOf" at the top level`}},
		{"not object", Anthropic, []string{`{"name":"a","input_schema":{"type":"string"}}`}, []string{`"type": "object"`}},
		{"no schema", Anthropic, []string{`{"name":"a"}`}, []string{`"input_schema" must be a JSON Schema object`}},
		{"$schema nested", OpenAIResponses, []string{`{"type":"function","name":"a","strict":false,"parameters":{"type":"object","properties":{"x":{"$schema":"s","type":"string"}}}}`}, []string{`contains "$schema"`}},
		{"responses strict missing", OpenAIResponses, []string{`{"type":"function","name":"a","parameters":{"type":"object"}}`}, []string{`"strict" must be given`}},
		{"duplicate", Anthropic, []string{`{"name":"a","input_schema":{"type":"object"}}`, `{"name":"a","input_schema":{"type":"object"}}`}, []string{"definition 1 (\"a\"): the name is also used by definition 0"}},
		{"strict open object", OpenAI, []string{`{"type":"function","function":{"name":"a","strict":true,"parameters":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}}`}, []string{"strict mode: /: additionalProperties must be false"}},
		{"strict optional", OpenAIResponses, []string{`{"type":"function","name":"a","strict":true,"parameters":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"string"}},"required":["x"],"additionalProperties":false}}`}, []string{"strict mode: /: required [x] must list every property [x y]"}},
		{"strict nested", OpenAI, []string{`{"type":"function","function":{"name":"a","strict":true,"parameters":{"type":"object","properties":{"o":{"type":"object","properties":{"d":{"type":"string","default":"x"},"u":{}},"required":["d","u"]}},"required":["o"],"additionalProperties":false}}}`},
			[]string{"/properties/o: additionalProperties must be false", `/properties/o/properties/d: keyword "default" is not supported`, "/properties/o/properties/u: no type"}},
		{"strict array", OpenAI, []string{`{"type":"function","function":{"name":"a","strict":true,"parameters":{"type":"object","properties":{"l":{"type":"array"}},"required":["l"],"additionalProperties":false}}}`}, []string{"/properties/l: array without items"}},
		{"mcp", MCP, []string{`{"name":"files.read","inputSchema":{"type":"object"}}`, `{"name":"","inputSchema":{"type":"object"},"outputSchema":{"type":"string"}}`},
			[]string{`name "" is not a valid MCP tool name`, "outputSchema must be an object schema"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defs := make([]json.RawMessage, len(tt.defs))
			for i, d := range tt.defs {
				defs[i] = json.RawMessage(d)
			}
			err := Validate(tt.p, defs)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
