package fakellm

// The OpenAI Chat Completions wire format, as the API reference documents it
// (POST /v1/chat/completions, "The chat completion object", "The chat completion
// chunk object") and as openai-go's ChatCompletion and ChatCompletionChunk types
// decode it. Unexported names here start with "openAI" so that they cannot collide
// with the Anthropic fake's in the same package.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// NewOpenAI starts a fake OpenAI Chat Completions server on addr ("127.0.0.1:0" for a
// free port). Its URL ends in /v1, as OpenAI's base URL does. It serves:
//
//   - POST /v1/chat/completions: a "chat.completion" object, or with "stream": true
//     "chat.completion.chunk" server-sent events ending in "data: [DONE]"; with
//     "stream_options": {"include_usage": true} every chunk has "usage": null and a
//     last chunk with empty choices carries the usage, as OpenAI sends it;
//   - POST /v1/responses: the Responses API, tool search included (responses.go);
//   - GET /v1/models: a list with the model "fakellm" and every model asked for so far;
//   - errors as OpenAI words them: {"error": {"message", "type", "param", "code"}}.
//
// The request is decoded into a [Request]: system and developer messages become
// System; user content is a string or an array of parts (text parts joined by
// newlines, other parts as "[type]"); assistant tool_calls become Calls; tool messages
// become Role "tool" with CallID and the text. OpenAI's tool message has no error
// flag: IsError is set when the text starts with "error" (any case), the form
// format.ResultMessage gives an error result ("Error: …").
func NewOpenAI(addr string, script Script) (*Server, error) {
	return serve(addr, "/v1", script, openAIHandler)
}

// StartOpenAI starts a fake OpenAI server on a free loopback port and closes it when
// the test ends.
func StartOpenAI(tb TB, script Script) *Server {
	tb.Helper()
	return start(tb, "OpenAI", NewOpenAI, script)
}

func openAIHandler(s *Server) http.Handler {
	h := &openAIServer{s: s}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", h.completions)
	mux.HandleFunc("POST /v1/responses", h.responses) // responses.go
	mux.HandleFunc("GET /v1/models", h.models)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		openAIError(w, http.StatusNotFound, fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path))
	})
	return mux
}

type openAIServer struct {
	s   *Server
	ids atomic.Int64
}

// openAIRequest is the part of a chat completion request the fake reads.
type openAIRequest struct {
	Model               string          `json:"model"`
	Messages            []openAIMessage `json:"messages"`
	Tools               []openAITool    `json:"tools"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	ResponseFormat      json.RawMessage `json:"response_format"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type openAIMessage struct {
	Role       string           `json:"role"`
	Content    json.RawMessage  `json:"content"`
	ToolCalls  []openAIToolCall `json:"tool_calls"`
	ToolCallID string           `json:"tool_call_id"`
}

type openAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type openAITool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// readOpenAIBody reads r's JSON body into in and returns its bytes, or answers 400 in
// OpenAI's words and returns false.
func readOpenAIBody(w http.ResponseWriter, r *http.Request, in any) ([]byte, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		openAIError(w, http.StatusBadRequest, "could not read the request body: "+err.Error())
		return nil, false
	}
	if err := json.Unmarshal(body, in); err != nil {
		openAIError(w, http.StatusBadRequest, "We could not parse the JSON body of your request: "+err.Error())
		return nil, false
	}
	return body, true
}

func (h *openAIServer) completions(w http.ResponseWriter, r *http.Request) {
	var in openAIRequest
	body, ok := readOpenAIBody(w, r, &in)
	if !ok {
		return
	}
	if in.Model == "" {
		openAIError(w, http.StatusBadRequest, "you must provide a model parameter")
		return
	}
	if len(in.Messages) == 0 {
		openAIError(w, http.StatusBadRequest, "'messages' must contain at least one message")
		return
	}
	req, err := openAIDecode(in)
	if err != nil {
		openAIError(w, http.StatusBadRequest, err.Error())
		return
	}
	req.Header = r.Header.Clone()
	req.Raw = body
	reply := h.s.reply(req)

	if reply.Status != 0 && reply.Status != http.StatusOK {
		if !openAIWait(r, reply.Delay) {
			return
		}
		openAIError(w, reply.Status, reply.ErrorMessage)
		return
	}
	id := "chatcmpl-fake" + strconv.FormatInt(h.ids.Add(1), 10)
	if in.Stream {
		openAIStream(w, r, id, req, reply, in.StreamOptions != nil && in.StreamOptions.IncludeUsage)
		return
	}
	if !openAIWait(r, reply.Delay) {
		return
	}
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}}
	if reply.Text != "" || len(reply.Calls) == 0 {
		msg["content"] = reply.Text
	}
	if len(reply.Calls) > 0 {
		calls := make([]map[string]any, len(reply.Calls))
		for i, c := range reply.Calls {
			calls[i] = map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
		}
		msg["tool_calls"] = calls
	}
	openAIJSON(w, http.StatusOK, map[string]any{
		"id":      id,
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   openAIModel(req),
		"choices": []any{map[string]any{
			"index":         0,
			"message":       msg,
			"logprobs":      nil,
			"finish_reason": openAIFinish(reply),
		}},
		"usage": openAIUsage(req, reply),
	})
}

