package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/session"
)

// Anthropic's message threads (the beta "message-threads-2026-08-12",
// https://platform.claude.com/docs/en/build-with-claude/message-threads), as the
// documentation has them:
//
//   - Create: "Send your first request as you do today, with the full conversation,
//     system, and tools, and add "thread": {"type": "create"}. The API stores the
//     conversation, including Claude's reply, under the response id."
//   - Continue: "Send only the messages since the previous response, and add
//     "thread": {"type": "continue", "previous_message_id": "<previous id>"}. Leave
//     system and tools out of the request. The thread keeps the values from the
//     create request. Use each new response id for the next turn."
//   - Replay: "If the API can no longer continue the thread, the continue request
//     returns a 404 error. Send the full conversation again in a new create request."
//     The SDKs do so on the 404's error.details.error_code "thread_not_found"
//     (@anthropic-ai/sdk's ThreadState.recoversFrom), which this one carries.
//
// Here a thread is kept as a response of /v1/responses is: a session of the
// configured store whose id is the message's (msg_…), holding the conversation so
// far, with the create request's system, tools and model in its metadata; it is its
// creator's, another person's id being the 404 of one that does not exist
// (httpx.OwnedSession). A continued thread moves to the new message's id: the session
// of the previous one is removed once the new one is kept, so that a thread is one
// session however long it runs, and it expires as sessions do. Without a store a
// thread is refused with Anthropic's own thread_unsupported_request, which the SDKs
// answer by sending the whole conversation again without a thread.

// threadKey is the metadata of a thread's session that holds its threadState.
const threadKey = "anthropic.thread"

// threadsBeta begins the anthropic-beta value of every version of the beta.
const threadsBeta = "message-threads-"

// thread is what a request asks of a thread: to create one, or to continue the one
// kept at message prevID.
type thread struct {
	prevID string
	state  threadState
}

// threadState is what a kept thread holds besides its conversation: the fields of
// its create request that a continue request leaves out, as they were sent.
type threadState struct {
	System json.RawMessage `json:"system,omitempty"`
	Tools  json.RawMessage `json:"tools,omitempty"`
	Model  json.RawMessage `json:"model,omitempty"`
}

// hasThreadsBeta reports whether the request's anthropic-beta headers (each a
// comma-separated list, as the SDKs send them) name the message threads beta.
func hasThreadsBeta(h http.Header) bool {
	for _, v := range h.Values("Anthropic-Beta") {
		for _, b := range strings.Split(v, ",") {
			if strings.HasPrefix(strings.TrimSpace(b), threadsBeta) {
				return true
			}
		}
	}
	return false
}

// absent reports whether a field of the request was left out (or sent as null).
func absent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// sameJSON reports whether two fields are the same JSON, spacing aside.
func sameJSON(a, b json.RawMessage) bool {
	if absent(a) || absent(b) {
		return absent(a) == absent(b)
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// threadOf reads the request's "thread": nil without one; for a continue, the thread
// and its session, whose history comes before the request's messages, with the
// thread's system, tools and model put in raw where the request left them out.
func (h *Handler) threadOf(r *http.Request, raw map[string]json.RawMessage) (*thread, *session.Session, *apiError) {
	if absent(raw["thread"]) {
		return nil, nil, nil
	}
	if !hasThreadsBeta(r.Header) {
		return nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, `thread: message threads are a beta: send the header "anthropic-beta: message-threads-2026-08-12" with them`)
	}
	var p struct {
		Type              string `json:"type"`
		PreviousMessageID string `json:"previous_message_id"`
	}
	if err := json.Unmarshal(raw["thread"], &p); err != nil {
		return nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadJSON, `thread: want {"type": "create"} or {"type": "continue", "previous_message_id": "msg_…"}`)
	}
	if p.Type != "create" && p.Type != "continue" {
		return nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, `thread.type: %q: want "create" or "continue"`, p.Type)
	}
	if h.opts.Sessions == nil {
		return nil, nil, errorf(http.StatusBadRequest, apiwire.CodeThreadUnsupported, `thread: this server keeps no sessions, so no message threads: send the whole conversation without "thread"`)
	}
	if p.Type == "create" {
		return &thread{state: threadState{System: raw["system"], Tools: raw["tools"], Model: raw["model"]}}, nil, nil
	}
	if p.PreviousMessageID == "" {
		return nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "thread.previous_message_id: Field required")
	}
	prev, state, e := h.storedThread(r.Context(), p.PreviousMessageID)
	if e != nil {
		return nil, nil, e
	}
	for _, f := range []struct {
		name string
		kept json.RawMessage
	}{{"system", state.System}, {"tools", state.Tools}} {
		switch {
		case absent(raw[f.name]):
			raw[f.name] = f.kept
		case !sameJSON(raw[f.name], f.kept):
			return nil, nil, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s: a thread keeps the %s of the request that created it: leave %s out of a continue request, or create a new thread", f.name, f.name, f.name)
		}
	}
	if absent(raw["model"]) {
		raw["model"] = state.Model
	}
	return &thread{prevID: p.PreviousMessageID, state: *state}, prev, nil
}

// storedThread is the session of the thread kept at message id, when the request's
// person may see it; else the 404 of a thread that is not kept, whoever's it is, on
// which the SDKs send the whole conversation again.
func (h *Handler) storedThread(ctx context.Context, id string) (*session.Session, *threadState, *apiError) {
	notFound := errorf(http.StatusNotFound, apiwire.CodeThreadNotFound, `thread.previous_message_id: no thread is kept at message %q (it expired, was continued already, or was never created): send the whole conversation with "thread": {"type": "create"}`, id)
	sess, err := httpx.OwnedSession(ctx, h.opts.Sessions.Store(), id)
	switch {
	case errors.Is(err, session.ErrNotFound):
		return nil, nil, notFound
	case err != nil:
		return nil, nil, errorf(http.StatusInternalServerError, apiwire.CodeStoreFailed, "%v", err)
	case sess.Metadata[threadKey] == "":
		return nil, nil, notFound // a session, not a thread
	}
	var state threadState
	if err := json.Unmarshal([]byte(sess.Metadata[threadKey]), &state); err != nil {
		return nil, nil, errorf(http.StatusInternalServerError, apiwire.CodeStoreFailed, "thread %s: its kept state does not decode: %v", id, err)
	}
	return sess, &state, nil
}

// keepThread keeps the thread of a turn that is done: its session (the turn's, held
// in memory, its history the whole conversation) under the new message's id, then,
// for a thread continued, removes the session of the message it continued.
func (h *Handler) keepThread(ctx context.Context, th *thread, sess *session.Session) *apiError {
	b, err := json.Marshal(th.state)
	if err != nil {
		return errorf(http.StatusInternalServerError, apiwire.CodeInternal, "encoding the thread: %v", err)
	}
	sess.Metadata = map[string]string{threadKey: string(b)}
	if err := h.opts.Sessions.Create(ctx, sess); err != nil {
		return errorf(http.StatusInternalServerError, apiwire.CodeStoreFailed, "keeping the thread: %v", err)
	}
	if th.prevID != "" {
		if err := h.opts.Sessions.Destroy(ctx, th.prevID); err != nil && !errors.Is(err, session.ErrNotFound) {
			h.logOf(ctx).Warn("the thread's previous message not removed", "message", th.prevID, "error", err)
		}
	}
	return nil
}
