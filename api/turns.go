package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/llm"
)

type llmMessage = llm.Message

// A turn in this process is known to the rest of the API by three things: that it
// runs (GET /v1/sessions/{id}'s "busy", switchboard_turns_active), the calls it waits
// to have approved (listed there, decided by POST .../approvals/{call_id}) and the
// servers' questions it waits to have answered (listed there too, answered by POST
// .../inputs/{request_id}: inputs.go). The conversation.Runner keeps them; whether
// the session is free is the store's to say (Store.Acquire, through the agent): it
// is the one check, and it holds across replicas.

// pendingApproval is a call that waits for POST .../approvals/{call_id}, as GET
// /v1/sessions/{id} lists it.
type pendingApproval = apiwire.Approval

// busy reports whether a turn runs in session id here, the calls it waits for and
// the questions, oldest first.
func (s *Server) busy(id string) (bool, []pendingApproval, []pendingInput) {
	if s.conv == nil {
		return false, nil, nil
	}
	running, as, qs := s.conv.Busy(id)
	if !running {
		return false, nil, nil
	}
	out := []pendingApproval{}
	for _, a := range as {
		out = append(out, pendingApproval{CallID: a.CallID, Name: a.Name, Server: a.Server, Arguments: a.Arguments, Since: a.Since})
	}
	var ins []pendingInput
	for _, q := range qs {
		ins = append(ins, pendingOf(q))
	}
	return true, out, ins
}

// turnsActive is how many sessions have a turn running here.
func (s *Server) turnsActive() int {
	if s.conv == nil {
		return 0
	}
	return s.conv.Active()
}

// sessionTurn is the turn of a session that owner owns, with content as the user's
// message: its calls are recorded as the owner's.
func sessionTurn(id, content, owner string) *conversation.Request {
	return &conversation.Request{Session: id, User: content, Owner: owner, Source: sourceSession}
}

// renderTurn sends what a session's stream sends of e: the agent's events, the
// calls that wait for approval and the servers' questions (the wire package's
// events, which the CLI decodes).
func (s *Server) renderTurn(sw *httpx.SSEWriter, e conversation.Event) {
	switch e.Kind {
	case conversation.TextDelta:
		_ = sw.Send(apiwire.EventText, apiwire.TextEvent{Step: e.Step, Text: e.Text})
	case conversation.ToolStarted:
		_ = sw.Send(apiwire.EventToolCall, apiwire.ToolCallEvent{Arguments: argumentsJSON(e.Arguments), CallID: e.CallID, Name: e.Name, Step: e.Step})
	case conversation.ToolFinished:
		_ = sw.Send(apiwire.EventToolResult, apiwire.ToolResultEvent{CallID: e.CallID, DurationMs: float64(e.Duration.Microseconds()) / 1000,
			IsError: e.IsError, Name: e.Name, Result: e.Result, Step: e.Step})
	case conversation.TurnUsage:
		_ = sw.Send(apiwire.EventUsage, usageOf(e.Usage))
	case conversation.ApprovalRequired:
		a := e.Approval
		_ = sw.Send(apiwire.EventApprovalRequired, apiwire.ApprovalRequiredEvent{Arguments: a.Arguments, CallID: a.CallID, Name: a.Name,
			Server: a.Server, TimeoutMs: a.Timeout.Milliseconds()})
	case conversation.QuestionAsked:
		_ = sw.Send(apiwire.EventInputRequired, pendingOf(e.Question))
	case conversation.QuestionClosed:
		_ = sw.Send(apiwire.EventInputClosed, apiwire.InputClosedEvent{Action: e.Action, RequestID: e.Question.ID})
	}
}

// recordCall records a call that a turn made, a session's or a chat completion's,
// in the recent calls of GET /v1/events.
func (s *Server) recordCall(c conversation.Call) {
	s.live.calls.record(callRecord{Tool: c.Tool, Server: c.Server, Source: c.Source, Session: c.Session, Start: c.Start,
		DurationMs: float64(c.Duration.Microseconds()) / 1000, IsError: c.IsError, Owner: c.Owner}, c.Result)
}

// argumentsJSON is a call's arguments as JSON when they parse (they should: the
// agent checks them), else as a JSON string of what the model sent.
func argumentsJSON(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// decideApproval takes a person's decision on a call: {"allow": true} or
// {"allow": false, "reason": "…"} (the model sees the reason).
func (s *Server) decideApproval(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Allow  *bool  `json:"allow"`
		Reason string `json:"reason"`
	}
	if e := s.decodeBody(w, r, &body, false); e != nil {
		writeAPIError(w, r, e)
		return
	}
	if body.Allow == nil {
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, `"allow": required (true or false)`)
		return
	}
	id, callID := r.PathValue("id"), r.PathValue("call_id")
	notFound := func() {
		writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, fmt.Sprintf("no call %q waits for approval in session %q", callID, id))
	}
	if s.conv == nil {
		notFound()
		return
	}
	// A person who may not act in the session finds nothing waiting (see
	// ownedSession).
	if _, err := s.conv.Decide(r.Context(), id, callID, *body.Allow, body.Reason); err != nil {
		notFound()
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"callId": callID, "allow": *body.Allow})
}

