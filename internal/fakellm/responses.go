package fakellm

// The OpenAI Responses API wire format, served next to Chat Completions by the
// OpenAI fake (POST /v1/responses), as the API reference documents it ("Create a
// model response", "The response object", "Streaming events") and as openai-go's
// responses.Response and responses.ResponseStreamEventUnion decode it. Tool search
// follows the tool search guide (developers.openai.com/api/docs/guides/tools-tool-search):
// a {"type": "tool_search"} tool, functions with "defer_loading": true, and the
// hosted search's tool_search_call and tool_search_output output items, which a
// request with "store": false must send back as input items.
//
// Unexported names here start with "responses".

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// responsesRequest is the part of a Responses request the fake reads.
type responsesRequest struct {
	Model           string            `json:"model"`
	Instructions    string            `json:"instructions"`
	Input           json.RawMessage   `json:"input"`
	Tools           []json.RawMessage `json:"tools"`
	ToolChoice      json.RawMessage   `json:"tool_choice"`
	MaxOutputTokens *int              `json:"max_output_tokens"`
	Text            struct {
		Format json.RawMessage `json:"format"`
	} `json:"text"`
	Stream bool `json:"stream"`
}

// responsesTool is a tool definition of the request: a function or the tool search.
type responsesTool struct {
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Parameters   json.RawMessage `json:"parameters"`
	DeferLoading bool            `json:"defer_loading"`
}

// responsesItem is one input item.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Tools     []responsesTool `json:"tools"`
}

// responses serves POST /v1/responses.
//
// The request is decoded into a Request: "instructions" and system or developer
// messages become System; "input" is a string (one user message) or a list of
// items: messages (content a string or input_text / output_text parts), function_call
// items (Calls of the assistant message they follow, or of a new one),
// function_call_output items (Role "tool", IsError when the text starts with
// "error", as format.ResultMessage writes an error result), and the tool search's
// tool_search_call and tool_search_output items (part of the assistant message; the
// names of the tools of a tool_search_output are its Found). Tools with
// "defer_loading": true are Deferred, the tool_search tool makes ToolSearch
// "tool_search", and tool_choice "none" offers no tool. Like the Anthropic fake, it
// answers 400 to a function_call in the history of a deferred tool that no
// tool_search_output before it loaded (the fake's own wording: the API cannot have
// produced it).
//
// The reply is a "response" object, or with "stream": true the events
// response.created, response.in_progress, then per output item
// response.output_item.added, its deltas (response.content_part.added,
// response.output_text.delta, response.output_text.done, response.content_part.done
// for a message; response.function_call_arguments.delta and .done for a call) and
// response.output_item.done, then response.completed (response.incomplete with
// incomplete_details.reason "max_output_tokens" for Stop "max_tokens"). A Reply with
// Search runs the search over Deferred and answers, after the message and before the
// calls, with a tool_search_call (execution "server", arguments {"query": …}) and a
// tool_search_output listing the definitions of the tools found.
func (h *openAIServer) responses(w http.ResponseWriter, r *http.Request) {
	var in responsesRequest
	body, ok := readOpenAIBody(w, r, &in)
	if !ok {
		return
	}
	if in.Model == "" {
		openAIError(w, http.StatusBadRequest, "Missing required parameter: 'model'.")
		return
	}
	req, defs, err := responsesDecode(in)
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
	n := strconv.FormatInt(h.ids.Add(1), 10)
	out, problem := responsesReply(req, reply, defs, n)
	if problem != "" {
		openAIError(w, http.StatusInternalServerError, problem)
		return
	}
	if in.Stream {
		responsesStream(w, r, out, reply)
		return
	}
	if !openAIWait(r, reply.Delay) {
		return
	}
	openAIJSON(w, http.StatusOK, out.response(true))
}

