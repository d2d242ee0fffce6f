package compat

import (
	"context"
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

// POST /v1/responses is OpenAI's Responses API
// (https://platform.openai.com/docs/api-reference/responses/create) over the
// configured model: a turn with the catalog's tools (run here) and the request's
// function tools (returned as function_call items, not run), unattended as a chat
// completion's (turn.go). A response is kept, unless the request says
// "store": false, as a session of the configured store whose id is the response's
// (resp_…) and whose metadata holds the response object: GET /v1/responses/{id}
// reads it back, and "previous_response_id" continues from a copy of its history, so
// that a conversation goes on server-side from any earlier response. Responses are
// their creator's, as sessions are (httpx.OwnedSession).

// responseKey is the metadata of a response's session that holds the response object.
const responseKey = "openai.response"

// responsesRequest is what Switchboard reads of a request; the other fields an
// OpenAI client sends (top_p, reasoning, text, truncation …) are accepted and left to
// the configured model's settings.
type responsesRequest struct {
	Model              string            `json:"model"`
	Input              json.RawMessage   `json:"input"`
	Instructions       *string           `json:"instructions"`
	Tools              []responsesTool   `json:"tools"`
	ToolChoice         json.RawMessage   `json:"tool_choice"`
	Stream             bool              `json:"stream"`
	Store              *bool             `json:"store"`
	PreviousResponseID string            `json:"previous_response_id"`
	MaxOutputTokens    *int              `json:"max_output_tokens"`
	Temperature        *float64          `json:"temperature"`
	Metadata           map[string]string `json:"metadata"`
	Background         bool              `json:"background"`
	Conversation       json.RawMessage   `json:"conversation"`
	// Text's format asks for the answer in JSON (output.go), output; its verbosity
	// is left to the model's settings.
	Text *struct {
		Format json.RawMessage `json:"format"`
	} `json:"text"`
	output *llm.Output
}

// responsesTool is a function tool: flat, unlike a chat completion's.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// responsesItem is an input item: a message ("type" may be left out), a function
// call of an earlier response's output, or a function call's output.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

// paramError is an error about one of the request's parameters, which OpenAI's
// error names in "param" (input[2].content, tools[0].name …).
type paramError struct {
	*apiError
	param string
}

func badParam(param, code, format string, args ...any) *paramError {
	return &paramError{errorf(http.StatusBadRequest, code, format, args...), param}
}

// writeResponsesError is writeOpenAIError with the parameter at fault, if any.
func writeResponsesError(w http.ResponseWriter, e *apiError, param string) {
	if param == "" {
		WriteOpenAIError(w, e)
		return
	}
	typ := "invalid_request_error"
	if e.Status >= 500 {
		typ = "server_error"
	}
	writeJSON(w, e.Status, map[string]openAIError{"error": {Message: e.Message, Type: typ, Param: &param, Code: e.Code}})
}

// parseResponsesRequest reads the request and checks what it asks for.
func parseResponsesRequest(raw map[string]json.RawMessage) (*responsesRequest, []tool.Tool, *paramError) {
	var req responsesRequest
	data, _ := json.Marshal(raw) // a map of raw values marshals
	if err := json.Unmarshal(data, &req); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field != "" {
			return nil, nil, badParam(typ.Field, apiwire.CodeBadJSON, "%q is %s, want %s", typ.Field, typ.Value, httpx.JSONType(typ.Type.Kind().String()))
		}
		return nil, nil, badParam("", apiwire.CodeBadJSON, "%s", httpx.TrimJSONPrefix(err.Error()))
	}
	if n := req.MaxOutputTokens; n != nil && *n < 1 {
		return nil, nil, badParam("max_output_tokens", apiwire.CodeBadRequest, `"max_output_tokens": want at least 1, got %d`, *n)
	}
	if tc := strings.TrimSpace(string(req.ToolChoice)); tc != "" && tc != `"auto"` && tc != "null" {
		return nil, nil, badParam("tool_choice", apiwire.CodeUnsupported, `"tool_choice": only "auto" is supported`)
	}
	if req.Background {
		return nil, nil, badParam("background", apiwire.CodeUnsupported, `"background": background responses are not supported`)
	}
	if c := strings.TrimSpace(string(req.Conversation)); c != "" && c != "null" {
		return nil, nil, badParam("conversation", apiwire.CodeUnsupported, `"conversation": conversations are not supported: continue with "previous_response_id"`)
	}
	if req.Text != nil {
		var pe *paramError
		if req.output, pe = openAIOutput(req.Text.Format, "text.format"); pe != nil {
			return nil, nil, pe
		}
	}
	var client []tool.Tool
	for i, t := range req.Tools {
		where := fmt.Sprintf("tools[%d]", i)
		if t.Type != "function" {
			return nil, nil, badParam(where+".type", apiwire.CodeUnsupported, "%s: type %q: only \"function\" tools are supported (the catalog's tools are offered already)", where, t.Type)
		}
		ct, e := clientTool(where, t.Name, t.Description, t.Parameters)
		if e != nil {
			return nil, nil, &paramError{e, where + ".name"}
		}
		client = append(client, ct)
	}
	return &req, client, nil
}

