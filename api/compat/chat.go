package compat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// The OpenAI-compatible endpoints: POST /v1/chat/completions runs a turn of the
// configured model with the catalog's tools (run here) and the request's own tools
// (returned to the client as tool_calls), over the request's messages only; GET
// /v1/models lists the configured model. Any OpenAI client gets every MCP server's
// tools by changing its base URL. The formats are OpenAI's published Chat
// Completions API (https://platform.openai.com/docs/api-reference/chat).

// chatRequest is what Switchboard reads of a Chat Completions request; the other
// fields an OpenAI client sends (top_p, user, metadata …) are accepted and left to
// the configured model's settings.
type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	// MaxCompletionTokens replaces MaxTokens, which OpenAI deprecated; either bounds
	// each of the turn's replies.
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MaxTokens           *int            `json:"max_tokens"`
	Temperature         *float64        `json:"temperature"`
	Tools               []chatTool      `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	N                   *int            `json:"n"`
	// ResponseFormat asks for the answer in JSON (output.go).
	ResponseFormat json.RawMessage `json:"response_format"`
	output         *llm.Output
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // a string, null, or an array of parts
	ToolCalls  []chatToolCall  `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	Index    *int   `json:"index,omitempty"` // streamed chunks only
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// Models answers GET /v1/models: the configured model, or none (the wire
// package's, which the CLI decodes).
func (h *Handler) Models(w http.ResponseWriter, r *http.Request) {
	body := apiwire.Models{Object: "list", Data: []apiwire.Model{}}
	if h.opts.Conversations != nil {
		body.Data = append(body.Data, apiwire.Model{ID: h.modelName(), Object: "model", Created: processStart.Unix(), OwnedBy: "switchboard"})
	}
	writeJSON(w, http.StatusOK, body)
}

// ChatCompletions answers POST /v1/chat/completions: one turn over the request's
// messages, in a session of its own that is forgotten afterwards (the user's
// sessions are not touched), as a chat.completion or, with "stream": true, as
// chat.completion.chunk events.
func (h *Handler) ChatCompletions(w http.ResponseWriter, r *http.Request) {
	raw, ok := h.turnRequest(w, r, WriteOpenAIError)
	if !ok {
		return
	}
	req, sess, client, e := parseChatRequest(raw)
	if e != nil {
		WriteOpenAIError(w, e)
		return
	}
	id := "chatcmpl-" + randomHex(12)
	h.restoreSteps(r, sess)
	turn := h.unattendedTurn(r, id, sess, client)
	c := &completion{id: id, created: time.Now().Unix(), model: req.Model}
	if req.output != nil {
		c.output = "response_format"
	}
	if c.model == "" {
		c.model = h.modelName()
	}
	log := h.logOf(r.Context()).With("completion", id)
	log.Info("chat completion started", "messages", len(sess.Messages), "client_tools", len(client), "stream", req.Stream)
	// The turn is observed as a chat's (unattendedTurn), and a stream renders its
	// text (streamCompletion).
	turn.Temperature, turn.Output = req.Temperature, req.output
	switch {
	case req.MaxCompletionTokens != nil:
		turn.MaxTokens = *req.MaxCompletionTokens
	case req.MaxTokens != nil:
		turn.MaxTokens = *req.MaxTokens
	}
	if !req.Stream {
		res, err := h.runTurn(r.Context(), turn)
		if err != nil {
			log.Info("chat completion failed", "error", err)
			WriteOpenAIError(w, h.turnError(err, c.output))
			return
		}
		log.Info("chat completion done", "steps", len(res.Steps))
		h.keepStep(r, res)
		writeJSON(w, http.StatusOK, c.whole(res))
		return
	}
	h.streamCompletion(w, r, c, turn, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
}

// parseChatRequest reads the request into a session holding its messages, and the
// client's tools.
func parseChatRequest(raw map[string]json.RawMessage) (*chatRequest, *session.Session, []tool.Tool, *apiError) {
	var req chatRequest
	data, _ := json.Marshal(raw) // a map of raw values marshals
	if err := json.Unmarshal(data, &req); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field != "" {
			return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "%q is %s, want %s", typ.Field, typ.Value, httpx.JSONType(typ.Type.Kind().String()))
		}
		return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "%s", httpx.TrimJSONPrefix(err.Error()))
	}
	for _, n := range []*int{req.MaxCompletionTokens, req.MaxTokens} {
		if n != nil && *n < 1 {
			return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, `"max_completion_tokens", "max_tokens": want at least 1, got %d`, *n)
		}
	}
	if req.N != nil && *req.N != 1 {
		return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeUnsupported, `"n": only 1 choice is supported`)
	}
	if tc := bytes.TrimSpace(req.ToolChoice); len(tc) > 0 && string(tc) != `"auto"` && string(tc) != "null" {
		return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeUnsupported, `"tool_choice": only "auto" is supported`)
	}
	var pe *paramError
	if req.output, pe = openAIOutput(req.ResponseFormat, "response_format"); pe != nil {
		return nil, nil, nil, pe.apiError
	}
	var client []tool.Tool
	for i, t := range req.Tools {
		where := fmt.Sprintf("tools[%d]", i)
		if t.Type != "function" {
			return nil, nil, nil, errorf(http.StatusBadRequest, apiwire.CodeUnsupported, "%s: type %q: only \"function\" tools are supported", where, t.Type)
		}
		ct, e := clientTool(where, t.Function.Name, t.Function.Description, t.Function.Parameters)
		if e != nil {
			return nil, nil, nil, e
		}
		client = append(client, ct)
	}
	sess, e := sessionOf(req.Messages)
	if e != nil {
		return nil, nil, nil, e
	}
	return &req, sess, client, nil
}

