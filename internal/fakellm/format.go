package fakellm

// What a request asks of the answer's format (structured outputs) and how it bounds
// the reply's tokens, as each wire format spells them, checked as the API checks
// them:
//
//   - Chat Completions: "response_format": {"type": "text" | "json_object" |
//     "json_schema", "json_schema": {"name" (required), "description", "schema",
//     "strict"}}; the limit is "max_completion_tokens" or the deprecated
//     "max_tokens";
//   - Responses: "text": {"format": {"type": "text" | "json_object" | "json_schema",
//     "name" and "schema" (required), "description", "strict"}}; the limit is
//     "max_output_tokens";
//   - Anthropic Messages: "output_config": {"format": {"type": "json_schema",
//     "schema" (required)}}, or the beta's older "output_format" of the same shape;
//     the limit is "max_tokens".
//
// The fake does not shape its answer to the format: the script's Reply.Text is sent
// as it is, so a test chooses the JSON the model "wrote".

//lint:file-ignore ST1005 the error strings are OpenAI's and Anthropic's own 400 messages, which the fake answers with word for word

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Format is the answer format a request asks for (Request.Format).
type Format struct {
	// Param is where the request put it: "response_format" (Chat Completions),
	// "text.format" (Responses), "output_config.format" or "output_format"
	// (Anthropic).
	Param string
	// Type is "json_object" or "json_schema".
	Type string
	// Name, Description and Strict are OpenAI's (empty on Anthropic's).
	Name        string
	Description string
	Strict      bool
	// Schema is the JSON Schema as sent.
	Schema json.RawMessage
}

// formatFields are the fields of a format object of any of the wire formats:
// Responses and Anthropic put the schema's fields next to "type", Chat Completions
// under "json_schema".
type formatFields struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Strict      *bool           `json:"strict"`
	JSONSchema  *formatFields   `json:"json_schema"`
}

func absent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// openAIFormat reads a Chat Completions response_format (param "response_format")
// or a Responses text.format (param "text.format"); nil for text. The error is the
// 400's message in OpenAI's words.
func openAIFormat(raw json.RawMessage, param string) (*Format, error) {
	if absent(raw) {
		return nil, nil
	}
	var f formatFields
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("invalid type for '%s': expected an object, but got %s instead.", param, raw)
	}
	switch f.Type {
	case "text":
		return nil, nil
	case "json_object":
		return &Format{Param: param, Type: f.Type}, nil
	case "json_schema":
	default:
		return nil, fmt.Errorf("invalid value: '%s'. Supported values are: 'text', 'json_object', and 'json_schema'. (%s.type)", f.Type, param)
	}
	fields, where := &f, param
	if param == "response_format" {
		if f.JSONSchema == nil {
			return nil, fmt.Errorf("missing required parameter: '%s.json_schema'.", param)
		}
		fields, where = f.JSONSchema, param+".json_schema"
	}
	if fields.Name == "" {
		return nil, fmt.Errorf("missing required parameter: '%s.name'.", where)
	}
	if param == "text.format" && absent(fields.Schema) {
		return nil, fmt.Errorf("missing required parameter: '%s.schema'.", where)
	}
	out := &Format{Param: param, Type: f.Type, Name: fields.Name, Description: fields.Description, Schema: fields.Schema}
	out.Strict = fields.Strict != nil && *fields.Strict
	return out, nil
}

// anthropicFormat reads output_config.format, or the older output_format; nil for
// neither. The error is the 400's message.
func anthropicFormat(config, legacy json.RawMessage) (*Format, string) {
	param, raw := "output_format", legacy
	if !absent(config) {
		var c struct {
			Format json.RawMessage `json:"format"`
		}
		if json.Unmarshal(config, &c) != nil {
			return nil, "output_config: Input should be a valid dictionary"
		}
		param, raw = "output_config.format", c.Format
	}
	if absent(raw) {
		return nil, ""
	}
	var f formatFields
	if json.Unmarshal(raw, &f) != nil {
		return nil, param + ": Input should be a valid dictionary"
	}
	switch {
	case f.Type != "json_schema":
		return nil, fmt.Sprintf("%s.type: Input should be 'json_schema'", param)
	case absent(f.Schema):
		return nil, param + ".schema: Field required"
	}
	return &Format{Param: param, Type: f.Type, Schema: f.Schema}, ""
}
