package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Schema handling works on decoded JSON (map[string]any, []any, json.Number, string,
// bool, nil) so that every rewrite is explicit. Numbers are decoded as json.Number to
// keep them exact.

// decodeJSON decodes one JSON value, keeping numbers as json.Number.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// jsonKind names the JSON type of a decoded value, for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// inputSchema turns a tool's input schema into an object schema (a decoded map).
// Missing, null, {} and true become {"type":"object","properties":{}}; an object
// schema without "type" or "properties" gets them, as tool.CleanSchema does. A schema
// of another type is refused with the reason: wrapping it would need every call's
// arguments unwrapped again, and MCP requires tool inputs to be objects anyway. What
// cannot be a schema at all (invalid JSON, false, a string, an array) is an error.
func inputSchema(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("input schema is not valid JSON: %v", err)
	}
	switch v := v.(type) {
	case nil:
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	case bool:
		if !v {
			return nil, fmt.Errorf("input schema is false, so no input is valid and the tool cannot be called")
		}
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	case map[string]any:
		if t, ok := v["type"]; ok && t != "object" {
			return nil, fmt.Errorf("input schema has type %v, but a tool's input must be an object of named arguments (\"type\": \"object\")", t)
		}
		v["type"] = "object"
		if _, ok := v["properties"]; !ok {
			v["properties"] = map[string]any{}
		}
		return v, nil
	}
	return nil, fmt.Errorf("input schema is a JSON %s, not a JSON Schema object", jsonKind(v))
}

// Keywords whose values are subschemas, by shape (JSON Schema 2020-12 plus the
// draft-07 "definitions", "dependencies" and array-form "items").
var (
	schemaMapKeys   = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	schemaSingleKey = []string{"items", "additionalProperties", "additionalItems", "not", "if", "then", "else",
		"contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"}
	schemaListKeys = []string{"anyOf", "oneOf", "allOf", "prefixItems", "items"}
)

// eachSubschema calls f for every direct subschema of m with its JSON-pointer path.
func eachSubschema(m map[string]any, path string, f func(sub map[string]any, path string)) {
	for _, k := range schemaMapKeys {
		if mm, ok := m[k].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(mm)) {
				if sub, ok := mm[name].(map[string]any); ok {
					f(sub, path+"/"+k+"/"+escapePointer(name))
				}
			}
		}
	}
	for _, k := range schemaSingleKey {
		if sub, ok := m[k].(map[string]any); ok {
			f(sub, path+"/"+k)
		}
	}
	for _, k := range schemaListKeys {
		if list, ok := m[k].([]any); ok {
			for i, s := range list {
				if sub, ok := s.(map[string]any); ok {
					f(sub, fmt.Sprintf("%s/%s/%d", path, k, i))
				}
			}
		}
	}
}

// removeEverywhere deletes a keyword from a schema and all its subschemas (never from a
// "properties" map, where the same string would be a property name).
func removeEverywhere(m map[string]any, key string) {
	delete(m, key)
	eachSubschema(m, "", func(sub map[string]any, _ string) { removeEverywhere(sub, key) })
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// topLevelForbidden lists the keywords each provider rejects at the top level of a
// tool's parameters.
//
//   - OpenAI (both APIs) answers 400 "Invalid schema for function ...: schema must be
//     a JSON Schema of 'type: \"object\"', got ..." and rejects 'oneOf'/'anyOf'/'allOf'/
//     'enum'/'not' at the top level.
//   - Anthropic answers 400 "input_schema does not support oneOf, allOf, or anyOf at
//     the top level".
func topLevelForbidden(p Provider) []string {
	switch p {
	case OpenAI, OpenAIResponses:
		return []string{"allOf", "anyOf", "oneOf", "enum", "not"}
	case Anthropic:
		return []string{"allOf", "anyOf", "oneOf"}
	}
	return nil
}

// flattenTop removes the composition keywords the provider rejects at the top level
// where that can be done without changing what the schema accepts: a one-branch
// anyOf/oneOf/allOf, and an allOf of plain object schemas whose properties do not
// conflict, are merged into the top level. Anything else is an error naming the reason.
func flattenTop(p Provider, m map[string]any) error {
	for _, k := range topLevelForbidden(p) {
		v, ok := m[k]
		if !ok {
			continue
		}
		list, isList := v.([]any)
		mergeable := isList && (k == "allOf" || ((k == "anyOf" || k == "oneOf") && len(list) == 1))
		if !mergeable {
			return fmt.Errorf("input schema has %q at the top level, which %s does not accept (only a single-branch anyOf/oneOf or an allOf of plain object schemas can be flattened)", k, providerLabel(p))
		}
		delete(m, k)
		for i, b := range list {
			if err := mergeObjectBranch(m, b); err != nil {
				return fmt.Errorf("input schema has %q at the top level, which %s does not accept, and branch %d cannot be flattened: %v", k, providerLabel(p), i, err)
			}
		}
	}
	return nil
}

// mergeObjectBranch merges a plain object schema (type, properties, required,
// description, title only) into m: properties are added (the same property twice must
// be identical), required lists are united.
func mergeObjectBranch(m map[string]any, branch any) error {
	b, ok := branch.(map[string]any)
	if !ok {
		return fmt.Errorf("it is a JSON %s", jsonKind(branch))
	}
	for k, v := range b {
		switch k {
		case "type":
			if v != "object" {
				return fmt.Errorf("its type is %v, not object", v)
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("its properties are not an object")
			}
			dst, _ := m["properties"].(map[string]any)
			if dst == nil {
				dst = map[string]any{}
				m["properties"] = dst
			}
			for name, s := range props {
				if old, dup := dst[name]; dup && !reflect.DeepEqual(old, s) {
					return fmt.Errorf("property %q is defined differently in two places", name)
				}
				dst[name] = s
			}
		case "required":
			req, ok := v.([]any)
			if !ok {
				return fmt.Errorf("its required is not an array")
			}
			old, _ := m["required"].([]any)
			m["required"] = unionStrings(old, req)
		case "description", "title":
			if _, has := m[k]; !has {
				m[k] = v
			}
		default:
			return fmt.Errorf("it uses %q", k)
		}
	}
	return nil
}

// unionStrings returns the names of a and then those of b, each once. Values that are
// not strings (invalid in "required") are kept as they are: they may not even be
// comparable.
func unionStrings(a, b []any) []any {
	seen := map[string]bool{}
	out := make([]any, 0, len(a)+len(b))
	for _, list := range [][]any{a, b} {
		for _, v := range list {
			if s, ok := v.(string); ok {
				if seen[s] {
					continue
				}
				seen[s] = true
			}
			out = append(out, v)
		}
	}
	return out
}

// requiredNames returns the names a schema's "required" lists, in order.
func requiredNames(m map[string]any) []string {
	list, _ := m["required"].([]any)
	names := make([]string, 0, len(list))
	for _, r := range list {
		if s, ok := r.(string); ok {
			names = append(names, s)
		}
	}
	return names
}

func providerLabel(p Provider) string {
	switch p {
	case OpenAI:
		return "the OpenAI Chat Completions API"
	case OpenAIResponses:
		return "the OpenAI Responses API"
	case Anthropic:
		return "the Anthropic Messages API"
	}
	return "MCP"
}
