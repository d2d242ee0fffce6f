package compat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/llm"
)

// Structured outputs: each API's way of asking for the answer in JSON, read into
// the one llm.Output that the configured model's backend writes in its provider's
// form (response_format, text.format, output_config.format). The answer comes back
// where each SDK's parse helper reads it: the message's content (Chat Completions),
// the output_text (Responses), the text block (Messages).
//
//   - Chat Completions, "response_format": {"type": "text"} (the default),
//     {"type": "json_object"}, or {"type": "json_schema", "json_schema": {"name",
//     "description", "schema", "strict"}}
//     (https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format);
//   - Responses, "text": {"format": …}, the same types with the json_schema's fields
//     flat beside "type"
//     (https://platform.openai.com/docs/api-reference/responses/create#responses-create-text);
//   - Messages, "output_config": {"format": {"type": "json_schema", "schema"}}, or the
//     older beta's "output_format" of the same shape
//     (https://platform.claude.com/docs/en/build-with-claude/structured-outputs).
//
// A backend that cannot give what is asked (any JSON object, on Anthropic's API)
// refuses the turn's first request before anything is sent (llm.UnsupportedError):
// turnError makes that a 400 naming the request's field.

// formatNamePattern is OpenAI's rule for a format's name.
var formatNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// outputFormat is a format object of any of the three APIs: Responses and
// Anthropic's put the schema's fields beside "type", Chat Completions under
// "json_schema".
type outputFormat struct {
	Type        string          `json:"type"`
	Name        *string         `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Strict      *bool           `json:"strict"`
	JSONSchema  *outputFormat   `json:"json_schema"`
}

func isAbsent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// schemaObject checks that a format's schema is a JSON Schema object.
func schemaObject(raw json.RawMessage, param string) (json.RawMessage, *paramError) {
	raw = bytes.TrimSpace(raw)
	switch {
	case isAbsent(raw):
		return nil, badParam(param, apiwire.CodeBadRequest, "%q: required: the JSON Schema the answer follows (for any JSON object, ask for json_object)", param)
	case raw[0] != '{':
		return nil, badParam(param, apiwire.CodeBadRequest, "%q: want a JSON Schema object", param)
	}
	return raw, nil
}

// openAIOutput reads a Chat Completions response_format (param "response_format")
// or a Responses text.format (param "text.format"): nil for text.
func openAIOutput(raw json.RawMessage, param string) (*llm.Output, *paramError) {
	if isAbsent(raw) {
		return nil, nil
	}
	var f outputFormat
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, badParam(param, apiwire.CodeBadRequest, "%q: want a format object: %s", param, err)
	}
	switch f.Type {
	case "text":
		return nil, nil
	case "json_object":
		return &llm.Output{}, nil
	case "json_schema":
	default:
		return nil, badParam(param+".type", apiwire.CodeUnsupported, "%q: type %q: want text, json_object or json_schema", param+".type", f.Type)
	}
	fields, where := &f, param
	if param == "response_format" {
		if f.JSONSchema == nil {
			return nil, badParam(param+".json_schema", apiwire.CodeBadRequest, "%q: required with type json_schema", param+".json_schema")
		}
		fields, where = f.JSONSchema, param+".json_schema"
	}
	if fields.Name == nil || !formatNamePattern.MatchString(*fields.Name) {
		return nil, badParam(where+".name", apiwire.CodeBadRequest, "%q: required: 1 to 64 of a-z, A-Z, 0-9, _ and -", where+".name")
	}
	schema, pe := schemaObject(fields.Schema, where+".schema")
	if pe != nil {
		return nil, pe
	}
	return &llm.Output{Schema: schema, Name: *fields.Name, Description: fields.Description, Strict: fields.Strict != nil && *fields.Strict}, nil
}

// anthropicOutput reads a Messages request's output_config.format, or its older
// output_format: nil for neither. param is the field it came in.
func anthropicOutput(config, legacy json.RawMessage) (out *llm.Output, param string, e *apiError) {
	param, raw := "output_format", legacy
	if !isAbsent(config) {
		var c struct {
			Format json.RawMessage `json:"format"`
		}
		if err := json.Unmarshal(config, &c); err != nil {
			return nil, "", errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "output_config: want an object: %s", err)
		}
		param, raw = "output_config.format", c.Format
	}
	if isAbsent(raw) {
		return nil, "", nil
	}
	var f outputFormat
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, "", errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s: want an object: %s", param, err)
	}
	if f.Type != "json_schema" {
		return nil, "", errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s.type: %q: want json_schema", param, f.Type)
	}
	schema, pe := schemaObject(f.Schema, param+".schema")
	if pe != nil {
		return nil, "", pe.apiError
	}
	// Anthropic's structured outputs always hold the answer to the schema.
	return &llm.Output{Schema: schema, Strict: true}, param, nil
}

// turnError is completionError for the turn of a request whose field output asked
// for an answer format ("" for none): a model that cannot give it refused the
// turn's first request before sending it, which is the request's fault, a 400
// that names the field.
func (h *Handler) turnError(err error, output string) *apiError {
	var ue *llm.UnsupportedError
	if errors.As(err, &ue) {
		field := output
		if field == "" || ue.Field != "Output" {
			field = ue.Field
		}
		return errorf(http.StatusBadRequest, apiwire.CodeUnsupported, "%s", fmt.Sprintf("%s: the configured model cannot give this: %s", field, ue.Message))
	}
	return h.completionError(err)
}
