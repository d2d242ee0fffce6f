package format

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// OpenAI strict mode ("strict": true on a function; Structured Outputs for function
// calling) accepts only a subset of JSON Schema. The rules below are those of OpenAI's
// Structured Outputs guide, "Supported schemas":
//
//   - Types: string, number, integer, boolean, object, array, enum, anyOf (and
//     const); the root must be an object and not anyOf.
//   - Every object sets "additionalProperties": false and lists every property in
//     "required". Optional fields are emulated by a union with null.
//   - Supported constraints: strings "pattern" and "format" (date-time, time, date,
//     duration, email, hostname, ipv4, ipv6, uuid); numbers "multipleOf", "maximum",
//     "exclusiveMaximum", "minimum", "exclusiveMinimum"; arrays "minItems",
//     "maxItems". Definitions ($defs) and recursion ("$ref": "#") are supported.
//   - Not supported: allOf, not, dependentRequired, dependentSchemas, if/then/else,
//     and the remaining type-specific keywords (minLength, maxLength,
//     patternProperties, propertyNames, min/maxProperties, contains, uniqueItems, …).
//     "default" is rejected with "'default' is not permitted".
//
// toStrict rewrites a schema to that subset: it keeps the supported keywords, turns
// oneOf into anyOf and merges allOf where it can, moves dropped validation keywords
// into the description (as "minLength=3") so the model still sees them, drops pure
// annotations ("default", "examples", "$schema", …) silently, and makes properties that
// were optional nullable. What strict mode cannot express — an untyped value, an
// array without items, an open object (additionalProperties true or a schema), a
// tuple — is an error; callers that want "strict where possible" can retry that tool
// without Options.Strict.

// strictAllowed are the keywords kept in strict mode.
var strictAllowed = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "anyOf": true, "enum": true, "const": true, "description": true,
	"title": true, "$ref": true, "$defs": true, "definitions": true,
	"pattern": true, "format": true,
	"multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true,
	"exclusiveMinimum": true, "minItems": true, "maxItems": true,
}

// strictNoted are validation keywords strict mode rejects; they are removed and noted
// in the description. Any other unknown keyword is an annotation and is dropped.
var strictNoted = []string{
	"minLength", "maxLength", "patternProperties", "unevaluatedProperties", "propertyNames",
	"minProperties", "maxProperties", "unevaluatedItems", "contains", "minContains",
	"maxContains", "uniqueItems", "not", "if", "then", "else", "dependentRequired",
	"dependentSchemas", "dependencies", "additionalItems",
}

// strictFormats are the string formats strict mode supports.
var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// strictError is a strict-mode conversion failure at a place in the schema.
type strictError struct{ path, reason string }

func (e *strictError) Error() string {
	p := e.path
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("input schema at %s: %s (OpenAI strict mode)", p, e.reason)
}

// toStrict converts a whole input schema (an object schema) in place.
func toStrict(m map[string]any) error {
	delete(m, "nullable") // the root cannot be null, so strictNode returns m itself
	if _, err := strictNode(m, ""); err != nil {
		return err
	}
	// The root keeps its "type": "object", but a "$ref" next to it has become an anyOf,
	// which strict mode (and OpenAI at the top level) does not accept.
	if _, has := m["anyOf"]; has {
		return &strictError{"", "the root must be a plain object schema, not a $ref or anyOf"}
	}
	return nil
}

