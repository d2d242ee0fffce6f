package compat

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/session"
)

// The rest of a kept response (https://platform.openai.com/docs/api-reference/responses):
// GET /v1/responses/{id}/input_items lists the items of its request's input, paged as
// OpenAI pages its lists, and DELETE /v1/responses/{id} removes it. Both are the
// response's creator's, as GET is (storedResponse): another person's id is a 404.

// inputKey is the metadata of a response's session that holds its input items, as
// input_items lists them.
const inputKey = "openai.input"

// The bounds of input_items' "limit", as OpenAI's: 1 to 100, 20 when not given.
const (
	defaultItemsLimit = 20
	maxItemsLimit     = 100
)

// inputList is the request's input as the items input_items lists, in the order
// sent, each with an id of its own: a message with its text as one input_text (or
// output_text, the assistant's) part, a function call, a function call's output. The
// request has been checked (conversation) before.
func (rs *response) inputList() []map[string]any {
	items, pe := inputItems(rs.req.Input)
	if pe != nil {
		return nil
	}
	out := make([]map[string]any, 0, len(items))
	for i, it := range items {
		id := rs.itemID("in", i)
		switch {
		case it.Type == "function_call":
			out = append(out, map[string]any{"id": id, "type": "function_call", "status": "completed", "call_id": it.CallID, "name": it.Name, "arguments": it.Arguments})
		case it.Type == "function_call_output":
			text, _ := itemText(it.Output, "output")
			out = append(out, map[string]any{"id": id, "type": "function_call_output", "status": "completed", "call_id": it.CallID, "output": text})
		default:
			text, _ := itemText(it.Content, "content")
			part := "input_text"
			if it.Role == "assistant" {
				part = "output_text"
			}
			out = append(out, map[string]any{"id": id, "type": "message", "status": "completed", "role": it.Role,
				"content": []map[string]any{{"type": part, "text": text}}})
		}
	}
	return out
}

// ListInputItems answers GET /v1/responses/{id}/input_items: the response's input
// items, newest first unless "order" is "asc", "limit" (1 to 100, default 20) at a
// time, "after" the item of that id; {"object": "list", "data", "first_id",
// "last_id", "has_more"}. A response kept before its input was (none in its session)
// lists none.
func (h *Handler) ListInputItems(w http.ResponseWriter, r *http.Request) {
	sess, e := h.storedResponse(r.Context(), r.PathValue("id"))
	if e != nil {
		WriteOpenAIError(w, e)
		return
	}
	q := r.URL.Query()
	limit := defaultItemsLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxItemsLimit {
			writeResponsesError(w, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "limit: %q: want a whole number from 1 to %d", v, maxItemsLimit), "limit")
			return
		}
		limit = n
	}
	order := q.Get("order")
	if order != "" && order != "asc" && order != "desc" {
		writeResponsesError(w, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, `order: %q: want "asc" or "desc"`, order), "order")
		return
	}
	var items []map[string]any
	if in := sess.Metadata[inputKey]; in != "" {
		if err := json.Unmarshal([]byte(in), &items); err != nil {
			WriteOpenAIError(w, errorf(http.StatusInternalServerError, apiwire.CodeStoreFailed, "response %s: its kept input does not decode: %v", sess.ID, err))
			return
		}
	}
	if order != "asc" {
		slices.Reverse(items)
	}
	if after := q.Get("after"); after != "" {
		i := slices.IndexFunc(items, func(it map[string]any) bool { return it["id"] == after })
		if i < 0 {
			writeResponsesError(w, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "after: %q: no input item of response %s has this id", after, sess.ID), "after")
			return
		}
		items = items[i+1:]
	}
	more := len(items) > limit
	if more {
		items = items[:limit]
	}
	var first, last any
	if n := len(items); n > 0 {
		first, last = items[0]["id"], items[n-1]["id"]
	}
	if items == nil {
		items = []map[string]any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": items, "first_id": first, "last_id": last, "has_more": more})
}

// DeleteResponse answers DELETE /v1/responses/{id}: the response's session is
// removed, and the answer is OpenAI's, {"id", "object": "response.deleted",
// "deleted": true}.
func (h *Handler) DeleteResponse(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, e := h.storedResponse(r.Context(), id); e != nil {
		WriteOpenAIError(w, e)
		return
	}
	switch err := h.opts.Sessions.Destroy(r.Context(), id); {
	case errors.Is(err, session.ErrNotFound):
		WriteOpenAIError(w, errorf(http.StatusNotFound, apiwire.CodeNotFound, "no response %q", id))
		return
	case err != nil:
		WriteOpenAIError(w, errorf(http.StatusInternalServerError, apiwire.CodeStoreFailed, "deleting response %s: %v", id, err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "response.deleted", "deleted": true})
}