// openAIStream writes the reply as chat.completion.chunk events: the role first,
// then the text in pieces, then each tool call (id, type and name in its first
// delta, the arguments in pieces after it), then a chunk with an empty delta and the
// finish_reason, then the usage chunk when asked for, then [DONE]. Headers and the
// first chunk go out before Reply.Delay, as a real server answers at once and then
// thinks.
func openAIStream(w http.ResponseWriter, r *http.Request, id string, req Request, reply Reply, includeUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	created := time.Now().Unix()
	model := openAIModel(req)
	send := func(choices []any, usage any) bool {
		chunk := map[string]any{
			"id":      id,
			"object":  "chat.completion.chunk",
			"created": created,
			"model":   model,
			"choices": choices,
		}
		if includeUsage {
			chunk["usage"] = usage // null on every chunk but the last, as OpenAI sends it
		}
		b, _ := json.Marshal(chunk)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return r.Context().Err() == nil
	}
	delta := func(d map[string]any) bool {
		return send([]any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": nil}}, nil)
	}
	if !delta(map[string]any{"role": "assistant", "content": "", "refusal": nil}) {
		return
	}
	if !openAIWait(r, reply.Delay) {
		return
	}
	size := reply.Chunks
	if size <= 0 {
		size = 8
	}
	for _, piece := range openAIPieces(reply.Text, size) {
		if !delta(map[string]any{"content": piece}) {
			return
		}
	}
	for i, c := range reply.Calls {
		first := map[string]any{"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}
		if !delta(map[string]any{"tool_calls": []any{first}}) {
			return
		}
		for _, piece := range openAIPieces(c.Arguments, size) {
			if !delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": piece}}}}) {
				return
			}
		}
	}
	if !send([]any{map[string]any{"index": 0, "delta": map[string]any{}, "logprobs": nil, "finish_reason": openAIFinish(reply)}}, nil) {
		return
	}
	if includeUsage && !send([]any{}, openAIUsage(req, reply)) {
		return
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

func (h *openAIServer) models(w http.ResponseWriter, r *http.Request) {
	seen := map[string]bool{"fakellm": true}
	data := []any{map[string]any{"id": "fakellm", "object": "model", "created": 0, "owned_by": "fakellm"}}
	for _, req := range h.s.Requests() {
		if req.Model != "" && !seen[req.Model] {
			seen[req.Model] = true
			data = append(data, map[string]any{"id": req.Model, "object": "model", "created": 0, "owned_by": "fakellm"})
		}
	}
	openAIJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// openAIDecode turns the wire request into the provider-neutral Request.
func openAIDecode(in openAIRequest) (Request, error) {
	req := Request{Model: in.Model, Stream: in.Stream}
	switch {
	case in.MaxCompletionTokens != nil:
		req.MaxTokens, req.MaxTokensParam = *in.MaxCompletionTokens, "max_completion_tokens"
	case in.MaxTokens != nil:
		req.MaxTokens, req.MaxTokensParam = *in.MaxTokens, "max_tokens"
	}
	var err error
	if req.Format, err = openAIFormat(in.ResponseFormat, "response_format"); err != nil {
		return Request{}, err
	}
	var system []string
	for i, m := range in.Messages {
		text, err := contentText(m.Content, "text")
		if err != nil {
			return Request{}, fmt.Errorf("messages[%d].content: %v", i, err)
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
		case "user":
			req.Messages = append(req.Messages, Message{Role: "user", Text: text})
		case "assistant":
			msg := Message{Role: "assistant", Text: text}
			for _, c := range m.ToolCalls {
				msg.Calls = append(msg.Calls, Call{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
			}
			req.Messages = append(req.Messages, msg)
		case "tool":
			if m.ToolCallID == "" {
				return Request{}, fmt.Errorf("messages[%d]: a tool message needs 'tool_call_id'", i)
			}
			// No error flag on the wire: an error result is text that says so, as
			// format.ResultMessage writes it ("Error: …").
			isErr := strings.HasPrefix(strings.ToLower(text), "error")
			req.Messages = append(req.Messages, Message{Role: "tool", CallID: m.ToolCallID, Text: text, IsError: isErr})
		default:
			return Request{}, fmt.Errorf("messages[%d].role: %q is not one of 'system', 'developer', 'user', 'assistant', 'tool'", i, m.Role)
		}
	}
	req.System = strings.Join(system, "\n\n")
	for i, t := range in.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return Request{}, fmt.Errorf("tools[%d]: want {\"type\": \"function\", \"function\": {\"name\", ...}}", i)
		}
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Schema: t.Function.Parameters})
	}
	return req, nil
}

// contentText reads a message's content (or a Responses output): null, a string, or
// an array of content parts, whose texts are joined by newlines: the parts of the
// types given as text, and refusals; other parts are shown as "[type]". Chat
// Completions' text parts are "text"; the Responses API's "input_text" and
// "output_text".
func contentText(raw json.RawMessage, textTypes ...string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or an array of content parts")
	}
	texts := make([]string, len(parts))
	for i, p := range parts {
		switch {
		case slices.Contains(textTypes, p.Type):
			texts[i] = p.Text
		case p.Type == "refusal":
			texts[i] = p.Refusal
		default:
			texts[i] = "[" + p.Type + "]"
		}
	}
	return strings.Join(texts, "\n"), nil
}

// openAIFinish is the finish_reason of a reply: "stop", "length", "tool_calls" or
// "content_filter"; Reply.Stop's neutral names are mapped, others passed as given.
func openAIFinish(reply Reply) string {
	switch reply.Stop {
	case "":
		if len(reply.Calls) > 0 {
			return "tool_calls"
		}
		return "stop"
	case "max_tokens", "length":
		return "length"
	case "end", "end_turn", "stop":
		return "stop"
	case "tool_use", "tool_calls":
		return "tool_calls"
	}
	return reply.Stop
}

func openAIUsage(req Request, reply Reply) map[string]any {
	in, out := reply.InputTokens, reply.OutputTokens
	if in == 0 && out == 0 {
		in, out = openAICount(req, reply)
	}
	return map[string]any{
		"prompt_tokens":     in,
		"completion_tokens": out,
		"total_tokens":      in + out,
	}
}

// openAICount estimates tokens as OpenAI's rule of thumb does: four bytes each.
func openAICount(req Request, reply Reply) (in, out int64) {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Text)
		for _, c := range m.Calls {
			n += len(c.Name) + len(c.Arguments)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	m := len(reply.Text)
	for _, c := range reply.Calls {
		m += len(c.Name) + len(c.Arguments)
	}
	return int64(n/4 + 1), int64(m/4 + 1)
}

func openAIModel(req Request) string {
	if req.Model == "" {
		return "fakellm"
	}
	return req.Model
}

// openAIPieces splits s into pieces of at most size bytes, never inside a UTF-8
// sequence (a JSON encoder would turn half a rune into U+FFFD).
func openAIPieces(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		n := min(size, len(s))
		for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 { // one rune longer than size
			_, n = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// openAIWait waits d or until the client goes away; false means it went away.
func openAIWait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// openAIError answers with OpenAI's error object. Statuses the SDKs retry (408, 409,
// 429, 5xx) carry retry-after-ms, which OpenAI sends too, kept short so that tests
// of retries do not wait out the SDK's own backoff.
func openAIError(w http.ResponseWriter, status int, message string) {
	typ, code := "invalid_request_error", any(nil)
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	if message == "" {
		message = http.StatusText(status)
	}
	if status == http.StatusRequestTimeout || status == http.StatusConflict || status == http.StatusTooManyRequests || status >= 500 {
		w.Header().Set("Retry-After-Ms", "10")
	}
	openAIJSON(w, status, map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": code}})
}

func openAIJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
