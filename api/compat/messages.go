package compat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// The Anthropic-compatible endpoint: POST /v1/messages runs an unattended turn
// (turn.go) of the configured model with the catalog's tools (run here) and the
// request's own tools (returned to the client as tool_use blocks), as Anthropic's
// Messages API does (https://docs.anthropic.com/en/api/messages). Any Anthropic
// client gets every MCP server's tools by changing its base URL: the SDKs append
// "/v1/messages" to it, and send their key as "x-api-key: KEY".

// messagesRequest is what Switchboard reads of a Messages request; the other fields
// a client sends (top_p, top_k, stop_sequences, metadata, thinking …) are accepted and
// left to the configured model's settings.
type messagesRequest struct {
	Model       string             `json:"model"`
	System      json.RawMessage    `json:"system"` // a string or an array of text blocks
	Messages    []anthropicMessage `json:"messages"`
	MaxTokens   *int               `json:"max_tokens"`
	Temperature *float64           `json:"temperature"`
	Tools       []anthropicTool    `json:"tools"`
	ToolChoice  json.RawMessage    `json:"tool_choice"`
	Stream      bool               `json:"stream"`
	// OutputConfig's format, or the older beta's OutputFormat, asks for the answer
	// in JSON (output.go); output is what they ask, outputParam the field.
	OutputConfig json.RawMessage `json:"output_config"`
	OutputFormat json.RawMessage `json:"output_format"`
	output       *llm.Output
	outputParam  string
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or an array of blocks
}

// anthropicBlock is a content block of a request's message: text, tool_use (the
// assistant's), tool_result (the user's).
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // a tool_result's: a string or text blocks
	IsError   bool            `json:"is_error"`
}

type anthropicTool struct {
	Type        string          `json:"type"` // "" or "custom": the client's; others are Anthropic's server tools
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// anthropicErrorType is Anthropic's error type for a status
// (https://docs.anthropic.com/en/api/errors).
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusServiceUnavailable:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// anthropicError is the body of an error, and the data of a stream's error event:
// {"type": "error", "error": {"type", "message"}}, and "details": {"error_code"} for
// the codes that are Anthropic's own (a thread that cannot be kept or continued).
func anthropicError(e *apiError) map[string]any {
	body := map[string]any{"type": anthropicErrorType(e.Status), "message": e.Message}
	if e.Code == apiwire.CodeThreadUnsupported || e.Code == apiwire.CodeThreadNotFound {
		body["details"] = map[string]string{"error_code": e.Code}
	}
	return map[string]any{"type": "error", "error": body}
}

// WriteAnthropicError writes e in Anthropic's form, with its status.
func WriteAnthropicError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.Status, anthropicError(e))
}

// Messages answers POST /v1/messages: one turn over the request's messages, as a
// message or, with "stream": true, as Anthropic's stream events.
func (h *Handler) Messages(w http.ResponseWriter, r *http.Request) {
	raw, ok := h.turnRequest(w, r, WriteAnthropicError)
	if !ok {
		return
	}
	th, prev, e := h.threadOf(r, raw)
	if e != nil {
		WriteAnthropicError(w, e)
		return
	}
	req, sess, client, e := parseMessagesRequest(raw, prev)
	if e != nil {
		WriteAnthropicError(w, e)
		return
	}
	id := "msg_" + randomHex(12)
	h.restoreSteps(r, sess)
	turn := h.unattendedTurn(r, id, sess, client)
	turn.Temperature, turn.MaxTokens, turn.Output = req.Temperature, *req.MaxTokens, req.output
	m := &message{id: id, model: req.Model, output: req.outputParam}
	if m.model == "" {
		m.model = h.modelName()
	}
	if th != nil {
		m.keep = func() *apiError { return h.keepThread(r.Context(), th, turn.InMemory) }
	}
	log := h.logOf(r.Context()).With("message", id)
	log.Info("message started", "messages", len(sess.Messages), "client_tools", len(client), "stream", req.Stream)
	if !req.Stream {
		res, err := h.runTurn(r.Context(), turn)
		if err != nil {
			log.Info("message failed", "error", err)
			WriteAnthropicError(w, h.turnError(err, m.output))
			return
		}
		if e := m.kept(); e != nil {
			log.Info("message not kept", "error", e)
			WriteAnthropicError(w, e)
			return
		}
		log.Info("message done", "steps", len(res.Steps))
		h.keepStep(r, res)
		writeJSON(w, http.StatusOK, m.whole(res))
		return
	}
	h.streamMessage(w, r, m, turn)
}