// conversation is the session the turn runs in: prev's history (a copy), when the
// request continues a response, then the request's input. The instructions and the
// input's system and developer messages make its system message; an earlier
// response's are not carried over, as OpenAI's are not.
func (req *responsesRequest) conversation(prev *session.Session) (*session.Session, *paramError) {
	sess := &session.Session{}
	calls := map[string]string{} // call id → function name, for the outputs
	if prev != nil {
		sess.Messages, sess.Loaded, sess.Usage = slices.Clone(prev.Messages), slices.Clone(prev.Loaded), prev.Usage
		for _, m := range prev.Messages {
			for _, c := range m.Calls {
				calls[c.ID] = c.Name
			}
		}
	}
	items, pe := inputItems(req.Input)
	if pe != nil {
		return nil, pe
	}
	var system []string
	if req.Instructions != nil && *req.Instructions != "" {
		system = append(system, *req.Instructions)
	}
	open := false // the last item was the assistant's: a function call goes in its message
	for i, it := range items {
		where := fmt.Sprintf("input[%d]", i)
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message"
		}
		wasOpen := open
		open = false
		switch typ {
		case "message":
			text, pe := itemText(it.Content, where+".content")
			if pe != nil {
				return nil, pe
			}
			switch it.Role {
			case "system", "developer":
				system = append(system, text)
			case "user":
				sess.Messages = append(sess.Messages, llm.Message{Role: llm.RoleUser, Text: text})
			case "assistant":
				sess.Messages = append(sess.Messages, llm.Message{Role: llm.RoleAssistant, Text: text})
				open = true
			default:
				return nil, badParam(where+".role", apiwire.CodeBadRequest, "%s: role %q: want user, assistant, system or developer", where, it.Role)
			}
		case "function_call":
			if it.CallID == "" || it.Name == "" {
				return nil, badParam(where, apiwire.CodeBadRequest, "%s: a function_call needs call_id and name", where)
			}
			calls[it.CallID] = it.Name
			c := llm.Call{ID: it.CallID, Name: it.Name, Arguments: it.Arguments}
			if n := len(sess.Messages); wasOpen && n > 0 {
				sess.Messages[n-1].Calls = append(sess.Messages[n-1].Calls, c)
			} else {
				sess.Messages = append(sess.Messages, llm.Message{Role: llm.RoleAssistant, Calls: []llm.Call{c}})
			}
			open = true
		case "function_call_output":
			name, ok := calls[it.CallID]
			if !ok {
				return nil, badParam(where+".call_id", apiwire.CodeBadRequest, "%s: call_id %q answers no function call of the input or of the previous response", where, it.CallID)
			}
			text, pe := itemText(it.Output, where+".output")
			if pe != nil {
				return nil, pe
			}
			sess.Messages = append(sess.Messages, llm.Message{Role: llm.RoleTool, CallID: it.CallID, Name: name, Result: tool.TextResult(text)})
		default:
			return nil, badParam(where+".type", apiwire.CodeUnsupported, "%s: type %q: want message, function_call or function_call_output", where, typ)
		}
	}
	sess.System = strings.Join(system, "\n\n")
	n := len(sess.Messages)
	if n == 0 {
		return nil, badParam("input", apiwire.CodeBadRequest, `"input": no user message`)
	}
	if sess.Messages[n-1].Role == llm.RoleAssistant {
		return nil, badParam("input", apiwire.CodeBadRequest, `"input": the last item must be a user message or a function call's output, not the assistant's`)
	}
	return sess, nil
}

// textFormat is the response object's text.format: the request's, as it came, or
// text.
func (req *responsesRequest) textFormat() any {
	if req.Text == nil || isAbsent(req.Text.Format) {
		return map[string]any{"type": "text"}
	}
	return req.Text.Format
}

// outputParam is the field that asked for an answer format, "" for none.
func (req *responsesRequest) outputParam() string {
	if req.output == nil {
		return ""
	}
	return "text.format"
}

