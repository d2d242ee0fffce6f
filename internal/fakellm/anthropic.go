package fakellm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// NewAnthropic starts a fake Anthropic Messages API on addr ("127.0.0.1:0" for a free
// port). Its URL is the host alone: the SDK appends /v1/messages.
//
// It serves POST /v1/messages as the API reference documents it: a "message" object,
// or with "stream": true the server-sent events message_start, content_block_start,
// content_block_delta (text_delta, input_json_delta), content_block_stop,
// message_delta, message_stop, with a ping after the first block starts and every
// few deltas. Like the real API it answers 400 invalid_request_error to a request
// without the anthropic-version header, max_tokens, model or messages, to a
// tool_use whose tool_result is not in the next message, and to a history with
// tool_use or tool_result blocks but no tools. It checks no API key. Tools sent with
// tool_choice {"type": "none"} cannot be called: Request.Tools, Deferred and
// ToolSearch are then empty.
//
// Tool search, as the API runs it: a tool search tool in the request
// (tool_search_tool_bm25_20251119 or tool_search_tool_regex_20251119, or their bare
// aliases) is Request.ToolSearch, and tools with "defer_loading": true are
// Request.Deferred. Like the real API it answers 400 when every tool has
// defer_loading set ("All tools have defer_loading set. At least one tool must be
// non-deferred."), when a tool_reference in the history names no tool of the
// request ("Tool reference 'x' has no corresponding tool definition"), and when the
// history holds a tool_use of a deferred tool that no tool_reference before it
// loaded (the API refuses it; that message is the fake's own wording). A Reply with
// Search is written as the API's response format and streaming documentation show:
// a server_tool_use block (input {"query": …}, streamed in input_json_delta pieces),
// then a tool_search_tool_result block (whole in its content_block_start) whose
// tool_search_tool_search_result lists a tool_reference per tool found, and usage
// counts server_tool_use.tool_search_requests.
//
// How a Reply is written:
//   - Text is one text block, then each Call a tool_use block.
//   - A Call's Arguments must be a JSON object to be a tool_use "input". When they
//     are not (malformed on purpose), a stream sends them as they are in the
//     input_json_delta pieces: that is what a tool call cut off by max_tokens looks
//     like, the one way the real API streams input that does not parse. A message
//     that is not streamed has "input" as an object by the API's schema, so there it
//     becomes {}.
//   - Stop "max_tokens", "end_turn", "tool_use", "stop_sequence", "refusal" … are
//     sent as they are ("length" and "stop" are read as OpenAI's names).
//   - Status answers {"type":"error","error":{"type","message"},"request_id"} with
//     the error type the API uses for that status (429 rate_limit_error, 529
//     overloaded_error …). 429 and 529 carry "retry-after: 0": the real API says how
//     many seconds to wait; 0 lets the SDK's retry come at once in tests.
//
// The request is decoded into Request: the system prompt (a string or text blocks)
// into System; each user or assistant message into one Message, its text blocks
// joined; tool_use blocks into Calls (Arguments the input's JSON, compacted); each
// tool_result block into its own Message{Role: "tool"} (before the text of the same
// user message), its text blocks joined by newlines and each image written
// "[image MEDIA_TYPE]"; image blocks of a user message likewise.
//
// POST /v1/messages/count_tokens is answered too, without the script
// (anthropic_count.go).
func NewAnthropic(addr string, script Script) (*Server, error) {
	return serve(addr, "", script, func(s *Server) http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("POST /v1/messages", s.anthropicMessages)
		mux.HandleFunc("POST /v1/messages/count_tokens", s.anthropicCountTokens)
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			anthropicError(w, http.StatusNotFound, "", "Not found")
		})
		return mux
	})
}

// StartAnthropic starts a fake Anthropic server on a free loopback port for the
// test, and closes it when the test ends.
func StartAnthropic(tb TB, script Script) *Server {
	tb.Helper()
	return start(tb, "Anthropic", NewAnthropic, script)
}

// anthropicIDs numbers message and tool_use ids across servers.
var anthropicIDs atomic.Int64

func anthropicID(prefix string) string {
	return prefix + strconv.FormatInt(anthropicIDs.Add(1), 10)
}

// anthropicErrorTypes are the error types the API reference lists per HTTP status.
var anthropicErrorTypes = map[int]string{
	400: "invalid_request_error",
	401: "authentication_error",
	402: "billing_error",
	403: "permission_error",
	404: "not_found_error",
	413: "request_too_large",
	429: "rate_limit_error",
	500: "api_error",
	504: "timeout_error",
	529: "overloaded_error",
}

