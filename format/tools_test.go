package format

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/tool"
)

// A catalog as an MCP server would publish it: every case the definitions must handle
// and that every provider accepts.
var catalog = []tool.Tool{
	{
		Name: "get_weather", OriginalName: "get_weather", Server: "weather",
		Title: "Weather", Description: "Current weather for a city.",
		InputSchema: json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",` +
			`"properties":{"city":{"type":"string","description":"City <name>"},"units":{"type":"string","enum":["c","f"],"default":"c"}},` +
			`"required":["city"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"temp":{"type":"number"}}}`),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "Weather"},
	},
	{Name: "no_description", Server: "s", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"number"}}}`)},
	{Name: "nil_schema", Server: "s", Description: "Takes nothing."},
	{Name: "empty_schema", Server: "s", Description: "Empty schema.", InputSchema: json.RawMessage(`{}`)},
	{Name: "null_schema", Server: "s", Description: "Null schema.", InputSchema: json.RawMessage(` null `)},
	{Name: "untyped_schema", Server: "s", Description: "No type.", InputSchema: json.RawMessage(`{"properties":{"q":{"type":"string"}},"required":["q"]}`)},
	{Name: "string_schema", Server: "s", Description: "Not an object.", InputSchema: json.RawMessage(`{"type":"string","description":"raw text"}`)},
	{Name: "one_branch", Server: "s", Description: "Single-branch oneOf.", InputSchema: json.RawMessage(`{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}]}`)},
	{Name: "all_of", Server: "s", Description: "allOf of objects.", InputSchema: json.RawMessage(`{"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"integer"}}}]}`)},
	{Name: "nested", Server: "s", Description: "Nested objects, arrays and $defs.", InputSchema: nestedSchema},
}

var nestedSchema = json.RawMessage(`{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"properties": {
		"query": {"type": "string", "minLength": 1, "description": "Search text"},
		"limit": {"type": "integer", "default": 10, "minimum": 1},
		"filters": {
			"type": "object",
			"properties": {
				"tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "uniqueItems": true},
				"since": {"type": "string", "format": "date-time"},
				"owner": {"$ref": "#/$defs/person", "description": "Owner"},
				"points": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x"]}}
			},
			"required": ["tags"]
		},
		"sort": {"oneOf": [{"type": "string", "const": "asc"}, {"type": "string", "const": "desc"}]},
		"mode": {"type": "string", "enum": ["fast", "full"]},
		"note": {"type": ["string", "null"]}
	},
	"required": ["query", "note"],
	"$defs": {
		"person": {
			"type": "object",
			"properties": {
				"name": {"type": "string"},
				"email": {"type": "string", "format": "email"},
				"nick": {"type": "string", "format": "handle", "examples": ["bob"]}
			},
			"required": ["name"]
		}
	}
}`)

// nestedStrict is nestedSchema in OpenAI strict mode.
const nestedStrict = `{
	"type": "object",
	"properties": {
		"query": {"type": "string", "description": "Search text (minLength=1)"},
		"limit": {"type": ["integer", "null"], "minimum": 1},
		"filters": {
			"type": ["object", "null"],
			"properties": {
				"tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "description": "uniqueItems=true"},
				"since": {"type": ["string", "null"], "format": "date-time"},
				"owner": {"description": "Owner", "anyOf": [{"$ref": "#/$defs/person"}, {"type": "null"}]},
				"points": {"type": ["array", "null"], "items": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": ["number", "null"]}}, "required": ["x", "y"], "additionalProperties": false}}
			},
			"required": ["owner", "points", "since", "tags"],
			"additionalProperties": false
		},
		"sort": {"anyOf": [{"type": "string", "const": "asc"}, {"type": "string", "const": "desc"}, {"type": "null"}]},
		"mode": {"type": ["string", "null"], "enum": ["fast", "full", null]},
		"note": {"type": ["string", "null"]}
	},
	"required": ["filters", "limit", "mode", "note", "query", "sort"],
	"additionalProperties": false,
	"$defs": {
		"person": {
			"type": "object",
			"properties": {
				"name": {"type": "string"},
				"email": {"type": ["string", "null"], "format": "email"},
				"nick": {"type": ["string", "null"], "description": "format=handle"}
			},
			"required": ["email", "name", "nick"],
			"additionalProperties": false
		}
	}
}`

func toolNamed(name string) tool.Tool {
	for _, t := range catalog {
		if t.Name == name {
			return t
		}
	}
	panic("no tool " + name)
}

