package format

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Validate checks tool definitions against the provider's published constraints and
// reports every problem found (joined), each naming the definition's index and tool:
//
//   - the definition's shape (OpenAI: "type":"function" and a "function" object for
//     chat, flat fields and an explicit boolean "strict" for responses; Anthropic:
//     name and input_schema; MCP: name and inputSchema);
//   - names: [tool.NamePattern] for OpenAI and Anthropic, MCP's 1–128 characters for MCP,
//     and no name twice;
//   - the parameters: an object schema ("type":"object") at the top level without the
//     keywords the provider rejects there, no "$schema" for OpenAI;
//   - strict mode ("strict": true): every object has "additionalProperties": false and
//     "required" listing exactly its properties, every value has a type, arrays have
//     items, and only keywords of the strict subset are used.
func Validate(p Provider, defs []json.RawMessage) error {
	if err := p.valid(); err != nil {
		return err
	}
	var errs []error
	seen := map[string]int{}
	for i, raw := range defs {
		name, problems := validateOne(p, raw)
		if prev, dup := seen[name]; dup && name != "" {
			problems = append(problems, fmt.Sprintf("the name is also used by definition %d", prev))
		} else {
			seen[name] = i
		}
		for _, pr := range problems {
			errs = append(errs, fmt.Errorf("%s definition %d (%q): %s", p, i, name, pr))
		}
	}
	return errors.Join(errs...)
}

// validateOne returns the definition's name (when it has one) and its problems.
func validateOne(p Provider, raw json.RawMessage) (string, []string) {
	v, err := decodeJSON(raw)
	if err != nil {
		return "", []string{fmt.Sprintf("not valid JSON: %v", err)}
	}
	d, ok := v.(map[string]any)
	if !ok {
		return "", []string{fmt.Sprintf("a definition must be a JSON object, got a JSON %s", jsonKind(v))}
	}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	fields := d
	schemaKey := "parameters"
	switch p {
	case OpenAI:
		if d["type"] != "function" {
			add(`"type" must be "function"`)
		}
		f, ok := d["function"].(map[string]any)
		if !ok {
			add(`"function" must be an object`)
			f = map[string]any{}
		}
		fields = f
	case OpenAIResponses:
		if d["type"] != "function" {
			add(`"type" must be "function"`)
		}
		if _, ok := d["strict"].(bool); !ok {
			add(`"strict" must be given as a boolean (the Responses API defaults it to true)`)
		}
	case Anthropic:
		schemaKey = "input_schema"
	case MCP:
		schemaKey = "inputSchema"
	}

	name, _ := fields["name"].(string)
	if err := p.checkName(name); err != nil {
		add("%v", err)
	}
	if desc, ok := fields["description"]; ok {
		if _, isString := desc.(string); !isString {
			add(`"description" must be a string`)
		}
	}
	schema, ok := fields[schemaKey].(map[string]any)
	if !ok {
		add("%q must be a JSON Schema object", schemaKey)
		return name, problems
	}
	if schema["type"] != "object" {
		add("%s must have \"type\": \"object\" at the top level, got %v", schemaKey, schema["type"])
	}
	for _, k := range topLevelForbidden(p) {
		if _, has := schema[k]; has {
			add("%s has %q at the top level, which %s rejects", schemaKey, k, providerLabel(p))
		}
	}
	if p.isOpenAI() && containsKeyword(schema, "$schema") {
		add(`%s contains "$schema"`, schemaKey)
	}
	if p == MCP {
		if out, has := fields["outputSchema"]; has {
			if om, ok := out.(map[string]any); !ok || om["type"] != "object" {
				add(`outputSchema must be an object schema`)
			}
		}
	}
	if fields["strict"] == true {
		var sp []string
		strictProblems(schema, "", &sp)
		for _, s := range sp {
			add("strict mode: %s", s)
		}
	}
	return name, problems
}

// containsKeyword reports whether a schema or any subschema uses keyword k.
func containsKeyword(m map[string]any, k string) bool {
	if _, ok := m[k]; ok {
		return true
	}
	found := false
	eachSubschema(m, "", func(sub map[string]any, _ string) {
		if !found && containsKeyword(sub, k) {
			found = true
		}
	})
	return found
}