// responsesDecode turns the wire request into a Request, and returns the deferred
// tools' definitions by name (a tool_search_output lists them).
func responsesDecode(in responsesRequest) (Request, map[string]json.RawMessage, error) {
	req := Request{Model: in.Model, Stream: in.Stream}
	if in.MaxOutputTokens != nil {
		req.MaxTokens, req.MaxTokensParam = *in.MaxOutputTokens, "max_output_tokens"
	}
	var err error
	if req.Format, err = openAIFormat(in.Text.Format, "text.format"); err != nil {
		return req, nil, err
	}
	var system []string
	if in.Instructions != "" {
		system = append(system, in.Instructions)
	}
	defs := map[string]json.RawMessage{}
	deferred := map[string]bool{}
	var tools, deferredTools []Tool
	search := ""
	for i, raw := range in.Tools {
		var t responsesTool
		if err := json.Unmarshal(raw, &t); err != nil {
			return req, nil, fmt.Errorf("tools[%d]: %v", i, err)
		}
		switch {
		case t.Type == "tool_search":
			search = "tool_search"
		case t.Type != "function" || t.Name == "":
			return req, nil, fmt.Errorf("invalid value for 'tools[%d]': the fake knows {\"type\": \"function\", \"name\", ...} and {\"type\": \"tool_search\"}", i)
		case t.DeferLoading:
			deferred[t.Name] = true
			defs[t.Name] = raw
			deferredTools = append(deferredTools, Tool{Name: t.Name, Description: t.Description, Schema: t.Parameters})
		default:
			tools = append(tools, Tool{Name: t.Name, Description: t.Description, Schema: t.Parameters})
		}
	}
	if string(in.ToolChoice) != `"none"` {
		req.Tools, req.Deferred, req.ToolSearch = tools, deferredTools, search
	}

	var items []responsesItem
	var s string
	if err := json.Unmarshal(in.Input, &s); err == nil {
		items = []responsesItem{{Type: "message", Role: "user", Content: in.Input}}
	} else if err := json.Unmarshal(in.Input, &items); err != nil {
		return req, nil, fmt.Errorf("invalid 'input': want a string or a list of items")
	}
	loaded := map[string]bool{}
	// assistant is the assistant message the items of the model's turn go into.
	assistant := func() *Message {
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "assistant" {
			return &req.Messages[n-1]
		}
		req.Messages = append(req.Messages, Message{Role: "assistant"})
		return &req.Messages[len(req.Messages)-1]
	}
	for i, it := range items {
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message"
		}
		switch typ {
		case "message":
			text, err := contentText(it.Content, "input_text", "output_text")
			if err != nil {
				return req, nil, fmt.Errorf("input[%d].content: %v", i, err)
			}
			switch it.Role {
			case "system", "developer":
				system = append(system, text)
			case "user":
				req.Messages = append(req.Messages, Message{Role: "user", Text: text})
			case "assistant":
				m := assistant()
				m.Text += text
			default:
				return req, nil, fmt.Errorf("invalid value: '%s'. Supported values are: 'system', 'developer', 'user' and 'assistant'. (input[%d].role)", it.Role, i)
			}
		case "function_call":
			if it.CallID == "" || it.Name == "" {
				return req, nil, fmt.Errorf("input[%d]: a function_call needs 'call_id' and 'name'", i)
			}
			if deferred[it.Name] && !loaded[it.Name] {
				return req, nil, fmt.Errorf("input[%d]: function_call of '%s', a tool with defer_loading set that no tool_search_output before it loaded", i, it.Name)
			}
			var args string
			if err := json.Unmarshal(it.Arguments, &args); err != nil {
				return req, nil, fmt.Errorf("input[%d].arguments: want a string", i)
			}
			m := assistant()
			m.Calls = append(m.Calls, Call{ID: it.CallID, Name: it.Name, Arguments: args})
		case "function_call_output":
			if it.CallID == "" {
				return req, nil, fmt.Errorf("missing required parameter: 'input[%d].call_id'", i)
			}
			text, err := contentText(it.Output, "input_text", "output_text")
			if err != nil {
				return req, nil, fmt.Errorf("input[%d].output: %v", i, err)
			}
			isErr := strings.HasPrefix(strings.ToLower(text), "error")
			req.Messages = append(req.Messages, Message{Role: "tool", CallID: it.CallID, Text: text, IsError: isErr})
		case "tool_search_call":
			assistant()
		case "tool_search_output":
			m := assistant()
			for _, t := range it.Tools {
				loaded[t.Name] = true
				m.Found = append(m.Found, t.Name)
			}
		case "reasoning":
			// Nothing the fake model reads.
		default:
			return req, nil, fmt.Errorf("invalid value: '%s' (input[%d].type): the fake reads message, function_call, function_call_output, tool_search_call, tool_search_output and reasoning items", typ, i)
		}
	}
	req.System = strings.Join(system, "\n\n")
	return req, defs, nil
}