// inputItems is the input as items: a string is one user message.
func inputItems(raw json.RawMessage) ([]responsesItem, *paramError) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badParam("input", apiwire.CodeBadRequest, `"input": required: a string or a list of input items`)
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []responsesItem{{Type: "message", Role: "user", Content: raw}}, nil
	}
	var items []responsesItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, badParam("input", apiwire.CodeBadRequest, `"input": want a string or a list of input items`)
	}
	return items, nil
}

// itemText is a message's content or a function call's output: a string, or a list
// of text parts. Images, audio and files are refused: a session's messages hold text.
func itemText(raw json.RawMessage, where string) (string, *paramError) {
	text, bad, ok := textParts(raw, "input_text", "output_text")
	switch {
	case !ok:
		return "", badParam(where, apiwire.CodeBadRequest, "%s: want a string or a list of content parts", where)
	case bad.index >= 0:
		return "", badParam(fmt.Sprintf("%s[%d].type", where, bad.index), apiwire.CodeUnsupported, "%s[%d]: type %q: only text parts are supported", where, bad.index, bad.typ)
	}
	return text, nil
}

// response is one response being made: what its object tells besides the output.
type response struct {
	id      string
	created int64
	model   string
	req     *responsesRequest
	stored  bool
	tools   json.RawMessage
}

// itemID is the id of the response's n-th output item, of a kind (msg, fc).
func (rs *response) itemID(kind string, n int) string {
	return fmt.Sprintf("%s_%s_%d", kind, strings.TrimPrefix(rs.id, "resp_"), n)
}

// message is an assistant message item, at output index n.
func (rs *response) message(n int, text, status string) map[string]any {
	content := []any{}
	if status == "completed" {
		content = append(content, outputText(text))
	}
	return map[string]any{"id": rs.itemID("msg", n), "type": "message", "status": status, "role": "assistant", "content": content}
}

func outputText(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
}

// functionCall is a function_call item for a call of the client's, at output index n.
func (rs *response) functionCall(n int, c llm.Call, status string) map[string]any {
	args := c.Arguments
	if status != "completed" {
		args = ""
	}
	return map[string]any{"id": rs.itemID("fc", n), "type": "function_call", "status": status, "call_id": c.ID, "name": c.Name, "arguments": args}
}

// output is the turn's output items: a message for each step's text (the answer's
// alone when the request asked for a format: the output_text the client parses is
// the model's JSON), then the calls of the client's functions; a turn without
// either says so with an empty message.
func (rs *response) output(t *conversation.Result) []map[string]any {
	out := []map[string]any{}
	for i, st := range t.Steps {
		if st.Assistant.Text != "" && (rs.req.output == nil || i == len(t.Steps)-1) {
			out = append(out, rs.message(len(out), st.Assistant.Text, "completed"))
		}
	}
	if len(out) == 0 && len(t.ClientCalls) == 0 {
		out = append(out, rs.message(0, t.Answer, "completed"))
	}
	for _, c := range t.ClientCalls {
		out = append(out, rs.functionCall(len(out), c, "completed"))
	}
	return out
}

// object is the response object with its status and output, and its usage once done
// (t, nil before).
func (rs *response) object(status string, output []map[string]any, t *conversation.Result) map[string]any {
	var instructions, prev, maxOut, temp any
	if rs.req.Instructions != nil {
		instructions = *rs.req.Instructions
	}
	if rs.req.PreviousResponseID != "" {
		prev = rs.req.PreviousResponseID
	}
	if rs.req.MaxOutputTokens != nil {
		maxOut = *rs.req.MaxOutputTokens
	}
	temp = 1.0
	if rs.req.Temperature != nil {
		temp = *rs.req.Temperature
	}
	metadata := rs.req.Metadata
	if metadata == nil {
		metadata = map[string]string{}
	}
	o := map[string]any{
		"id": rs.id, "object": "response", "created_at": rs.created, "status": status, "model": rs.model,
		"output": output, "error": nil, "incomplete_details": nil, "instructions": instructions,
		"previous_response_id": prev, "max_output_tokens": maxOut, "metadata": metadata,
		"parallel_tool_calls": true, "temperature": temp, "top_p": 1.0, "tool_choice": "auto", "tools": rs.tools,
		"store": rs.stored, "background": false, "text": map[string]any{"format": rs.req.textFormat()},
		"truncation": "disabled", "usage": nil,
	}
	if t != nil {
		if t.Stop == llm.StopMaxTokens {
			o["status"], o["incomplete_details"] = "incomplete", map[string]any{"reason": "max_output_tokens"}
		}
		o["usage"] = map[string]any{
			"input_tokens": t.Usage.InputTokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": t.Usage.OutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": t.Usage.InputTokens + t.Usage.OutputTokens,
		}
	}
	return o
}

