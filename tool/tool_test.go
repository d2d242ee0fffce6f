package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/tool"
)

func TestToolMCP(t *testing.T) {
	ann := &mcp.ToolAnnotations{ReadOnlyHint: true}
	in := tool.Tool{
		Name: "get_weather", OriginalName: "weather", Server: "s", Title: "Weather", Description: "Current weather.",
		InputSchema:  json.RawMessage(`{"properties":{"city":{"type":"string"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"temp":{"type":"number"}}}`),
		Annotations:  ann,
	}
	mt := in.MCP()
	if mt.Name != "get_weather" || mt.Title != "Weather" || mt.Description != "Current weather." || mt.Annotations != ann {
		t.Errorf("MCP() = %+v", mt)
	}
	got, err := json.Marshal(mt)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"annotations":{"idempotentHint":false,"readOnlyHint":true},"description":"Current weather.",` +
		`"inputSchema":{"properties":{"city":{"type":"string"}},"type":"object"},"name":"get_weather",` +
		`"outputSchema":{"type":"object","properties":{"temp":{"type":"number"}}},"title":"Weather"}`
	if string(got) != want {
		t.Errorf("MCP() JSON\n got: %s\nwant: %s", got, want)
	}

	// The output schema must be an object schema (MCP 2025-11-25); anything else is
	// left out, and a missing input schema becomes the empty object schema.
	for _, out := range []string{``, `null`, `true`, `{}`, `{"type":"string"}`, `{"type":["object","null"]}`, `[{"type":"object"}]`, `{"type":"object"`} {
		mt := tool.Tool{Name: "t", OutputSchema: json.RawMessage(out)}.MCP()
		if mt.OutputSchema != nil {
			t.Errorf("output schema %s kept as %v", out, mt.OutputSchema)
		}
		got, err := json.Marshal(mt)
		if err != nil {
			t.Fatalf("output schema %s: %v", out, err)
		}
		if want := `{"inputSchema":{"type":"object","properties":{}},"name":"t"}`; string(got) != want {
			t.Errorf("output schema %s: %s, want %s", out, got, want)
		}
	}
}