// responsesOut is a reply in the API's terms.
type responsesOut struct {
	id, model   string
	created     int64
	items       []map[string]any // the output items, whole
	status      string           // "completed" or "incomplete"
	incomplete  string           // incomplete_details.reason
	input, outp int64
}

// responsesReply writes rep as output items; n numbers the ids. A reply the real
// model could not give (a search without the tool_search tool, a call of a deferred
// tool no search found) is a problem of the script, said in the returned message.
func responsesReply(req Request, rep Reply, defs map[string]json.RawMessage, n string) (responsesOut, string) {
	o := responsesOut{id: "resp_fake" + n, model: openAIModel(req), created: time.Now().Unix(), status: "completed",
		input: rep.InputTokens, outp: rep.OutputTokens}
	if rep.Text != "" || (len(rep.Calls) == 0 && rep.Search == "") {
		o.items = append(o.items, map[string]any{
			"id": "msg_fake" + n, "type": "message", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}, "logprobs": []any{}}},
		})
	}
	loaded := req.loaded()
	if rep.Search != "" {
		if req.ToolSearch == "" {
			return o, "fakellm: the script's reply searches (Reply.Search), but the request offers no tool_search tool"
		}
		found, _ := req.searchDeferred(rep.Search)
		callID := "call_search_fake" + n
		tools := []json.RawMessage{}
		for _, name := range found {
			loaded[name] = true
			tools = append(tools, defs[name])
		}
		o.items = append(o.items,
			map[string]any{"id": "tsc_fake" + n, "type": "tool_search_call", "call_id": callID, "execution": "server",
				"status": "completed", "arguments": map[string]any{"query": rep.Search}},
			map[string]any{"id": "tso_fake" + n, "type": "tool_search_output", "call_id": callID, "execution": "server",
				"status": "completed", "tools": tools},
		)
	}
	for _, t := range req.Deferred {
		for _, c := range rep.Calls {
			if c.Name == t.Name && !loaded[c.Name] {
				return o, fmt.Sprintf("fakellm: the script calls %s, a deferred tool that no tool search has found", c.Name)
			}
		}
	}
	for i, c := range rep.Calls {
		if c.ID == "" {
			c.ID = "call_fake" + n + "_" + strconv.Itoa(i)
		}
		o.items = append(o.items, map[string]any{
			"id": "fc_fake" + n + "_" + strconv.Itoa(i), "type": "function_call", "status": "completed",
			"call_id": c.ID, "name": c.Name, "arguments": c.Arguments,
		})
	}
	switch rep.Stop {
	case "max_tokens", "length":
		o.status, o.incomplete = "incomplete", "max_output_tokens"
	case "content_filter":
		o.status, o.incomplete = "incomplete", "content_filter"
	}
	if o.input == 0 && o.outp == 0 {
		o.input, o.outp = openAICount(req, rep)
	}
	return o, ""
}