// sessionOf turns the request's messages into a session: system and developer
// messages make its system message, the rest its history.
func sessionOf(msgs []chatMessage) (*session.Session, *apiError) {
	if len(msgs) == 0 {
		return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, `"messages": at least one message is required`)
	}
	sess := &session.Session{}
	var system []string
	names := map[string]string{} // call id → tool name, for the tool messages
	for i, m := range msgs {
		where := fmt.Sprintf("messages[%d]", i)
		text, e := contentText(m.Content, where)
		if e != nil {
			return nil, e
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
		case "user":
			sess.Messages = append(sess.Messages, llm.Message{Role: llm.RoleUser, Text: text})
		case "assistant":
			msg := llm.Message{Role: llm.RoleAssistant, Text: text}
			for j, c := range m.ToolCalls {
				if c.ID == "" || c.Function.Name == "" {
					return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s.tool_calls[%d]: id and function.name are required", where, j)
				}
				names[c.ID] = c.Function.Name
				msg.Calls = append(msg.Calls, llm.Call{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
			}
			sess.Messages = append(sess.Messages, msg)
		case "tool":
			name, ok := names[m.ToolCallID]
			if !ok {
				return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s: tool_call_id %q answers no tool call of an earlier assistant message", where, m.ToolCallID)
			}
			sess.Messages = append(sess.Messages, llm.Message{Role: llm.RoleTool, CallID: m.ToolCallID, Name: name, Result: tool.TextResult(text)})
		default:
			return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s: role %q: want system, developer, user, assistant or tool", where, m.Role)
		}
	}
	sess.System = strings.Join(system, "\n\n")
	if len(sess.Messages) == 0 {
		return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, `"messages": no user message`)
	}
	if last := sess.Messages[len(sess.Messages)-1]; last.Role == llm.RoleAssistant {
		return nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, `"messages": the last message must be the user's or a tool result, not the assistant's`)
	}
	return sess, nil
}

// contentText is a message's text: a string, null, or an array of text parts (and
// refusals, which an assistant message may carry). Images, audio and files are
// refused: the session's messages hold text.
func contentText(raw json.RawMessage, where string) (string, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	text, bad, ok := textParts(raw, "text")
	switch {
	case !ok:
		return "", errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s.content: want a string or an array of content parts", where)
	case bad.index >= 0:
		return "", errorf(http.StatusBadRequest, apiwire.CodeUnsupported, "%s.content[%d]: type %q: only text parts are supported", where, bad.index, bad.typ)
	}
	return text, nil
}

// badPart is the first content part textParts refused (index -1: none).
type badPart struct {
	index int
	typ   string
}

// textParts is the text of content given as a string or a list of parts, the
// parts of the types textTypes and refusals joined: what OpenAI's two APIs carry
// ("text" in Chat Completions; "input_text" and "output_text" in Responses). ok is
// false for content that is neither; bad names the first part of another type
// (an image, audio, a file), which a session's text messages cannot hold.
func textParts(raw json.RawMessage, textTypes ...string) (text string, bad badPart, ok bool) {
	bad.index = -1
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, bad, true
	}
	var parts []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", bad, false
	}
	var b strings.Builder
	for j, p := range parts {
		switch {
		case slices.Contains(textTypes, p.Type):
			b.WriteString(p.Text)
		case p.Type == "refusal":
			b.WriteString(p.Refusal)
		default:
			return "", badPart{j, p.Type}, true
		}
	}
	return b.String(), bad, true
}

// completion is one response's identity: its id, time and model, and the field
// that asked for an answer format ("" none).
type completion struct {
	id      string
	created int64
	model   string
	output  string
}

type chatUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

func usageOf(u llm.Usage) *chatUsage {
	return &chatUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
}

// finishReason is OpenAI's name for why the turn ended.
func finishReason(t *conversation.Result) string {
	switch {
	case len(t.ClientCalls) > 0:
		return "tool_calls"
	case t.Stop == llm.StopMaxTokens:
		return "length"
	}
	return "stop"
}

func toolCalls(calls []llm.Call, indexed bool) []chatToolCall {
	var out []chatToolCall
	for i, c := range calls {
		tc := chatToolCall{ID: c.ID, Type: "function"}
		if indexed {
			tc.Index = &i
		}
		tc.Function.Name, tc.Function.Arguments = c.Name, c.Arguments
		out = append(out, tc)
	}
	return out
}

// whole is the chat.completion of a turn: its last assistant message (with the
// calls to the client's tools) and the turn's usage, every step counted.
func (c *completion) whole(t *conversation.Result) map[string]any {
	msg := map[string]any{"role": "assistant", "content": t.Answer, "refusal": nil}
	if len(t.ClientCalls) > 0 {
		msg["tool_calls"] = toolCalls(t.ClientCalls, false)
		if t.Answer == "" {
			msg["content"] = nil
		}
	}
	return map[string]any{
		"id": c.id, "object": "chat.completion", "created": c.created, "model": c.model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finishReason(t), "logprobs": nil}},
		"usage":   usageOf(t.Usage),
	}
}

// chunk is one chat.completion.chunk: a delta and a finish reason in its one choice,
// or, for the usage chunk, no choice. usage is null on every other chunk when the
// client asked for usage, and left out when not.
func (c *completion) chunk(delta map[string]any, finish string, usage *chatUsage, withUsage bool) map[string]any {
	ch := map[string]any{"id": c.id, "object": "chat.completion.chunk", "created": c.created, "model": c.model}
	if usage != nil {
		ch["choices"] = []any{}
	} else {
		var fr any
		if finish != "" {
			fr = finish
		}
		ch["choices"] = []map[string]any{{"index": 0, "delta": delta, "finish_reason": fr, "logprobs": nil}}
	}
	if withUsage {
		ch["usage"] = usage
	}
	return ch
}

// streamCompletion streams a chat completion's turn: its text as chunks as the model
// streams it (the text of every step, steps apart by a blank line), then the client's
// tool calls, the finish reason, the usage when asked, and [DONE]. A turn that fails
// before any text gets a plain error with its status; one that fails later ends the
// stream with an error event, as OpenAI's does.
func (h *Handler) streamCompletion(w http.ResponseWriter, r *http.Request, c *completion, turn *conversation.Request, withUsage bool) {
	log := h.logOf(r.Context()).With("completion", c.id)
	sw := httpx.NewSSEWriter(w)
	// Every stream opens with the assistant's role, as OpenAI's does.
	sw.Opening = &httpx.SSEEvent{Data: c.chunk(map[string]any{"role": "assistant", "content": ""}, "", nil, withUsage)}
	sw.EncodeFailed = func(_ string, err error) (string, any) {
		return "", map[string]any{"error": openAIError{Message: "encoding a chunk: " + err.Error(), Type: "server_error", Code: apiwire.CodeInternal}}
	}
	var join stepJoin
	send := func(evs []conversation.Event) {
		for _, ev := range evs {
			_ = sw.Send("", c.chunk(map[string]any{"content": join.text(ev)}, "", nil, withUsage))
		}
	}
	formatted := turn.Output != nil
	res, err := sw.Follow(h.startTurn(r.Context(), turn), func(evs []conversation.Event) { send(streamedText(evs, formatted)) })
	if err != nil {
		log.Info("chat completion failed", "error", err)
		e := h.turnError(err, c.output)
		if !sw.Started() {
			WriteOpenAIError(w, e)
			return
		}
		_ = sw.Send("", map[string]openAIError{"error": {Message: e.Message, Type: "server_error", Code: e.Code}})
		_ = sw.Flush()
		return
	}
	log.Info("chat completion done", "steps", len(res.Steps))
	h.keepStep(r, res)
	send(answerDelta(res, formatted))
	if len(res.ClientCalls) > 0 {
		_ = sw.Send("", c.chunk(map[string]any{"tool_calls": toolCalls(res.ClientCalls, true)}, "", nil, withUsage))
	}
	_ = sw.Send("", c.chunk(map[string]any{}, finishReason(res), nil, withUsage))
	if withUsage {
		_ = sw.Send("", c.chunk(nil, "", usageOf(res.Usage), true))
	}
	_ = sw.SendRaw("", []byte("[DONE]"))
	_ = sw.Flush()
}
