package openai

import (
	"bytes"
	"encoding/json"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/switchboard-mcp/switchboard/llm"
)

// Request.Output in OpenAI's two forms, as the API reference and the structured
// outputs guide (developers.openai.com/api/docs/guides/structured-outputs) give them:
//
//	Chat Completions: "response_format": {"type": "json_schema", "json_schema": {"name", "description", "schema", "strict"}}
//	Responses:        "text": {"format": {"type": "json_schema", "name", "description", "schema", "strict"}}
//
// and {"type": "json_object"} in either place for any JSON object. The schema is
// sent as the caller wrote it (raw JSON, its keys in their order).

// defaultFormatName names a schema that came without a name: OpenAI requires one.
const defaultFormatName = "response"

// jsonSchemaFormat is the json_schema object of both APIs (Chat Completions nests it
// under "json_schema", Responses flattens it next to "type").
type jsonSchemaFormat struct {
	Type        string          `json:"type,omitempty"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
	Strict      bool            `json:"strict"`
}

func schemaFormat(o *llm.Output) jsonSchemaFormat {
	f := jsonSchemaFormat{Name: o.Name, Description: o.Description, Schema: bytes.TrimSpace(o.Schema), Strict: o.Strict}
	if f.Name == "" {
		f.Name = defaultFormatName
	}
	return f
}

// chatResponseFormat is Output as Chat Completions' response_format.
func chatResponseFormat(o *llm.Output) sdk.ChatCompletionNewParamsResponseFormatUnion {
	if o.Schema == nil {
		return param.Override[sdk.ChatCompletionNewParamsResponseFormatUnion](json.RawMessage(`{"type":"json_object"}`))
	}
	raw, _ := json.Marshal(struct {
		Type       string           `json:"type"`
		JSONSchema jsonSchemaFormat `json:"json_schema"`
	}{"json_schema", schemaFormat(o)}) // raw JSON and strings always encode
	return param.Override[sdk.ChatCompletionNewParamsResponseFormatUnion](json.RawMessage(raw))
}

// responsesTextFormat is Output as the Responses API's text.format.
func responsesTextFormat(o *llm.Output) responses.ResponseFormatTextConfigUnionParam {
	if o.Schema == nil {
		return param.Override[responses.ResponseFormatTextConfigUnionParam](json.RawMessage(`{"type":"json_object"}`))
	}
	f := schemaFormat(o)
	f.Type = "json_schema"
	raw, _ := json.Marshal(f)
	return param.Override[responses.ResponseFormatTextConfigUnionParam](json.RawMessage(raw))
}
