package anthropic

import (
	"bytes"
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/switchboard-mcp/switchboard/llm"
)

// outputConfig is Request.Output as the Messages API's structured outputs take it
// (platform.claude.com/docs/en/build-with-claude/structured-outputs), generally
// available without a beta header:
//
//	"output_config": {"format": {"type": "json_schema", "schema": {…}}}
//
// The answer's text is then JSON that follows the schema (the API always holds it
// to the schema: there is no "strict" to set, nor a name). The API has no form for
// "any JSON object" (OpenAI's json_object): an Output without a schema is refused
// here, before anything is sent. No Output is no output_config.
func outputConfig(o *llm.Output) (sdk.OutputConfigParam, error) {
	if o == nil {
		return sdk.OutputConfigParam{}, nil
	}
	schema := bytes.TrimSpace(o.Schema)
	if len(schema) == 0 {
		return sdk.OutputConfigParam{}, &llm.UnsupportedError{Provider: "anthropic", Field: "Output",
			Message: "the Anthropic Messages API gives JSON only with a schema (structured outputs): ask for a JSON Schema (json_schema), not any JSON object (json_object)"}
	}
	raw, err := json.Marshal(map[string]any{"format": map[string]any{"type": "json_schema", "schema": json.RawMessage(schema)}})
	if err != nil { // a schema that is not JSON
		return sdk.OutputConfigParam{}, &llm.UnsupportedError{Provider: "anthropic", Field: "Output", Message: "the schema is not JSON: " + err.Error()}
	}
	return param.Override[sdk.OutputConfigParam](json.RawMessage(raw)), nil
}
