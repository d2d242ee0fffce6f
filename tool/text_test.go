package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/tool"
)

func TestText(t *testing.T) {
	tests := []struct {
		name string
		res  *tool.Result
		want string
	}{
		{"nil", nil, ""},
		{"texts joined", &tool.Result{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}}, "a\nb"},
		{"image and audio", &tool.Result{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: []byte{1}}, &mcp.AudioContent{MIMEType: "audio/wav", Data: []byte{1}}}}, "[Image: image/png]\n[Audio: audio/wav]"},
		{"embedded text", &tool.Result{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", Text: "hello"}}}}, "[Resource: file:///a.txt]\nhello"},
		{"embedded blob", &tool.Result{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2, 3}}}}}, "[Resource: file:///a.bin]\n(binary, 3 bytes, application/octet-stream)"},
		{"resource link", &tool.Result{Content: []mcp.Content{&mcp.ResourceLink{URI: "test://x", Name: "x"}}}, "[Resource link: test://x]"},
		{"structured only", &tool.Result{StructuredContent: map[string]any{"sum": 3}}, `{"sum":3}`},
		{"structured with text", &tool.Result{Content: []mcp.Content{&mcp.TextContent{Text: "3"}}, StructuredContent: map[string]any{"sum": 3}}, "3"},
	}
	for _, tt := range tests {
		if got := tool.Text(tt.res); got != tt.want {
			t.Errorf("%s: Text = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCleanSchema(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, `{"type":"object","properties":{}}`},
		{"empty", json.RawMessage(`{}`), `{"type":"object","properties":{}}`},
		{"not json", json.RawMessage(`{`), `{"type":"object","properties":{}}`},
		{"non-object type", json.RawMessage(`{"type":"string"}`), `{"type":"object","properties":{}}`},
		{"missing type", json.RawMessage(`{"properties":{"a":{"type":"string"}}}`), `{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{"missing properties", json.RawMessage(`{"type":"object"}`), `{"properties":{},"type":"object"}`},
		// Order and precision survive when nothing needs to change.
		{"kept as is", json.RawMessage(`{"type": "object", "properties": {"z": {"maximum": 12345678901234567890}, "a": {}}}`), `{"type":"object","properties":{"z":{"maximum":12345678901234567890},"a":{}}}`},
		{"decoded map", map[string]any{"type": "object", "properties": map[string]any{}}, `{"properties":{},"type":"object"}`},
		{"HTML not escaped", json.RawMessage(`{"description":"<a> & <b>"}`), `{"description":"<a> & <b>","properties":{},"type":"object"}`},
		{"decoded map, HTML not escaped", map[string]any{"description": "<a>"}, `{"description":"<a>","properties":{},"type":"object"}`},
	}
	for _, tt := range tests {
		if got := string(tool.CleanSchema(tt.in)); got != tt.want {
			t.Errorf("%s: CleanSchema = %s, want %s", tt.name, got, tt.want)
		}
	}
}