// parseMessagesRequest reads the request into a session holding its messages (after
// a copy of prev's history, the thread it continues, if any), and the client's tools.
// Its errors are Anthropic's for the same mistakes where they have one ("max_tokens:
// Field required").
func parseMessagesRequest(raw map[string]json.RawMessage, prev *session.Session) (*messagesRequest, *session.Session, []tool.Tool, *apiError) {
	var req messagesRequest
	data, _ := json.Marshal(raw) // a map of raw values marshals
	if err := json.Unmarshal(data, &req); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field != "" {
			return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "%s: is %s, want %s", typ.Field, typ.Value, httpx.JSONType(typ.Type.Kind().String()))
		}
		return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "%s", httpx.TrimJSONPrefix(err.Error()))
	}
	if req.MaxTokens == nil {
		return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "max_tokens: Field required")
	}
	if *req.MaxTokens < 1 {
		return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "max_tokens: want at least 1, got %d", *req.MaxTokens)
	}
	if tc := bytes.TrimSpace(req.ToolChoice); len(tc) > 0 && string(tc) != "null" {
		var choice struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(tc, &choice) != nil || choice.Type != "auto" {
			return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeUnsupported, `tool_choice: only {"type": "auto"} is supported`)
		}
	}
	var e *apiError
	if req.output, req.outputParam, e = anthropicOutput(req.OutputConfig, req.OutputFormat); e != nil {
		return nil, nil, nil, e
	}
	var client []tool.Tool
	for i, t := range req.Tools {
		where := fmt.Sprintf("tools.%d", i)
		if t.Type != "" && t.Type != "custom" {
			return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeUnsupported, "%s: type %q: only the client's own tools (custom) are supported", where, t.Type)
		}
		if !tool.NamePattern.MatchString(t.Name) {
			return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s.name: %q: want 1 to %d of a-z, A-Z, 0-9, _ and -", where, t.Name, tool.MaxNameLen)
		}
		schema := bytes.TrimSpace(t.InputSchema)
		if len(schema) == 0 || string(schema) == "null" {
			schema = []byte(`{"type":"object","properties":{}}`)
		} else if schema[0] != '{' {
			return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s.input_schema: want a JSON Schema object", where)
		}
		client = append(client, tool.Tool{Name: t.Name, OriginalName: t.Name, Server: "client", Description: t.Description, InputSchema: json.RawMessage(schema)})
	}
	system, e := blocksText(req.System, "system")
	if e != nil {
		return nil, nil, nil, e
	}
	sess, e := sessionOfMessages(prev, req.Messages)
	if e != nil {
		return nil, nil, nil, e
	}
	sess.System = system
	return &req, sess, client, nil
}

// sessionOfMessages turns the request's messages into a session's history, after a
// copy of prev's (a thread continued; nil: none): a user message's tool_result blocks
// answer the tool_use blocks of an assistant message before it, and its text follows
// them.
func sessionOfMessages(prev *session.Session, msgs []anthropicMessage) (*session.Session, *apiError) {
	if len(msgs) == 0 {
		return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "messages: at least one message is required")
	}
	sess := &session.Session{}
	names := map[string]string{} // tool_use id → tool name, for the tool results
	if prev != nil {
		sess.Messages, sess.Loaded, sess.Usage = slices.Clone(prev.Messages), slices.Clone(prev.Loaded), prev.Usage
		for _, m := range prev.Messages {
			for _, c := range m.Calls {
				names[c.ID] = c.Name
			}
		}
	}
	for i, m := range msgs {
		where := fmt.Sprintf("messages.%d", i)
		blocks, e := contentBlocks(m.Content, where)
		if e != nil {
			return nil, e
		}
		var text strings.Builder
		switch m.Role {
		case "user":
			results := 0
			for j, b := range blocks {
				switch b.Type {
				case "text":
					text.WriteString(b.Text)
				case "tool_result":
					name, ok := names[b.ToolUseID]
					if !ok {
						return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s.content.%d: tool_use_id %q answers no tool_use block of an earlier assistant message", where, j, b.ToolUseID)
					}
					out, e := blocksText(b.Content, fmt.Sprintf("%s.content.%d.content", where, j))
					if e != nil {
						return nil, e
					}
					res := tool.TextResult(out)
					res.IsError = b.IsError
					sess.Messages = append(sess.Messages, llm.Message{Role: llm.RoleTool, CallID: b.ToolUseID, Name: name, Result: res})
					results++
				default:
					return nil, errorf(http.StatusBadRequest, apiwire.CodeUnsupported, "%s.content.%d: type %q: a user message takes text and tool_result blocks", where, j, b.Type)
				}
			}
			if text.Len() > 0 || results == 0 {
				sess.Messages = append(sess.Messages, llm.Message{Role: llm.RoleUser, Text: text.String()})
			}
		case "assistant":
			msg := llm.Message{Role: llm.RoleAssistant}
			for j, b := range blocks {
				switch b.Type {
				case "text":
					text.WriteString(b.Text)
				case "tool_use":
					if b.ID == "" || b.Name == "" {
						return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s.content.%d: a tool_use block needs its id and name", where, j)
					}
					names[b.ID] = b.Name
					args := string(bytes.TrimSpace(b.Input))
					if args == "" || args == "null" {
						args = "{}"
					}
					msg.Calls = append(msg.Calls, llm.Call{ID: b.ID, Name: b.Name, Arguments: args})
				case "thinking", "redacted_thinking":
					// Another model's reasoning, which this one cannot read: left out.
				default:
					return nil, errorf(http.StatusBadRequest, apiwire.CodeUnsupported, "%s.content.%d: type %q: an assistant message takes text and tool_use blocks", where, j, b.Type)
				}
			}
			msg.Text = text.String()
			sess.Messages = append(sess.Messages, msg)
		default:
			return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s.role: %q: want user or assistant", where, m.Role)
		}
	}
	if last := sess.Messages[len(sess.Messages)-1]; last.Role == llm.RoleAssistant {
		return nil, errorf(http.StatusBadRequest, apiwire.CodeUnsupported, "messages: the last message must be the user's: an assistant message to continue (a prefill) is not supported")
	}
	return sess, nil
}

