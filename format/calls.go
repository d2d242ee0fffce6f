package format

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/tool"
)

// Call is one tool call read from a provider response.
type Call struct {
	// ID is the provider's call id, to be echoed in the result (OpenAI chat
	// tool_calls[].id, Responses call_id, Anthropic tool_use id). Empty when the
	// provider sent none (some OpenAI-compatible servers).
	ID   string `json:"id"`
	Name string `json:"name"`
	// Args is the arguments object; nil when Err is set.
	Args json.RawMessage `json:"args,omitempty"`
	// Arguments is the arguments text as the model sent it (OpenAI's arguments
	// string, Anthropic's input), malformed or not: what CallItem writes back, so
	// that a conversation repeats what the model said. Args is what to run.
	Arguments string `json:"-"`
	// Err says why the call cannot run as sent (malformed arguments, no name), in words
	// the model can act on. The call still needs an answer: send ErrorResult.
	Err string `json:"error,omitempty"`
}

// ErrorResult is the error result to send back for a call whose Err is set, or nil
// when the call is well-formed.
func (c Call) ErrorResult() *tool.Result {
	if c.Err == "" {
		return nil
	}
	return tool.ErrorResult("%s", c.Err)
}

// ParseCalls reads the tool calls out of a provider response, in order:
//
//   - OpenAI: the assistant message ({"role":"assistant","tool_calls":[...]}); the
//     whole completion (its first choice) or the tool_calls array are accepted too.
//     Each call is {"id","type":"function","function":{"name","arguments"}} where
//     arguments is a JSON string.
//   - OpenAIResponses: the output array; the whole response ({"output":[...]}) or a
//     single item are accepted too. Calls are the {"type":"function_call","call_id",
//     "name","arguments"} items; other items (messages, reasoning) are skipped.
//   - Anthropic: the content array, or the message/response holding it. Calls are the
//     {"type":"tool_use","id","name","input"} blocks; other blocks are skipped.
//
// Arguments that are empty (or null) mean {}. Arguments that are not JSON, or not a
// JSON object, do not fail the parse: the Call gets Err instead. The error is only for
// a response that does not have the expected shape at all. No calls is an empty slice.
func ParseCalls(p Provider, raw json.RawMessage) ([]Call, error) {
	if err := p.valid(); err != nil {
		return nil, err
	}
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return []Call{}, nil
	}
	switch p {
	case OpenAI:
		return parseOpenAIChat(raw)
	case OpenAIResponses:
		return parseOpenAIResponses(raw)
	case Anthropic:
		return parseAnthropic(raw)
	}
	return nil, fmt.Errorf("format: %s responses carry no tool calls to parse", p)
}

// envelope holds the fields any of the accepted shapes may have.
type envelope struct {
	Choices   []struct{ Message json.RawMessage } `json:"choices"`
	Message   json.RawMessage                     `json:"message"`
	ToolCalls json.RawMessage                     `json:"tool_calls"`
	Output    json.RawMessage                     `json:"output"`
	Content   json.RawMessage                     `json:"content"`
	Type      string                              `json:"type"`
}

func parseOpenAIChat(raw json.RawMessage) ([]Call, error) {
	if isNull(raw) { // a choice without a message, or "message": null
		return []Call{}, nil
	}
	list := raw
	if raw[0] == '{' {
		var env envelope
		if err := json.Unmarshal(raw, &env); err != nil {
			return nil, fmt.Errorf("format: openai: not an assistant message: %v", err)
		}
		switch {
		case env.Choices != nil:
			if len(env.Choices) == 0 {
				return []Call{}, nil
			}
			return parseOpenAIChat(env.Choices[0].Message)
		case env.Message != nil:
			return parseOpenAIChat(env.Message)
		}
		list = env.ToolCalls
	}
	type item struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function *struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	return parseItems(list, false, "openai: tool_calls is not a list of tool calls", func(it item) (Call, bool) {
		c := Call{ID: it.ID}
		switch {
		case it.Type != "" && it.Type != "function":
			c.Err = fmt.Sprintf("tool call type %q is not supported; call the tools as functions", it.Type)
		case it.Function == nil:
			c.Err = "the tool call has no function"
		default:
			c.Name = it.Function.Name
			c.Arguments, c.Args, c.Err = arguments(c.Name, it.Function.Arguments, true)
		}
		return c, true
	})
}

