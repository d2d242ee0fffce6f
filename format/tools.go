package format

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/jsonenc"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Options tunes tool definitions.
type Options struct {
	// Strict turns on OpenAI strict mode ("strict": true): the model's arguments are
	// then guaranteed to match the schema, which is rewritten to the subset strict mode
	// accepts (see strict.go). Ignored for MCP and Anthropic.
	Strict bool
}

// ToolError says why one tool cannot be given to a provider.
type ToolError struct {
	Tool     string
	Provider Provider
	Strict   bool // the failure is about OpenAI strict mode
	Reason   string
}

func (e *ToolError) Error() string {
	mode := ""
	if e.Strict {
		mode = ", strict"
	}
	return fmt.Sprintf("tool %q (%s%s): %s", e.Tool, e.Provider, mode, e.Reason)
}

// Tools returns one definition per tool in the provider's format, in order:
//
//	OpenAI           {"type":"function","function":{"name","description","parameters","strict"?}}
//	OpenAIResponses  {"type":"function","name","description","parameters","strict"}
//	Anthropic        {"name","description","input_schema"}
//	MCP              {"name","title"?,"description"?,"inputSchema","outputSchema"?,"annotations"?}
//
// Every tool that cannot be converted is reported, each as a *ToolError, joined in the
// error; the definitions are then nil. Use [Definition] to convert tools one by one and
// skip (or retry without Strict) the ones that fail. Two tools with the same name are
// an error: both APIs reject a request with duplicate tool names.
func Tools(p Provider, tools []tool.Tool, opts *Options) ([]json.RawMessage, error) {
	if err := p.valid(); err != nil {
		return nil, err
	}
	defs, left := Usable(p, tools, opts)
	if len(left) > 0 {
		errs := make([]error, len(left))
		for i, e := range left {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	return defs, nil
}

// Usable is Tools for a model request: the definitions of every tool the provider can
// take, in order, and for each one it cannot (a schema it refuses, a duplicate name)
// the reason it was left out. One server's odd tool thus costs that tool, not every
// request of a turn.
func Usable(p Provider, tools []tool.Tool, opts *Options) (defs []json.RawMessage, left []*ToolError) {
	defs = make([]json.RawMessage, 0, len(tools))
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		if seen[t.Name] {
			left = append(left, &ToolError{Tool: t.Name, Provider: p, Reason: "the name is used by more than one tool"})
			continue
		}
		seen[t.Name] = true
		d, err := Definition(p, t, opts)
		if err != nil {
			var te *ToolError
			if !errors.As(err, &te) {
				te = &ToolError{Tool: t.Name, Provider: p, Reason: err.Error()}
			}
			left = append(left, te)
			continue
		}
		defs = append(defs, d)
	}
	return defs, left
}

// Definition returns one tool's definition in the provider's format (see [Tools]). The
// rules applied:
//
//   - Names must match [tool.NamePattern] for OpenAI and Anthropic (both document
//     ^[a-zA-Z0-9_-]{1,64}$), and MCP's 1–128 characters of [A-Za-z0-9_./-] for MCP.
//     Names are checked, never rewritten: the catalog owns naming.
//   - A missing description becomes "MCP tool: <name>" (not for MCP, which passes the
//     tool through as [tool.Tool.MCP] does: an output schema that is not an object
//     schema is left out).
//   - A missing, null or empty input schema becomes {"type":"object","properties":{}};
//     a schema without a type gets "type":"object"; a schema of another type is an
//     error naming the tool and the type.
//   - OpenAI and Anthropic reject oneOf/anyOf/allOf (OpenAI also enum/not) at the top
//     level: a single-branch anyOf/oneOf or an allOf of plain object schemas is merged
//     into the top level, anything else is an error naming the keyword.
//   - "$schema" is removed everywhere for OpenAI and Anthropic: OpenAI rejects it
//     inside strict schemas, and it is an annotation nobody needs on the wire.
//   - With Options.Strict and an OpenAI provider, the schema is converted to strict
//     mode (see strict.go); a schema that strict mode cannot express is an error.
func Definition(p Provider, t tool.Tool, opts *Options) (json.RawMessage, error) {
	if err := p.valid(); err != nil {
		return nil, err
	}
	strict := opts != nil && opts.Strict && p.isOpenAI()
	fail := func(format string, args ...any) (json.RawMessage, error) {
		return nil, &ToolError{Tool: t.Name, Provider: p, Strict: strict, Reason: fmt.Sprintf(format, args...)}
	}
	if err := p.checkName(t.Name); err != nil {
		return fail("%v", err)
	}
	schema, err := inputSchema(t.InputSchema)
	if err != nil {
		return fail("%v", err)
	}
	if p == MCP {
		// The schema was only checked: MCP takes the tool as tool.Tool.MCP makes it.
		d, err := jsonenc.Marshal(t.MCP())
		if err != nil {
			return fail("%v", err)
		}
		return d, nil
	}
	removeEverywhere(schema, "$schema")
	if err := flattenTop(p, schema); err != nil {
		return fail("%v", err)
	}
	if strict {
		if err := toStrict(schema); err != nil {
			return fail("%v", err)
		}
	}
	params, err := jsonenc.Marshal(schema)
	if err != nil {
		return fail("input schema: %v", err)
	}
	desc := t.Description
	if desc == "" {
		desc = "MCP tool: " + t.Name
	}
	var v any
	switch p {
	case OpenAI:
		f := openAIFunction{Name: t.Name, Description: desc, Parameters: params}
		if strict {
			f.Strict = &strict
		}
		v = openAIChatTool{Type: "function", Function: f}
	case OpenAIResponses:
		// The Responses API documents "strict" as defaulting to true, so it is always
		// sent explicitly.
		v = openAIResponsesTool{Type: "function", Name: t.Name, Description: desc, Parameters: params, Strict: strict}
	case Anthropic:
		v = anthropicTool{Name: t.Name, Description: desc, InputSchema: params}
	}
	return jsonenc.Marshal(v)
}

type openAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict,omitempty"`
}

type openAIChatTool struct {
	Type     string         `json:"type"`
	Function openAIFunction `json:"function"`
}

type openAIResponsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}
