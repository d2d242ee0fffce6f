package format

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/jsonenc"
)

// CallItem writes one call as the provider's request takes it back in the
// conversation, in the shape ParseCalls reads:
//
//   - OpenAI: a tool_calls entry, {"id","type":"function","function":{"name","arguments"}}.
//   - OpenAIResponses: an input item, {"type":"function_call","call_id","name","arguments"}.
//   - Anthropic: a content block, {"type":"tool_use","id","name","input"}.
//
// The arguments are c.Arguments as the model sent them, or c.Args when there is no
// text, or {} when there is neither (some servers choke on an empty string in the
// history). OpenAI's arguments are a string, so even malformed text goes back as
// sent; Anthropic's input must be an object, so arguments that are not one (a call
// answered with its ErrorResult) go back as {}.
func CallItem(p Provider, c Call) (json.RawMessage, error) {
	text := c.Arguments
	if strings.TrimSpace(text) == "" {
		text = "{}"
		if c.Args != nil {
			text = string(c.Args)
		}
	}
	if err := writesCalls(p); err != nil {
		return nil, err
	}
	switch p {
	case OpenAI:
		return jsonenc.Marshal(openAICall{ID: c.ID, Type: "function", Function: openAICallFunction{Name: c.Name, Arguments: text}})
	case OpenAIResponses:
		return jsonenc.Marshal(functionCall{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: text})
	default: // Anthropic
		input, bad := readArguments(c.Name, text)
		if bad != "" {
			input = json.RawMessage("{}")
		}
		return jsonenc.Marshal(anthropicToolUse{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input})
	}
}

// CallMessage writes an assistant turn with text (may be empty) and calls (may be
// none), each call as CallItem writes it, in the shape ParseCalls reads:
//
//   - OpenAI: the assistant message, {"role":"assistant","content","tool_calls"};
//     content is null when there are calls and no text (the API wants content
//     unless tool_calls is set), and tool_calls is left out when there are none.
//   - OpenAIResponses: the list of input items, the text as an assistant message
//     ({"role":"assistant","content"}) followed by a function_call item per call.
//   - Anthropic: the assistant message, {"role":"assistant","content":[...]}, with
//     a text block (none for empty text, which the API refuses) and a tool_use block
//     per call.
func CallMessage(p Provider, text string, calls []Call) (json.RawMessage, error) {
	if err := writesCalls(p); err != nil {
		return nil, err
	}
	items := make([]json.RawMessage, 0, len(calls)+1)
	for i, c := range calls {
		raw, err := CallItem(p, c)
		if err != nil {
			return nil, fmt.Errorf("%w (call %d)", err, i)
		}
		items = append(items, raw)
	}
	switch p {
	case OpenAI:
		m := openAIAssistant{Role: "assistant", ToolCalls: items}
		if text != "" || len(calls) == 0 {
			m.Content = &text
		}
		return jsonenc.Marshal(m)
	case OpenAIResponses:
		if text != "" {
			msg, err := jsonenc.Marshal(shortMessage{Role: "assistant", Content: text})
			if err != nil {
				return nil, err
			}
			items = append([]json.RawMessage{msg}, items...)
		}
		return jsonenc.Marshal(items)
	default: // Anthropic
		if text != "" {
			block, err := jsonenc.Marshal(anthropicText{Type: "text", Text: text})
			if err != nil {
				return nil, err
			}
			items = append([]json.RawMessage{block}, items...)
		}
		return jsonenc.Marshal(anthropicMessage{Role: "assistant", Content: items})
	}
}

// writesCalls says why p has no assistant turns to write calls into.
func writesCalls(p Provider) error {
	if err := p.valid(); err != nil {
		return err
	}
	if p == MCP {
		return fmt.Errorf("format: %s has no assistant messages to write tool calls into", p)
	}
	return nil
}

type openAICall struct {
	ID       string             `json:"id"`
	Type     string             `json:"type"`
	Function openAICallFunction `json:"function"`
}

type openAICallFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type openAIAssistant struct {
	Role      string            `json:"role"`
	Content   *string           `json:"content"`
	ToolCalls []json.RawMessage `json:"tool_calls,omitempty"`
}

type functionCall struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type shortMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// anthropicToolUse has its keys in the order the Anthropic SDK writes a tool_use
// block (alphabetical): a backend that wrote them through the SDK before sends the
// same bytes now.
type anthropicToolUse struct {
	ID    string          `json:"id"`
	Input json.RawMessage `json:"input"`
	Name  string          `json:"name"`
	Type  string          `json:"type"`
}

type anthropicMessage struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}
