package tool

import (
	"encoding/json"
)

// emptySchema is what a tool without an input schema takes: an object with no properties.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// CleanSchema turns any input schema (raw JSON, a decoded map, nil) into an object
// schema: nil or empty becomes {"type":"object","properties":{}}, a schema without
// "type" gets "type": "object", and a non-object schema is wrapped as the single
// property "value" so that the tool can still be called.
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
		b, err := json.Marshal(s)
		if err != nil {
			return emptySchema
		}
		raw = b
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return emptySchema
	}
	if len(m) == 0 {
		return emptySchema
	}
	switch m["type"] {
	case "object":
		if _, ok := m["properties"]; !ok {
			m["properties"] = map[string]any{}
		}
	case nil:
		m["type"] = "object"
		if _, ok := m["properties"]; !ok {
			m["properties"] = map[string]any{}
		}
	default:
		m = map[string]any{
			"type":       "object",
			"properties": map[string]any{"value": m},
			"required":   []string{"value"},
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return emptySchema
	}
	return b
}
