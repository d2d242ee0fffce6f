package tool

import (
	"bytes"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/internal/jsonenc"
)

// emptySchema is what a tool without an input schema takes: an object with no properties.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// CleanSchema turns any input schema (raw JSON, a decoded map, nil) into an object
// schema, as MCP requires of tool inputs and every model provider expects: nil, empty
// or non-object schemas become {"type":"object","properties":{}}, and an object schema
// without "type" or "properties" gets them. A schema that needs no change is returned
// byte for byte (compacted), so property order and number precision survive. HTML
// characters ("<", ">", "&") are never escaped.
func CleanSchema(schema any) json.RawMessage {
	var raw []byte
	switch s := schema.(type) {
	case nil:
		return emptySchema
	case json.RawMessage:
		raw = s
	case []byte:
		raw = s
	default:
		b, err := jsonenc.Marshal(s)
		if err != nil {
			return emptySchema
		}
		raw = b
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || len(m) == 0 {
		return emptySchema
	}
	typ, hasType := m["type"]
	_, hasProps := m["properties"]
	switch {
	case hasType && string(bytes.TrimSpace(typ)) != `"object"`:
		// MCP: "inputSchema: a JSON Schema object defining the expected parameters";
		// its type must be "object". A server that says otherwise cannot be called
		// with a meaningful argument object, so it gets the empty object schema.
		return emptySchema
	case hasType && hasProps:
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return buf.Bytes()
		}
		return emptySchema
	}
	if !hasType {
		m["type"] = json.RawMessage(`"object"`)
	}
	if !hasProps {
		m["properties"] = json.RawMessage(`{}`)
	}
	b, err := jsonenc.Marshal(m)
	if err != nil {
		return emptySchema
	}
	return b
}