// strictNode converts one schema node; children first, then the node itself.
func strictNode(m map[string]any, path string) (map[string]any, error) {
	fail := func(format string, args ...any) (map[string]any, error) {
		return nil, &strictError{path, fmt.Sprintf(format, args...)}
	}
	nullable := m["nullable"] == true
	delete(m, "nullable")

	// Composition: allOf is merged into the node (one branch of any kind, or several
	// plain object schemas); oneOf becomes anyOf (an output matching exactly one branch
	// matches anyOf too).
	if all, ok := m["allOf"]; ok {
		delete(m, "allOf")
		list, _ := all.([]any)
		if err := mergeAllOf(m, list); err != nil {
			return fail("allOf cannot be merged: %v", err)
		}
	}
	if one, ok := m["oneOf"]; ok {
		if _, both := m["anyOf"]; both {
			return fail("both anyOf and oneOf")
		}
		m["anyOf"] = one
		delete(m, "oneOf")
	}
	// "$ref" cannot have siblings; keep them around an anyOf of the reference.
	if ref, ok := m["$ref"]; ok && len(m) > 1 {
		if _, has := m["anyOf"]; has {
			return fail("$ref next to anyOf")
		}
		m["anyOf"] = []any{map[string]any{"$ref": ref}}
		delete(m, "$ref")
	}

	// Notes for what strict mode cannot enforce, and annotations to drop.
	var notes []string
	for _, k := range strictNoted {
		if v, ok := m[k]; ok {
			notes = append(notes, note(k, v))
			delete(m, k)
		}
	}
	if f, ok := m["format"].(string); ok && !strictFormats[f] {
		notes = append(notes, note("format", f))
		delete(m, "format")
	}
	if p, ok := m["pattern"].(string); ok && hasLookaround(p) {
		notes = append(notes, note("pattern", p))
		delete(m, "pattern")
	}
	if list, ok := m["prefixItems"]; ok {
		notes = append(notes, note("prefixItems", list))
		delete(m, "prefixItems")
	}
	for k := range m {
		if !strictAllowed[k] {
			delete(m, k)
		}
	}
	if len(notes) > 0 {
		d, _ := m["description"].(string)
		n := strings.Join(notes, ", ")
		if d == "" {
			m["description"] = n
		} else {
			m["description"] = d + " (" + n + ")"
		}
	}

	// Infer an omitted type from the keywords that imply it.
	if _, ok := m["type"]; !ok {
		if _, ok := m["properties"]; ok {
			m["type"] = "object"
		} else if _, ok := m["items"]; ok {
			m["type"] = "array"
		}
	}
	if !typed(m) {
		return fail("a value without a type (strict mode needs type, enum, const, anyOf or $ref)")
	}

	// Children.
	for _, k := range []string{"$defs", "definitions"} {
		defs, ok := m[k].(map[string]any)
		if !ok {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(defs)) {
			sub, err := strictChild(defs[name], path+"/"+k+"/"+escapePointer(name))
			if err != nil {
				return nil, err
			}
			defs[name] = sub
		}
	}
	if list, ok := m["anyOf"].([]any); ok {
		for i, b := range list {
			sub, err := strictChild(b, fmt.Sprintf("%s/anyOf/%d", path, i))
			if err != nil {
				return nil, err
			}
			list[i] = sub
		}
	}
	if hasType(m, "array") {
		items, ok := m["items"]
		if !ok {
			return fail("an array without items")
		}
		if _, tuple := items.([]any); tuple {
			return fail("a tuple (items as an array)")
		}
		sub, err := strictChild(items, path+"/items")
		if err != nil {
			return nil, err
		}
		m["items"] = sub
	} else {
		delete(m, "items")
	}
	if hasType(m, "object") {
		if err := strictObject(m, path); err != nil {
			return nil, err
		}
	} else {
		delete(m, "properties")
		delete(m, "required")
		delete(m, "additionalProperties")
	}
	if nullable {
		return makeNullable(m), nil
	}
	return m, nil
}

// mergeAllOf merges allOf branches into m: a single branch key by key (a key m already
// has must agree, properties and required are united), several branches only when they
// are plain object schemas.
func mergeAllOf(m map[string]any, list []any) error {
	if len(list) == 1 {
		b, ok := list[0].(map[string]any)
		if !ok {
			return fmt.Errorf("branch 0 is a JSON %s", jsonKind(list[0]))
		}
		for _, k := range slices.Sorted(maps.Keys(b)) {
			v := b[k]
			old, has := m[k]
			switch {
			case !has:
				m[k] = v
			case k == "properties" || k == "required":
				if err := mergeObjectBranch(m, map[string]any{k: v}); err != nil {
					return err
				}
			case k == "description" || k == "title" || reflect.DeepEqual(old, v):
				// the outer annotation wins; equal values need nothing
			default:
				return fmt.Errorf("%q differs between the schema and its allOf", k)
			}
		}
		return nil
	}
	for i, b := range list {
		if err := mergeObjectBranch(m, b); err != nil {
			return fmt.Errorf("branch %d: %v", i, err)
		}
	}
	return nil
}

// strictObject closes an object: additionalProperties false, every property required,
// and the properties that were optional made nullable.
func strictObject(m map[string]any, path string) error {
	switch ap := m["additionalProperties"].(type) {
	case nil:
	case bool:
		if ap {
			return &strictError{path, "an open object (additionalProperties: true) cannot be expressed"}
		}
	default:
		return &strictError{path, "a map (additionalProperties with a schema) cannot be expressed"}
	}
	m["additionalProperties"] = false
	props, ok := m["properties"].(map[string]any)
	if !ok {
		if _, has := m["properties"]; has {
			return &strictError{path, "properties is not an object"}
		}
		props = map[string]any{}
		m["properties"] = props
	}
	wasRequired := requiredNames(m)
	names := slices.Sorted(maps.Keys(props))
	required := make([]any, 0, len(names))
	for _, name := range names {
		sub, err := strictChild(props[name], path+"/properties/"+escapePointer(name))
		if err != nil {
			return err
		}
		if !slices.Contains(wasRequired, name) {
			sub = makeNullable(sub)
		}
		props[name] = sub
		required = append(required, name)
	}
	m["required"] = required
	return nil
}

func strictChild(v any, path string) (map[string]any, error) {
	sub, ok := v.(map[string]any)
	if !ok {
		if v == true {
			return nil, &strictError{path, "a value without a type (schema true) cannot be expressed"}
		}
		return nil, &strictError{path, fmt.Sprintf("a schema must be an object, got a JSON %s", jsonKind(v))}
	}
	return strictNode(sub, path)
}