// response is the "response" object: whole (done), or as response.created and
// response.in_progress carry it (in progress, no output, no usage).
func (o responsesOut) response(done bool) map[string]any {
	r := map[string]any{
		"id":                  o.id,
		"object":              "response",
		"created_at":          o.created,
		"status":              "in_progress",
		"model":               o.model,
		"output":              []any{},
		"error":               nil,
		"incomplete_details":  nil,
		"instructions":        nil,
		"metadata":            map[string]any{},
		"parallel_tool_calls": true,
		"temperature":         1.0,
		"top_p":               1.0,
		"tool_choice":         "auto",
		"tools":               []any{},
		"store":               false,
		"text":                map[string]any{"format": map[string]any{"type": "text"}},
		"truncation":          "disabled",
		"usage":               nil,
	}
	if done {
		items := make([]any, len(o.items))
		for i, it := range o.items {
			items[i] = it
		}
		r["output"], r["status"] = items, o.status
		if o.incomplete != "" {
			r["incomplete_details"] = map[string]any{"reason": o.incomplete}
		}
		r["usage"] = map[string]any{
			"input_tokens":          o.input,
			"input_tokens_details":  map[string]any{"cached_tokens": 0},
			"output_tokens":         o.outp,
			"output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens":          o.input + o.outp,
		}
	}
	return r
}

// responsesStream writes the reply as the API's streaming events. Each event has
// its "type" in the event: line and the data, and a sequence_number; the stream
// ends with response.completed (or response.incomplete), without [DONE].
func responsesStream(w http.ResponseWriter, r *http.Request, o responsesOut, reply Reply) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	seq := 0
	send := func(typ string, data map[string]any) bool {
		data["type"], data["sequence_number"] = typ, seq
		seq++
		b, _ := json.Marshal(data)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return r.Context().Err() == nil
	}
	if !send("response.created", map[string]any{"response": o.response(false)}) {
		return
	}
	if !send("response.in_progress", map[string]any{"response": o.response(false)}) {
		return
	}
	if !openAIWait(r, reply.Delay) {
		return
	}
	size := reply.Chunks
	if size <= 0 {
		size = 8
	}
	for i, it := range o.items {
		id, _ := it["id"].(string)
		switch it["type"] {
		case "message":
			text := it["content"].([]any)[0].(map[string]any)["text"].(string)
			added := map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
			part := func(t string) map[string]any {
				return map[string]any{"type": "output_text", "text": t, "annotations": []any{}, "logprobs": []any{}}
			}
			at := func(m map[string]any) map[string]any {
				m["item_id"], m["output_index"], m["content_index"] = id, i, 0
				return m
			}
			if !send("response.output_item.added", map[string]any{"output_index": i, "item": added}) ||
				!send("response.content_part.added", at(map[string]any{"part": part("")})) {
				return
			}
			for _, p := range openAIPieces(text, size) {
				if !send("response.output_text.delta", at(map[string]any{"delta": p, "logprobs": []any{}})) {
					return
				}
			}
			if !send("response.output_text.done", at(map[string]any{"text": text, "logprobs": []any{}})) ||
				!send("response.content_part.done", at(map[string]any{"part": part(text)})) {
				return
			}
		case "function_call":
			added := map[string]any{}
			for k, v := range it {
				added[k] = v
			}
			added["status"], added["arguments"] = "in_progress", ""
			if !send("response.output_item.added", map[string]any{"output_index": i, "item": added}) {
				return
			}
			args := it["arguments"].(string)
			for _, p := range openAIPieces(args, size) {
				if !send("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": p}) {
					return
				}
			}
			if !send("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "name": it["name"], "arguments": args}) {
				return
			}
		default: // the tool search's items come whole
			if !send("response.output_item.added", map[string]any{"output_index": i, "item": it}) {
				return
			}
		}
		if !send("response.output_item.done", map[string]any{"output_index": i, "item": it}) {
			return
		}
	}
	final := "response.completed"
	if o.status == "incomplete" {
		final = "response.incomplete"
	}
	send(final, map[string]any{"response": o.response(true)})
}