func parseOpenAIResponses(raw json.RawMessage) ([]Call, error) {
	list, single := raw, false
	if raw[0] == '{' {
		var env envelope
		if err := json.Unmarshal(raw, &env); err != nil {
			return nil, fmt.Errorf("format: openai-responses: not a response output: %v", err)
		}
		if env.Output != nil || env.Type == "" {
			list = env.Output
		} else {
			single = true
		}
	}
	type item struct {
		Type      string          `json:"type"`
		CallID    string          `json:"call_id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	return parseItems(list, single, "openai-responses: output is not a list of items", func(it item) (Call, bool) {
		if it.Type != "function_call" {
			return Call{}, false
		}
		c := Call{ID: it.CallID, Name: it.Name}
		c.Arguments, c.Args, c.Err = arguments(c.Name, it.Arguments, true)
		return c, true
	})
}

func parseAnthropic(raw json.RawMessage) ([]Call, error) {
	list, single := raw, false
	if raw[0] == '{' {
		var env envelope
		if err := json.Unmarshal(raw, &env); err != nil {
			return nil, fmt.Errorf("format: anthropic: not a message: %v", err)
		}
		if env.Type == "tool_use" {
			single = true
		} else {
			list = env.Content
		}
	}
	if len(list) > 0 && list[0] == '"' { // string content: no tool use
		return []Call{}, nil
	}
	type block struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	return parseItems(list, single, "anthropic: content is not a list of blocks", func(b block) (Call, bool) {
		if b.Type != "tool_use" {
			return Call{}, false
		}
		c := Call{ID: b.ID, Name: b.Name}
		c.Arguments, c.Args, c.Err = arguments(c.Name, b.Input, false)
		return c, true
	})
}

// parseItems decodes the items of a response (a JSON array of them, or one item when
// single) and turns them into calls: call makes one item into a call, or reports
// false for an item that is not a call. No list (null) is no calls. A list that does
// not decode is the error "format: <what>: <why>".
func parseItems[T any](list json.RawMessage, single bool, what string, call func(T) (Call, bool)) ([]Call, error) {
	var items []T
	var err error
	switch {
	case single:
		items = make([]T, 1)
		err = json.Unmarshal(list, &items[0])
	case isNull(list):
		return []Call{}, nil
	default:
		err = json.Unmarshal(list, &items)
	}
	if err != nil {
		return nil, fmt.Errorf("format: %s: %v", what, err)
	}
	calls := make([]Call, 0, len(items))
	for _, it := range items {
		if c, ok := call(it); ok {
			calls = append(calls, checkName(c))
		}
	}
	return calls, nil
}

// ParseCall reads one call whose arguments came as text — the deltas of a stream
// joined, or a call kept in a conversation — as ParseCalls reads each call of a
// response: empty (or null) arguments mean {}, and arguments that are not a JSON
// object give the Call Err instead of Args. A call without a name gets Err too.
func ParseCall(id, name, arguments string) Call {
	c := Call{ID: id, Name: name, Arguments: arguments}
	c.Args, c.Err = readArguments(name, arguments)
	return checkName(c)
}

// arguments reads a call's raw arguments: the text the model sent, and the
// arguments object or why there is none. OpenAI sends a JSON string holding the
// text (encoded true); some compatible servers send the object itself, which is
// accepted too.
func arguments(name string, raw json.RawMessage, encoded bool) (string, json.RawMessage, string) {
	raw = bytes.TrimSpace(raw)
	if encoded && len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return string(raw), nil, fmt.Sprintf("arguments for tool %q are not a valid JSON string: %v", name, err)
		}
		args, msg := readArguments(name, s)
		return s, args, msg
	}
	args, msg := readArguments(name, string(raw))
	return string(raw), args, msg
}

// readArguments turns arguments text into a JSON object, compacted: empty or null
// means {}; anything else but an object is the reason, in words for the model.
func readArguments(name, text string) (json.RawMessage, string) {
	raw := bytes.TrimSpace([]byte(text))
	if isNull(raw) {
		return json.RawMessage("{}"), ""
	}
	if raw[0] != '{' {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Sprintf("arguments for tool %q are not valid JSON: %v; send the arguments as one JSON object", name, err)
		}
		return nil, fmt.Sprintf("arguments for tool %q must be a JSON object, got a JSON %s", name, jsonKind(v))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Sprintf("arguments for tool %q are not valid JSON: %v; send the arguments as one JSON object", name, err)
	}
	return buf.Bytes(), ""
}

func checkName(c Call) Call {
	if c.Name == "" && c.Err == "" {
		c.Args = nil
		c.Err = "the tool call has no tool name; call a tool by its name"
	}
	return c
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}