// contentBlocks is a message's content as blocks: a string is one text block.
func contentBlocks(raw json.RawMessage, where string) ([]anthropicBlock, *apiError) {
	raw = bytes.TrimSpace(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s.content: want a string or an array of content blocks", where)
	}
	return blocks, nil
}

// blocksText is the text of a system prompt or of a tool result: absent, a string,
// or an array of text blocks. Images and documents are refused: the session's
// messages hold text.
func blocksText(raw json.RawMessage, where string) (string, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s: want a string or an array of text blocks", where)
	}
	var parts []string
	for j, b := range blocks {
		if b.Type != "text" {
			return "", errorf(http.StatusBadRequest, apiwire.CodeUnsupported, "%s.%d: type %q: only text blocks are supported", where, j, b.Type)
		}
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n\n"), nil
}

// message is one response's identity: its id and the model it names, the field
// that asked for an answer format ("" none), and what keeps its thread once the
// turn is done (nil: it has none).
type message struct {
	id     string
	model  string
	output string
	keep   func() *apiError
}

// kept keeps the message's thread, if it has one.
func (m *message) kept() *apiError {
	if m.keep == nil {
		return nil
	}
	return m.keep()
}

type anthropicUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// stopReason is Anthropic's name for why the turn ended.
func stopReason(t *conversation.Result) string {
	switch {
	case len(t.ClientCalls) > 0:
		return "tool_use"
	case t.Stop == llm.StopMaxTokens:
		return "max_tokens"
	}
	return "end_turn"
}

// callInput is a call's arguments as a tool_use block's input: a JSON object ({}
// for none, or for arguments the model did not write as JSON).
func callInput(c llm.Call) json.RawMessage {
	args := bytes.TrimSpace([]byte(c.Arguments))
	if len(args) == 0 || args[0] != '{' || !json.Valid(args) {
		return json.RawMessage("{}")
	}
	return args
}

func toolUseBlock(c llm.Call, input json.RawMessage) map[string]any {
	return map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": input}
}

// body is the message with its content so far and no stop reason: a stream's
// message_start has it, and whole adds the rest.
func (m *message) body(content []map[string]any, usage anthropicUsage) map[string]any {
	return map[string]any{"id": m.id, "type": "message", "role": "assistant", "model": m.model,
		"content": content, "stop_reason": nil, "stop_sequence": nil, "usage": usage}
}

// whole is the message of a turn: its last answer's text and the calls to the
// client's tools, and the turn's usage, every step counted.
func (m *message) whole(t *conversation.Result) map[string]any {
	content := []map[string]any{}
	if t.Answer != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Answer})
	}
	for _, c := range t.ClientCalls {
		content = append(content, toolUseBlock(c, callInput(c)))
	}
	body := m.body(content, anthropicUsage{t.Usage.InputTokens, t.Usage.OutputTokens})
	body["stop_reason"] = stopReason(t)
	return body
}