func TestDefinitionShapes(t *testing.T) {
	weather := toolNamed("get_weather")
	params := `{"type":"object","properties":{"city":{"type":"string","description":"City <name>"},"units":{"type":"string","enum":["c","f"],"default":"c"}},"required":["city"]}`
	strictParams := `{"type":"object","properties":{"city":{"type":"string","description":"City <name>"},"units":{"type":["string","null"],"enum":["c","f",null]}},"required":["city","units"],"additionalProperties":false}`
	tests := []struct {
		name   string
		p      Provider
		strict bool
		want   string
	}{
		{"openai", OpenAI, false, `{"type":"function","function":{"name":"get_weather","description":"Current weather for a city.","parameters":` + params + `}}`},
		{"openai strict", OpenAI, true, `{"type":"function","function":{"name":"get_weather","description":"Current weather for a city.","parameters":` + strictParams + `,"strict":true}}`},
		{"responses", OpenAIResponses, false, `{"type":"function","name":"get_weather","description":"Current weather for a city.","parameters":` + params + `,"strict":false}`},
		{"responses strict", OpenAIResponses, true, `{"type":"function","name":"get_weather","description":"Current weather for a city.","parameters":` + strictParams + `,"strict":true}`},
		{"anthropic", Anthropic, false, `{"name":"get_weather","description":"Current weather for a city.","input_schema":` + params + `}`},
		{"anthropic ignores strict", Anthropic, true, `{"name":"get_weather","description":"Current weather for a city.","input_schema":` + params + `}`},
		{"mcp", MCP, false, `{"name":"get_weather","title":"Weather","description":"Current weather for a city.",` +
			`"inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"city":{"type":"string","description":"City <name>"},"units":{"type":"string","enum":["c","f"],"default":"c"}},"required":["city"]},` +
			`"outputSchema":{"type":"object","properties":{"temp":{"type":"number"}}},` +
			`"annotations":{"readOnlyHint":true,"idempotentHint":false,"title":"Weather"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Definition(tt.p, weather, &Options{Strict: tt.strict})
			if err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, got, tt.want)
			if strings.Contains(string(got), `\u003c`) {
				t.Errorf("HTML-escaped output: %s", got)
			}
		})
	}
}

func TestDefinitionRules(t *testing.T) {
	emptyObject := `{"type":"object","properties":{}}`
	tests := []struct {
		tool       string
		wantDesc   string
		wantParams string
	}{
		{"no_description", "MCP tool: no_description", `{"type":"object","properties":{"x":{"type":"number"}}}`},
		{"nil_schema", "Takes nothing.", emptyObject},
		{"empty_schema", "Empty schema.", emptyObject},
		{"null_schema", "Null schema.", emptyObject},
		{"untyped_schema", "No type.", `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`},
		{"one_branch", "Single-branch oneOf.", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`},
		{"all_of", "allOf of objects.", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`},
	}
	for _, tt := range tests {
		for _, p := range []Provider{OpenAI, OpenAIResponses, Anthropic} {
			t.Run(tt.tool+"/"+string(p), func(t *testing.T) {
				got, err := Definition(p, toolNamed(tt.tool), nil)
				if err != nil {
					t.Fatal(err)
				}
				path := map[Provider][]string{OpenAI: {"function"}, OpenAIResponses: nil, Anthropic: nil}[p]
				schemaKey := map[Provider]string{OpenAI: "parameters", OpenAIResponses: "parameters", Anthropic: "input_schema"}[p]
				if d := field(t, got, append(path, "description")...); d != tt.wantDesc {
					t.Errorf("description = %v, want %q", d, tt.wantDesc)
				}
				params, _ := json.Marshal(field(t, got, append(path, schemaKey)...))
				jsonEqual(t, params, tt.wantParams)
			})
		}
	}
}

func TestDefinitionRejectsNonObjectSchema(t *testing.T) {
	for _, p := range []Provider{OpenAI, OpenAIResponses, Anthropic, MCP} {
		_, err := Definition(p, toolNamed("string_schema"), nil)
		var te *ToolError
		if !errors.As(err, &te) || te.Tool != "string_schema" || !strings.Contains(te.Reason, "input schema has type string") {
			t.Errorf("%s: err = %v, want a ToolError naming the tool and the type", p, err)
		}
	}
}

func TestDefinitionStrictNested(t *testing.T) {
	for _, p := range []Provider{OpenAI, OpenAIResponses} {
		t.Run(string(p), func(t *testing.T) {
			got, err := Definition(p, toolNamed("nested"), &Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			path := []string{"parameters"}
			if p == OpenAI {
				path = []string{"function", "parameters"}
			}
			params, _ := json.Marshal(field(t, got, path...))
			jsonEqual(t, params, nestedStrict)
		})
	}
	// Without strict, only "$schema" goes.
	got, err := Definition(OpenAI, toolNamed("nested"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(nestedSchema, &want); err != nil {
		t.Fatal(err)
	}
	delete(want, "$schema")
	wantJSON, _ := json.Marshal(want)
	params, _ := json.Marshal(field(t, got, "function", "parameters"))
	jsonEqual(t, params, string(wantJSON))
}

func TestToolsEveryProviderValidates(t *testing.T) {
	var valid []tool.Tool // every tool of the catalog that can be converted
	for _, tl := range catalog {
		if tl.Name != "string_schema" {
			valid = append(valid, tl)
		}
	}
	for _, p := range Providers {
		if _, err := Tools(p, catalog, nil); err == nil || !strings.Contains(err.Error(), "string_schema") {
			t.Errorf("%s: Tools with a non-object schema: err = %v, want it named", p, err)
		}
		for _, strict := range []bool{false, true} {
			defs, err := Tools(p, valid, &Options{Strict: strict})
			if err != nil {
				t.Fatalf("%s strict=%v: %v", p, strict, err)
			}
			if len(defs) != len(valid) {
				t.Fatalf("%s: %d definitions for %d tools", p, len(defs), len(valid))
			}
			if err := Validate(p, defs); err != nil {
				t.Errorf("%s strict=%v: emitted definitions do not validate:\n%v", p, strict, err)
			}
		}
	}
}

func TestDefinitionErrors(t *testing.T) {
	dotted := tool.Tool{Name: "files.read", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}
	long := tool.Tool{Name: strings.Repeat("a", 65), Description: "d"}
	topAnyOf := tool.Tool{Name: "either", Description: "d", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`)}
	topEnum := tool.Tool{Name: "top_enum", Description: "d", InputSchema: json.RawMessage(`{"type":"object","enum":[{}]}`)}
	tests := []struct {
		name    string
		p       Provider
		t       tool.Tool
		strict  bool
		wantErr string // "" = must succeed
	}{
		{"dotted openai", OpenAI, dotted, false, `name "files.read" does not match`},
		{"dotted responses", OpenAIResponses, dotted, false, `name "files.read" does not match`},
		{"dotted anthropic", Anthropic, dotted, false, `name "files.read" does not match`},
		{"dotted mcp", MCP, dotted, false, ""},
		{"too long openai", OpenAI, long, false, "does not match"},
		{"empty name", Anthropic, tool.Tool{}, false, `name "" does not match`},
		{"top anyOf openai", OpenAI, topAnyOf, false, `"anyOf" at the top level`},
		{"top anyOf anthropic", Anthropic, topAnyOf, false, `"anyOf" at the top level, which the Anthropic Messages API does not accept`},
		{"top anyOf mcp", MCP, topAnyOf, false, ""},
		{"top enum openai", OpenAI, topEnum, false, `"enum" at the top level`},
		{"top enum anthropic", Anthropic, topEnum, false, ""},
		{"invalid JSON", OpenAI, tool.Tool{Name: "bad", InputSchema: json.RawMessage(`{"type":`)}, false, "input schema is not valid JSON"},
		{"false schema", OpenAI, tool.Tool{Name: "bad", InputSchema: json.RawMessage(`false`)}, false, "input schema is false"},
		{"array schema", Anthropic, tool.Tool{Name: "bad", InputSchema: json.RawMessage(`[1]`)}, false, "JSON array, not a JSON Schema object"},
		{"true schema", OpenAI, tool.Tool{Name: "ok", InputSchema: json.RawMessage(`true`)}, false, ""},
		{"non-string required in allOf", OpenAI, tool.Tool{Name: "odd", InputSchema: json.RawMessage(
			`{"allOf":[{"type":"object","required":["a",{}]},{"required":["a",{}]}]}`)}, false, ""},
		{"conflicting allOf", OpenAI, tool.Tool{Name: "bad", InputSchema: json.RawMessage(
			`{"allOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"a":{"type":"number"}}}]}`)}, false, `property "a" is defined differently`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Definition(tt.p, tt.t, &Options{Strict: tt.strict})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if err := Validate(tt.p, []json.RawMessage{got}); err != nil {
					t.Errorf("does not validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, got %s", got)
			}
			var te *ToolError
			if !errors.As(err, &te) || te.Tool != tt.t.Name || te.Provider != tt.p {
				t.Errorf("error %v is not a ToolError for %q/%s", err, tt.t.Name, tt.p)
			}
			if !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), `"`+tt.t.Name+`"`) {
				t.Errorf("error %q should name the tool and contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestToolsReportsEveryBadTool(t *testing.T) {
	tools := []tool.Tool{
		{Name: "good", Description: "d"},
		{Name: "bad.one", Description: "d"},
		{Name: "good", Description: "again"},
		{Name: "bad two", Description: "d"},
	}
	defs, err := Tools(Anthropic, tools, nil)
	if err == nil || defs != nil {
		t.Fatalf("want an error and no definitions, got %v, %s", err, defs)
	}
	for _, want := range []string{`"bad.one"`, `"bad two"`, `tool "good" (anthropic): the name is used by more than one tool`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if _, err := Tools(Provider("gemini"), tools, nil); err == nil {
		t.Error("unknown provider accepted")
	}
	if defs, err := Tools(OpenAI, nil, nil); err != nil || len(defs) != 0 {
		t.Errorf("no tools: %v, %v", defs, err)
	}
}

func TestParseProvider(t *testing.T) {
	tests := map[string]Provider{
		"mcp": MCP, "openai": OpenAI, "OpenAI": OpenAI, " openai-chat ": OpenAI,
		"openai-responses": OpenAIResponses, "responses": OpenAIResponses, "anthropic": Anthropic,
	}
	for in, want := range tests {
		got, err := ParseProvider(in)
		if err != nil || got != want {
			t.Errorf("ParseProvider(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "gemini", "open ai"} {
		if _, err := ParseProvider(in); err == nil {
			t.Errorf("ParseProvider(%q) succeeded", in)
		}
	}
}