// makeNullable lets a strict schema also accept null: "T" becomes ["T","null"] (and
// null joins an enum), an anyOf gets a {"type":"null"} branch, and anything else
// ($ref, const, enum without type) is wrapped as anyOf [schema, {"type":"null"}].
func makeNullable(m map[string]any) map[string]any {
	if acceptsNull(m) {
		return m
	}
	switch t := m["type"].(type) {
	case string:
		m["type"] = []any{t, "null"}
		nullEnum(m)
		return m
	case []any:
		m["type"] = append(t, "null")
		nullEnum(m)
		return m
	}
	if list, ok := m["anyOf"].([]any); ok {
		m["anyOf"] = append(list, map[string]any{"type": "null"})
		return m
	}
	outer := map[string]any{}
	for _, k := range []string{"description", "title"} {
		if v, ok := m[k]; ok {
			outer[k] = v
			delete(m, k)
		}
	}
	outer["anyOf"] = []any{m, map[string]any{"type": "null"}}
	return outer
}

// nullEnum adds null to an enum (and turns a const into an enum with null) so that a
// nullable type does not stay non-null through its enum.
func nullEnum(m map[string]any) {
	if c, ok := m["const"]; ok {
		delete(m, "const")
		m["enum"] = []any{c}
	}
	if e, ok := m["enum"].([]any); ok {
		for _, v := range e {
			if v == nil {
				return
			}
		}
		m["enum"] = append(e, nil)
	}
}

// acceptsNull reports whether a strict schema already accepts null.
func acceptsNull(m map[string]any) bool {
	if hasType(m, "null") {
		return true
	}
	if list, ok := m["anyOf"].([]any); ok {
		for _, b := range list {
			if bm, ok := b.(map[string]any); ok && hasType(bm, "null") {
				return true
			}
		}
	}
	return false
}

// typed reports whether a schema constrains its value's type.
func typed(m map[string]any) bool {
	for _, k := range []string{"type", "enum", "const", "anyOf", "$ref"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// hasType reports whether the schema's "type" is t or a list containing t.
func hasType(m map[string]any, t string) bool {
	switch v := m["type"].(type) {
	case string:
		return v == t
	case []any:
		for _, x := range v {
			if x == t {
				return true
			}
		}
	}
	return false
}

// hasLookaround reports whether a regular expression uses lookahead or lookbehind,
// which OpenAI's pattern support does not include.
func hasLookaround(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' {
			i++
			continue
		}
		for _, tok := range []string{"(?=", "(?!", "(?<=", "(?<!"} {
			if strings.HasPrefix(p[i:], tok) {
				return true
			}
		}
	}
	return false
}

// note renders a dropped keyword as "key=value" (value as compact JSON, shortened).
func note(k string, v any) string {
	var s string
	if str, ok := v.(string); ok {
		s = str
	} else if b, err := json.Marshal(v); err == nil {
		s = string(b)
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return k + "=" + s
}

// strictProblems lists the strict-mode invariants a schema breaks (for Validate):
// keywords outside the subset, untyped values, objects that are not closed or whose
// required is not exactly their properties, arrays without items.
func strictProblems(v any, path string, out *[]string) {
	m, ok := v.(map[string]any)
	if !ok {
		*out = append(*out, fmt.Sprintf("%s: a schema must be an object, got a JSON %s", orRoot(path), jsonKind(v)))
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !strictAllowed[k] {
			*out = append(*out, fmt.Sprintf("%s: keyword %q is not supported in strict mode", orRoot(path), k))
		}
	}
	if !typed(m) {
		*out = append(*out, fmt.Sprintf("%s: no type", orRoot(path)))
	}
	if hasType(m, "object") {
		if m["additionalProperties"] != false {
			*out = append(*out, fmt.Sprintf("%s: additionalProperties must be false", orRoot(path)))
		}
		props, _ := m["properties"].(map[string]any)
		if _, ok := m["required"]; !ok {
			*out = append(*out, fmt.Sprintf("%s: required is missing", orRoot(path)))
		}
		req := requiredNames(m)
		slices.Sort(req)
		keys := slices.Sorted(maps.Keys(props))
		if !slices.Equal(req, keys) {
			*out = append(*out, fmt.Sprintf("%s: required %v must list every property %v", orRoot(path), req, keys))
		}
		for _, name := range keys {
			strictProblems(props[name], path+"/properties/"+escapePointer(name), out)
		}
	}
	if hasType(m, "array") {
		if items, ok := m["items"]; !ok {
			*out = append(*out, fmt.Sprintf("%s: array without items", orRoot(path)))
		} else {
			strictProblems(items, path+"/items", out)
		}
	}
	if list, ok := m["anyOf"].([]any); ok {
		for i, b := range list {
			strictProblems(b, fmt.Sprintf("%s/anyOf/%d", path, i), out)
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs, ok := m[k].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(defs)) {
				strictProblems(defs[name], path+"/"+k+"/"+escapePointer(name), out)
			}
		}
	}
}

func orRoot(path string) string {
	if path == "" {
		return "/"
	}
	return path
}