// replyOf is a turn's outcome as the API answers it: the answer, and every step
// with its messages as the session keeps them. The error is a message's that
// cannot be encoded, which fails the answer as an encoding does.
func replyOf(t *conversation.Result) (apiwire.Reply, error) {
	rp := apiwire.Reply{Session: t.Session, Answer: t.Answer, Steps: []apiwire.Step{}, Usage: usageOf(t.Usage), Stop: string(t.Stop)}
	for _, st := range t.Steps {
		step := apiwire.Step{Usage: usageOf(st.Usage)}
		var err error
		if step.Assistant, err = json.Marshal(st.Assistant); err != nil {
			return rp, err
		}
		for _, m := range st.Results {
			b, err := json.Marshal(m)
			if err != nil {
				return rp, err
			}
			step.Results = append(step.Results, b)
		}
		rp.Steps = append(rp.Steps, step)
	}
	return rp, nil
}

// usageOf is u on the wire.
func usageOf(u llm.Usage) apiwire.Usage {
	return apiwire.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
}

// endedError is httpx.TurnError for a turn that ran: one cancelled because the server shuts
// down and its grace is over says so, and what was kept.
func (s *Server) endedError(err error) *apiError {
	if s.shutDown(err) {
		return errorf(http.StatusServiceUnavailable, apiwire.CodeCancelled, "the server is shutting down and its grace is over: the turn was cancelled; "+
			"what it completed is kept in the session (the calls it cut short are answered as interrupted); send the next message once the server is back")
	}
	return httpx.TurnError(err)
}

// shutDown reports whether err is the cancellation of Shutdown, at the end of its grace.
func (s *Server) shutDown(err error) bool {
	return s.base.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// postMessage runs a turn with {"content": "…"}: a JSON reply with the answer and the
// steps, or with "Accept: text/event-stream" the turn's events as they happen (text,
// tool_call, tool_result, approval_required, input_required, input_closed, usage,
// then done or error).
func (s *Server) postMessage(w http.ResponseWriter, r *http.Request) {
	if s.conv == nil {
		writeError(w, r, http.StatusServiceUnavailable, apiwire.CodeNoModel, s.opts.NoModel)
		return
	}
	var body struct {
		Content string `json:"content"`
	}
	if e := s.decodeBody(w, r, &body, false); e != nil {
		writeAPIError(w, r, e)
		return
	}
	if strings.TrimSpace(body.Content) == "" {
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, `"content": the message is empty`)
		return
	}
	id := r.PathValue("id")
	owner, e := s.turnOwner(r.Context(), id)
	if e != nil {
		writeAPIError(w, r, e)
		return
	}
	log := s.logOf(r.Context()).With("session", id)
	log.Info("turn started")
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		res, err := s.runTurn(r.Context(), sessionTurn(id, body.Content, owner))
		if err != nil {
			log.Info("turn failed", "error", err)
			writeAPIError(w, r, s.endedError(err))
			return
		}
		log.Info("turn done", "steps", len(res.Steps))
		rp, err := replyOf(res)
		if err != nil {
			writeError(w, r, http.StatusInternalServerError, apiwire.CodeInternal, "encoding the response: "+err.Error())
			return
		}
		writeJSON(w, http.StatusOK, rp)
		return
	}
	s.streamTurn(w, r, id, owner, body.Content, log)
}

// turnOwner is the owner of session id, when the request of ctx may run a turn in
// it; else the error of a session that does not exist (sessionOwner). Without
// identities the store is not asked: the agent's Acquire says whether the session
// exists, and the owner matters to nobody. With them, a server without Sessions (the
// store of the agent of Options.Conversations) cannot tell whose a session is, and
// runs none.
func (s *Server) turnOwner(ctx context.Context, id string) (string, *apiError) {
	if _, ok := identity.FromContext(ctx); !ok {
		return "", nil
	}
	if s.opts.Sessions == nil {
		return "", errorf(http.StatusServiceUnavailable, apiwire.CodeNoSessions, "this server keeps no sessions")
	}
	owner, err := sessionOwner(ctx, s.opts.Sessions.Store(), id)
	if err != nil {
		return "", httpx.TurnError(err)
	}
	return owner, nil
}

// startTurn starts a turn of the agent, a session's or a chat completion's: its
// stream is the caller's to follow. The API's observer watches it (turnObserver).
func (s *Server) startTurn(ctx context.Context, req *conversation.Request) *conversation.Turn {
	req.Observer = s.observer
	return s.conv.Start(ctx, req)
}

// runTurn runs a turn to its end (startTurn) without following its stream.
func (s *Server) runTurn(ctx context.Context, req *conversation.Request) (*conversation.Result, error) {
	return s.startTurn(ctx, req).Wait()
}

// streamTurn streams a session's turn: its events as they come, then "done" with the
// reply or "error". A turn that fails before any event (the session missing or busy)
// gets a plain JSON error with its status.
func (s *Server) streamTurn(w http.ResponseWriter, r *http.Request, id, owner, content string, log *slog.Logger) {
	sw := httpx.NewSSEWriter(w)
	res, err := sw.Follow(s.startTurn(r.Context(), sessionTurn(id, content, owner)), func(evs []conversation.Event) {
		for _, e := range evs {
			s.renderTurn(sw, e)
		}
	})
	if err != nil {
		log.Info("turn failed", "error", err)
		e := s.endedError(err)
		if !sw.Started() {
			writeAPIError(w, r, e)
			return
		}
		_ = sw.Send(apiwire.EventError, errorBody{Error: *e})
		_ = sw.Flush()
		return
	}
	log.Info("turn done", "steps", len(res.Steps))
	if rp, err := replyOf(res); err != nil {
		_ = sw.Send(apiwire.EventDone, map[string]string{"error": err.Error()}) // as an event that cannot be encoded (httpx.SSEWriter.Send)
	} else {
		_ = sw.Send(apiwire.EventDone, rp)
	}
	_ = sw.Flush()
}
