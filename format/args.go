package format

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/switchboard-mcp/switchboard/internal/jsonenc"
)

// DropOptionalNulls undoes what OpenAI strict mode does to optional properties. Strict
// mode makes every property required and the optional ones nullable, so a model
// leaves an optional argument out by sending null — which the tool's own schema
// usually rejects ("expected number, received null"). Given the tool's original input
// schema, DropOptionalNulls removes the null values of properties that schema did not
// require and that do not accept null themselves, in nested objects and arrays too
// (following "properties" and "items"; references are not resolved). Arguments that
// are not a JSON object, or that need no change, are returned as they are; arguments
// without a null anywhere are returned at once, without parsing the schema.
func DropOptionalNulls(schemaJSON, args json.RawMessage) json.RawMessage {
	if !bytes.Contains(args, []byte("null")) {
		return args
	}
	schema, err := inputSchema(schemaJSON)
	if err != nil {
		return args
	}
	v, err := decodeJSON(bytes.TrimSpace(args))
	if err != nil {
		return args
	}
	if !dropNulls(schema, v) {
		return args
	}
	out, err := jsonenc.Marshal(v)
	if err != nil {
		return args
	}
	return out
}

// dropNulls edits v in place and reports whether it changed anything.
func dropNulls(schema map[string]any, v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		required := requiredNames(schema)
		for k, val := range v {
			sub, _ := props[k].(map[string]any)
			if val == nil && sub != nil && !slices.Contains(required, k) && !acceptsNull(sub) && sub["nullable"] != true {
				delete(v, k)
				changed = true
				continue
			}
			if sub != nil && dropNulls(sub, val) {
				changed = true
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for _, e := range v {
				if dropNulls(items, e) {
					changed = true
				}
			}
		}
	}
	return changed
}