func anthropicErrorType(status int) string {
	if t, ok := anthropicErrorTypes[status]; ok {
		return t
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// anthropicErrorBody is the API's error shape, as a body and as a stream's error event.
func anthropicErrorBody(errType, message string) map[string]any {
	return map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": errType, "message": message},
		"request_id": anthropicID("req_fake"),
	}
}

func anthropicError(w http.ResponseWriter, status int, errType, message string) {
	if errType == "" {
		errType = anthropicErrorType(status)
	}
	if message == "" {
		message = http.StatusText(status)
		if status == 529 {
			message = "Overloaded"
		}
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("request-id", anthropicID("req_fake"))
	if status == http.StatusTooManyRequests || status == 529 {
		h.Set("retry-after", "0")
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(anthropicErrorBody(errType, message))
}

func (s *Server) anthropicMessages(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	if _, err := body.ReadFrom(r.Body); err != nil {
		anthropicError(w, http.StatusBadRequest, "", "could not read the request body: "+err.Error())
		return
	}
	req, invalid := anthropicDecode(r, body.Bytes())
	if invalid != "" {
		anthropicError(w, http.StatusBadRequest, "", invalid)
		return
	}
	rep := s.reply(req)
	if rep.Delay > 0 {
		t := time.NewTimer(rep.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		anthropicError(w, rep.Status, "", rep.ErrorMessage)
		return
	}
	out, problem := anthropicReply(req, rep)
	if problem != "" {
		anthropicError(w, http.StatusInternalServerError, "", problem)
		return
	}
	if req.Stream {
		anthropicStream(r.Context(), w, out, rep.Chunks)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", anthropicID("req_fake"))
	json.NewEncoder(w).Encode(out.message(true))
}

// anthropicSearchTool reports whether a tool's type is one of the tool search tools.
func anthropicSearchTool(typ string) bool {
	return strings.HasPrefix(typ, "tool_search_tool_bm25") || strings.HasPrefix(typ, "tool_search_tool_regex")
}

// anthropicOut is a reply in the API's terms.
type anthropicOut struct {
	id, model, text, stop string
	search                *anthropicSearch
	calls                 []Call
	input, output         int64
}

// anthropicSearch is one run of the tool search: the server_tool_use block's id,
// the tool's name and the query, and what it found (or the error code).
type anthropicSearch struct {
	id, name, query string
	found           []string
	errCode         string
}

// anthropicReply writes rep in the API's terms; a reply the real model could not
// give (a search without a search tool, a call of a deferred tool no search found)
// is a problem of the script, said in the returned message.
func anthropicReply(req Request, rep Reply) (anthropicOut, string) {
	o := anthropicOut{id: anthropicID("msg_fake"), model: req.Model, text: rep.Text, input: rep.InputTokens, output: rep.OutputTokens}
	loaded := req.loaded()
	if rep.Search != "" {
		if req.ToolSearch == "" {
			return o, "fakellm: the script's reply searches (Reply.Search), but the request offers no tool search tool"
		}
		found, err := req.searchDeferred(rep.Search)
		o.search = &anthropicSearch{id: anthropicID("srvtoolu_fake"), name: req.ToolSearch, query: rep.Search, found: found}
		if err != nil {
			o.search.errCode = "invalid_tool_input"
		}
		for _, n := range found {
			loaded[n] = true
		}
	}
	for _, t := range req.Deferred {
		for _, c := range rep.Calls {
			if c.Name == t.Name && !loaded[c.Name] {
				return o, fmt.Sprintf("fakellm: the script calls %s, a deferred tool that no tool search has found", c.Name)
			}
		}
	}
	for _, c := range rep.Calls {
		if c.ID == "" {
			c.ID = anthropicID("toolu_fake")
		}
		if strings.TrimSpace(c.Arguments) == "" {
			c.Arguments = "{}"
		}
		o.calls = append(o.calls, c)
	}
	switch rep.Stop {
	case "":
		o.stop = "end_turn"
		if len(o.calls) > 0 {
			o.stop = "tool_use"
		}
	case "length":
		o.stop = "max_tokens"
	case "stop":
		o.stop = "end_turn"
	case "tool_calls":
		o.stop = "tool_use"
	default:
		o.stop = rep.Stop
	}
	if o.input == 0 {
		o.input = int64(len(req.Raw)/4 + 1)
	}
	if o.output == 0 {
		n := len(o.text)
		for _, c := range o.calls {
			n += len(c.Name) + len(c.Arguments)
		}
		if o.search != nil {
			n += len(o.search.query)
		}
		o.output = int64(n/4 + 1)
	}
	return o, ""
}

// useBlock is the server_tool_use block, whole (done) or as its
// content_block_start carries it (the input comes in deltas).
func (s *anthropicSearch) useBlock(done bool) map[string]any {
	input := map[string]any{}
	if done {
		input["query"] = s.query
	}
	return map[string]any{"type": "server_tool_use", "id": s.id, "name": s.name, "input": input, "caller": map[string]any{"type": "direct"}}
}

// inputJSON is the server_tool_use block's input as its deltas carry it.
func (s *anthropicSearch) inputJSON() string {
	b, _ := json.Marshal(map[string]any{"query": s.query})
	return string(b)
}

// resultBlock is the tool_search_tool_result block.
func (s *anthropicSearch) resultBlock() map[string]any {
	var content map[string]any
	if s.errCode != "" {
		content = map[string]any{"type": "tool_search_tool_result_error", "error_code": s.errCode, "error_message": "The pattern is not a valid regular expression."}
	} else {
		refs := []any{}
		for _, n := range s.found {
			refs = append(refs, map[string]any{"type": "tool_reference", "tool_name": n})
		}
		content = map[string]any{"type": "tool_search_tool_search_result", "tool_references": refs}
	}
	return map[string]any{"type": "tool_search_tool_result", "tool_use_id": s.id, "content": content}
}

// usage is the message's usage object; output is the output tokens so far.
func (o anthropicOut) usage(output int64) map[string]any {
	u := map[string]any{
		"input_tokens":                o.input,
		"output_tokens":               output,
		"cache_creation_input_tokens": 0,
		"cache_read_input_tokens":     0,
		"service_tier":                "standard",
	}
	if o.search != nil {
		u["server_tool_use"] = map[string]any{"tool_search_requests": 1}
	}
	return u
}

// anthropicInput is a call's arguments as a tool_use "input": an object, or {} when
// the arguments are not one.
func anthropicInput(args string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(args)
}

// message is the "message" object: whole (done), or as message_start carries it
// (no content, no stop reason, one output token so far).
func (o anthropicOut) message(done bool) map[string]any {
	content := []any{}
	var stop any
	output := int64(1)
	if done {
		if o.text != "" {
			content = append(content, map[string]any{"type": "text", "text": o.text})
		}
		if o.search != nil {
			content = append(content, o.search.useBlock(true), o.search.resultBlock())
		}
		for _, c := range o.calls {
			content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": anthropicInput(c.Arguments)})
		}
		stop, output = o.stop, o.output
	}
	return map[string]any{
		"id":            o.id,
		"type":          "message",
		"role":          "assistant",
		"model":         o.model,
		"content":       content,
		"stop_reason":   stop,
		"stop_sequence": nil,
		"usage":         o.usage(output),
	}
}

// anthropicPieces splits s into pieces of at most n bytes, never inside a rune.
func anthropicPieces(s string, n int) []string {
	if n <= 0 {
		n = 8
	}
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			_, cut = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// anthropicPingEvery is how many deltas go between two pings; the real API pings
// now and then to keep the connection alive.
const anthropicPingEvery = 16

func anthropicStream(ctx context.Context, w http.ResponseWriter, o anthropicOut, chunks int) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("request-id", anthropicID("req_fake"))
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	deltas := 0
	send := func(event string, data any) bool {
		if ctx.Err() != nil {
			return false
		}
		b, _ := json.Marshal(data)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	delta := func(index int, d map[string]any) bool {
		deltas++
		if deltas%anthropicPingEvery == 0 && !send("ping", map[string]any{"type": "ping"}) {
			return false
		}
		return send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d})
	}
	if !send("message_start", map[string]any{"type": "message_start", "message": o.message(false)}) {
		return
	}
	index := 0
	block := func(start map[string]any, pieces []string, kind, field string) bool {
		if !send("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start}) {
			return false
		}
		if index == 0 && !send("ping", map[string]any{"type": "ping"}) {
			return false
		}
		for _, p := range pieces {
			if !delta(index, map[string]any{"type": kind, field: p}) {
				return false
			}
		}
		ok := send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
		return ok
	}
	if o.text != "" {
		if !block(map[string]any{"type": "text", "text": ""}, anthropicPieces(o.text, chunks), "text_delta", "text") {
			return
		}
	}
	if s := o.search; s != nil {
		// Like a tool_use, the search's input comes in input_json_delta pieces; its
		// result comes whole in its content_block_start.
		pieces := append([]string{""}, anthropicPieces(s.inputJSON(), chunks)...)
		if !block(s.useBlock(false), pieces, "input_json_delta", "partial_json") {
			return
		}
		if !block(s.resultBlock(), nil, "", "") {
			return
		}
	}
	for _, c := range o.calls {
		// The API's first input_json_delta of a tool_use is empty.
		pieces := append([]string{""}, anthropicPieces(c.Arguments, chunks)...)
		start := map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}
		if !block(start, pieces, "input_json_delta", "partial_json") {
			return
		}
	}
	usage := map[string]any{"output_tokens": o.output}
	if o.search != nil {
		usage["server_tool_use"] = map[string]any{"tool_search_requests": 1}
	}
	if !send("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": o.stop, "stop_sequence": nil},
		"usage": usage,
	}) {
		return
	}
	send("message_stop", map[string]any{"type": "message_stop"})
}