// CreateResponse answers POST /v1/responses: a response object or, with "stream":
// true, its events (responses_stream.go).
func (h *Handler) CreateResponse(w http.ResponseWriter, r *http.Request) {
	raw, ok := h.turnRequest(w, r, WriteOpenAIError)
	if !ok {
		return
	}
	req, client, pe := parseResponsesRequest(raw)
	if pe != nil {
		writeResponsesError(w, pe.apiError, pe.param)
		return
	}
	var prev *session.Session
	if req.PreviousResponseID != "" {
		var e *apiError
		if prev, e = h.storedResponse(r.Context(), req.PreviousResponseID); e != nil {
			writeResponsesError(w, e, "previous_response_id")
			return
		}
	}
	sess, pe := req.conversation(prev)
	if pe != nil {
		writeResponsesError(w, pe.apiError, pe.param)
		return
	}
	h.restoreSteps(r, sess) // for a client that sends the whole input again
	rs := &response{id: "resp_" + randomHex(24), created: time.Now().Unix(), model: req.Model, req: req,
		stored: h.opts.Sessions != nil && (req.Store == nil || *req.Store), tools: raw["tools"]}
	if rs.model == "" {
		rs.model = h.modelName()
	}
	if len(rs.tools) == 0 || string(rs.tools) == "null" {
		rs.tools = json.RawMessage("[]")
	}
	// The turn runs in a session of its own, as a chat completion's; a response that
	// is kept is written to the configured store once done, whole (keep).
	turn := h.unattendedTurn(r, rs.id, sess, client)
	log := h.logOf(r.Context()).With("response", rs.id)
	log.Info("response started", "messages", len(sess.Messages), "client_tools", len(client), "stream", req.Stream, "previous", req.PreviousResponseID)
	turn.Temperature, turn.Output = req.Temperature, req.output
	if req.MaxOutputTokens != nil {
		turn.MaxTokens = *req.MaxOutputTokens
	}
	if req.Stream {
		h.streamResponse(w, r, rs, turn)
		return
	}
	t, err := h.runTurn(r.Context(), turn)
	if err != nil {
		log.Info("response failed", "error", err)
		WriteOpenAIError(w, h.turnError(err, req.outputParam()))
		return
	}
	h.keepStep(r, t)
	obj := rs.object("completed", rs.output(t), t)
	if e := h.keep(r.Context(), rs, turn.InMemory, obj); e != nil {
		log.Info("response not kept", "error", e)
		WriteOpenAIError(w, e)
		return
	}
	log.Info("response done", "steps", len(t.Steps))
	writeJSON(w, http.StatusOK, obj)
}

// keep writes a response that is to be kept to the configured store: its session
// (the turn's, held in memory), the turn's history included, with the response
// object and the request's input items in its metadata.
func (h *Handler) keep(ctx context.Context, rs *response, sess *session.Session, obj map[string]any) *apiError {
	if !rs.stored {
		return nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return errorf(http.StatusInternalServerError, apiwire.CodeInternal, "encoding the response: %v", err)
	}
	sess.Metadata = map[string]string{responseKey: string(b)}
	if in, err := json.Marshal(rs.inputList()); err == nil {
		sess.Metadata[inputKey] = string(in) // input_items' (responses_items.go)
	}
	if err := h.opts.Sessions.Create(ctx, sess); err != nil {
		return errorf(http.StatusInternalServerError, apiwire.CodeStoreFailed, "keeping the response: %v", err)
	}
	return nil
}

// storedResponse is the session of response id, when the request's person may see
// it; else the 404 of a response that does not exist, whoever's it is.
func (h *Handler) storedResponse(ctx context.Context, id string) (*session.Session, *apiError) {
	notFound := errorf(http.StatusNotFound, apiwire.CodeNotFound, "no response %q (a response is kept unless its request said \"store\": false)", id)
	if h.opts.Sessions == nil {
		return nil, notFound
	}
	sess, err := httpx.OwnedSession(ctx, h.opts.Sessions.Store(), id)
	switch {
	case errors.Is(err, session.ErrNotFound):
		return nil, notFound
	case err != nil:
		return nil, errorf(http.StatusInternalServerError, apiwire.CodeStoreFailed, "%v", err)
	case sess.Metadata[responseKey] == "":
		return nil, notFound // a session, not a response
	}
	return sess, nil
}

// GetResponse answers GET /v1/responses/{id}: the response object as it was answered.
func (h *Handler) GetResponse(w http.ResponseWriter, r *http.Request) {
	sess, e := h.storedResponse(r.Context(), r.PathValue("id"))
	if e != nil {
		WriteOpenAIError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, json.RawMessage(sess.Metadata[responseKey]))
}
