package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/conversation"
)

// A server may ask the person a question in the middle of a tool call
// (elicitation/create, MCP 2025-11-25): a form to fill in, or a URL to open. During a
// session's turn the question reaches the person the way a call that needs approval
// does (conversation.Runner keeps it, reads its form and checks the answer): the
// turn's stream sends input_required, GET /v1/sessions/{id} lists it under
// "inputs", and POST /v1/sessions/{id}/inputs/{request_id} answers it; nobody
// answering within InputTimeout (or the call's own time) cancels it. A chat
// completion has nobody to ask: its questions are declined, and the model told.

// DefaultInputTimeout bounds how long a turn waits for a person to answer a server's
// question over the HTTP API unless the Runner of Options.Conversations says otherwise; past it the question is
// cancelled. The call that caused it has its own bound too (the server's
// toolTimeout), and the shorter one holds. Switchboard's own, as
// DefaultApprovalTimeout.
const DefaultInputTimeout = conversation.DefaultInputTimeout

// pendingInput is a question as input_required and GET /v1/sessions/{id} show it:
// the wire package's, which the CLI decodes.
type pendingInput = apiwire.Question

// pendingOf is q as input_required and GET /v1/sessions/{id} show it.
func pendingOf(q *conversation.Question) pendingInput {
	p := pendingInput{RequestID: q.ID, Server: q.Server, Mode: q.Mode, Message: q.Message, URL: q.URL,
		TimeoutMs: q.Timeout.Milliseconds(), CallID: q.CallID, Since: q.Since}
	if q.Form != nil {
		p.Schema = q.Form.Schema
	}
	return p
}

// answerInput takes a person's answer to a server's question: {"action": "accept",
// "content": {...}} (the form's fields; a URL-mode question takes none), or
// {"action": "decline"} or "cancel". A form's content that does not fit it is a 400
// naming each field wrong, and the question still waits.
func (s *Server) answerInput(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if e := s.decodeBody(w, r, &body, false); e != nil {
		writeAPIError(w, r, e)
		return
	}
	switch body.Action {
	case "accept", "decline", "cancel":
	case "":
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, `"action": required ("accept", "decline" or "cancel")`)
		return
	default:
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, fmt.Sprintf(`"action": %q: want "accept", "decline" or "cancel"`, body.Action))
		return
	}
	id, reqID := r.PathValue("id"), r.PathValue("request_id")
	err := conversation.ErrNotWaiting
	if s.conv != nil {
		// A person who may not act in the session finds nothing waiting (see
		// ownedSession).
		err = s.conv.Answer(r.Context(), id, reqID, conversation.Reply{Action: body.Action, Content: body.Content})
	}
	var ce *conversation.ContentError
	switch {
	case errors.As(err, &ce):
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, ce.Error())
	case errors.Is(err, conversation.ErrClosed):
		writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, fmt.Sprintf("question %q of session %q was answered or closed meanwhile", reqID, id))
	case err != nil:
		writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, fmt.Sprintf("no question %q waits for an answer in session %q", reqID, id))
	default:
		writeJSON(w, http.StatusOK, map[string]any{"requestId": reqID, "action": body.Action})
	}
}
