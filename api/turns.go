package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

type llmMessage = llm.Message

// A turn in this process is known to the rest of the API by three things: that it
// runs (GET /v1/sessions/{id}'s "busy", switchboard_turns_active), the calls it waits
// to have approved (listed there, decided by POST .../approvals/{call_id}) and the
// servers' questions it waits to have answered (listed there too, answered by POST
// .../inputs/{request_id}: inputs.go). Whether
// the session is free is the store's to say (Store.Acquire, through the agent): it
// is the one check, and it holds across replicas.

// turns are the session turns of this process.
type turns struct {
	mu sync.Mutex
	// running counts the turns under way by session id: one, or for a moment two when
	// the store is refusing the second.
	running map[string]int
	// owners are the owners of the sessions in running: whose their approvals and
	// questions are.
	owners map[string]string
	// waiting are the calls that wait for a person, by session id and call id.
	waiting map[string]map[string]*approval
	// inputs are the servers' questions that wait for a person, by session id and
	// request id.
	inputs map[string]map[string]*input
}

type approval struct {
	call   agent.Call
	since  time.Time
	decide chan agent.Decision // buffered: one decision
}

// pendingApproval is a call that waits for POST .../approvals/{call_id}.
type pendingApproval struct {
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`
	Server    string          `json:"server"`
	Arguments json.RawMessage `json:"arguments"`
	Since     time.Time       `json:"since"`
}

// begin counts a turn of session id, which owner owns, as running, until end.
func (ts *turns) begin(id, owner string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.running == nil {
		ts.running, ts.owners = map[string]int{}, map[string]string{}
	}
	ts.running[id]++
	ts.owners[id] = owner
}

func (ts *turns) end(id string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.running[id]--; ts.running[id] <= 0 {
		delete(ts.running, id)
		delete(ts.owners, id)
	}
}

// allowed reports whether the request of ctx may decide the calls and answer the
// questions of session id's turn here (identity.Allowed of its owner); true when no
// turn runs here, where there is nothing to decide either.
func (ts *turns) allowed(ctx context.Context, id string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	owner, ok := ts.owners[id]
	return !ok || identity.Allowed(ctx, owner)
}

// active is how many sessions have a turn running here.
func (ts *turns) active() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.running)
}

// busy reports whether a turn runs in session id here, the calls it waits for and
// the questions, oldest first.
func (ts *turns) busy(id string) (bool, []pendingApproval, []pendingInput) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.running[id] == 0 {
		return false, nil, nil
	}
	out := []pendingApproval{}
	for callID, a := range ts.waiting[id] {
		out = append(out, pendingApproval{CallID: callID, Name: a.call.Name, Server: a.call.Tool.Server, Arguments: a.call.Arguments, Since: a.since})
	}
	var ins []pendingInput
	for _, in := range ts.inputs[id] {
		ins = append(ins, in.pending)
	}
	slices.SortFunc(ins, func(a, b pendingInput) int { return a.Since.Compare(b.Since) })
	return true, out, ins
}

// ask lists in as a question of session id that waits for a person, until the
// returned func.
func (ts *turns) ask(id string, in *input) (done func()) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.inputs == nil {
		ts.inputs = map[string]map[string]*input{}
	}
	if ts.inputs[id] == nil {
		ts.inputs[id] = map[string]*input{}
	}
	ts.inputs[id][in.pending.RequestID] = in
	return func() { ts.takeInput(id, in.pending.RequestID) }
}

// input is the question that waits in session id as reqID; nil when none does.
func (ts *turns) input(id, reqID string) *input {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.inputs[id][reqID]
}

// takeInput removes the question that waits in session id as reqID and returns it;
// nil when none waits (or it was answered already: a question is answered once).
func (ts *turns) takeInput(id, reqID string) *input {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	in := ts.inputs[id][reqID]
	delete(ts.inputs[id], reqID)
	if len(ts.inputs[id]) == 0 {
		delete(ts.inputs, id)
	}
	return in
}

// wait lists a's call as waiting for a person, until the returned func.
func (ts *turns) wait(a *approval) (done func()) {
	c := a.call
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.waiting == nil {
		ts.waiting = map[string]map[string]*approval{}
	}
	if ts.waiting[c.Session] == nil {
		ts.waiting[c.Session] = map[string]*approval{}
	}
	ts.waiting[c.Session][c.ID] = a
	return func() { ts.take(c.Session, c.ID) }
}

// take removes the call that waits in session id as callID and returns it; nil when
// none waits (or it was decided already: a call is decided once).
func (ts *turns) take(id, callID string) *approval {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	a := ts.waiting[id][callID]
	delete(ts.waiting[id], callID)
	if len(ts.waiting[id]) == 0 {
		delete(ts.waiting, id)
	}
	return a
}

// sessionTurn is the agent.TurnOptions of a session's turn with content as the user's
// message, in a session that owner owns: its events are observed (its calls as the
// owner's) and, when the turn is streamed (q), go to its stream with the calls that
// wait for approval and the servers' questions.
func (s *Server) sessionTurn(content, owner string, q *turnQueue) agent.TurnOptions {
	return agent.TurnOptions{
		User: content,
		OnEvent: func(e agent.Event) {
			s.observe(e, sourceSession, owner)
			if q != nil {
				streamEvent(q, e)
			}
		},
		Approve: func(ctx context.Context, c agent.Call) agent.Decision { return s.approve(ctx, c, q) },
		Elicit:  func(ctx context.Context, e agent.Elicitation) agent.ElicitReply { return s.askPerson(ctx, e, q) },
	}
}

// streamEvent queues what a session's stream sends of e.
func streamEvent(q *turnQueue, e agent.Event) {
	switch e.Kind {
	case agent.TextDelta:
		q.push("text", map[string]any{"step": e.Step, "text": e.Text})
	case agent.ToolStarted:
		q.push("tool_call", map[string]any{"step": e.Step, "callId": e.CallID, "name": e.Name, "arguments": rawOrString(e.Arguments)})
	case agent.ToolFinished:
		q.push("tool_result", map[string]any{"step": e.Step, "callId": e.CallID, "name": e.Name, "result": e.Result,
			"isError": e.IsError, "durationMs": float64(e.Duration.Microseconds()) / 1000})
	case agent.TurnUsage:
		q.push("usage", e.Usage)
	}
}

// observe is what the API takes of every turn's events, a session's or a chat
// completion's (source), whose calls are owner's: the metrics, and the recent calls
// of GET /v1/events.
func (s *Server) observe(e agent.Event, source, owner string) {
	s.metrics.event(e)
	if e.Kind == agent.ToolFinished {
		s.recordTurnCall(e, source, owner)
	}
}

// rawOrString is a call's arguments as JSON when they parse (they should: the agent
// checks them), else as the string the model sent.
func rawOrString(s string) any {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return s
}

// approve is a session turn's Approver. A call that needs approval is announced on
// the turn's stream (q, when streamed: approval_required) and listed by GET
// /v1/sessions/{id}; the turn waits for POST /v1/sessions/{id}/approvals/{call_id},
// at most ApprovalTimeout.
func (s *Server) approve(ctx context.Context, c agent.Call, q *turnQueue) agent.Decision {
	if !s.needsApproval(c) {
		return agent.Allow()
	}
	a := &approval{call: c, since: time.Now(), decide: make(chan agent.Decision, 1)}
	defer s.turns.wait(a)()
	log := s.log.With("session", c.Session, "call_id", c.ID, "tool", c.Name)
	log.Info("call waits for approval")
	if q != nil {
		q.push("approval_required", map[string]any{"callId": c.ID, "name": c.Name, "server": c.Tool.Server, "arguments": c.Arguments,
			"timeoutMs": s.opts.ApprovalTimeout.Milliseconds()})
	}
	timer := time.NewTimer(s.opts.ApprovalTimeout)
	defer timer.Stop()
	select {
	case d := <-a.decide:
		log.Info("call decided", "allow", d.Allow)
		return d
	case <-timer.C:
		log.Info("call not approved in time")
		return agent.Deny(fmt.Sprintf("nobody approved the call to %s within %s", c.Name, s.opts.ApprovalTimeout))
	case <-ctx.Done():
		return agent.Deny("the turn ended before the call to " + c.Name + " was approved")
	}
}

func (s *Server) needsApproval(c agent.Call) bool {
	if s.opts.NeedsApproval != nil {
		return s.opts.NeedsApproval(c)
	}
	srv, ok := s.hub.Server(c.Tool.Server)
	return ok && srv.NeedsApproval(c.Tool.OriginalName)
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
		writeError(w, r, http.StatusBadRequest, "bad_request", `"allow": required (true or false)`)
		return
	}
	id, callID := r.PathValue("id"), r.PathValue("call_id")
	var a *approval
	if s.turns.allowed(r.Context(), id) { // else as if nothing waited: see ownedSession
		a = s.turns.take(id, callID)
	}
	if a == nil {
		writeError(w, r, http.StatusNotFound, "not_found", fmt.Sprintf("no call %q waits for approval in session %q", callID, id))
		return
	}
	d := agent.Allow()
	if !*body.Allow {
		reason := body.Reason
		if reason == "" {
			reason = "the user declined the call to " + a.call.Name
		}
		d = agent.Deny(reason)
	}
	a.decide <- d
	writeJSON(w, http.StatusOK, map[string]any{"callId": callID, "allow": d.Allow})
}

// reply is a turn's outcome: the answer, and every step with its calls' results.
type reply struct {
	Session string         `json:"session"`
	Answer  string         `json:"answer"`
	Steps   []stepJSON     `json:"steps"`
	Usage   llm.Usage      `json:"usage"`
	Stop    llm.StopReason `json:"stop,omitempty"`
}

type stepJSON struct {
	Assistant llm.Message   `json:"assistant"`
	Results   []llm.Message `json:"results,omitempty"`
	Usage     llm.Usage     `json:"usage"`
}

func replyOf(t *agent.Turn) reply {
	rp := reply{Session: t.Session, Answer: t.Answer, Steps: []stepJSON{}, Usage: t.Usage, Stop: t.Stop}
	for _, st := range t.Steps {
		rp.Steps = append(rp.Steps, stepJSON{st.Assistant, st.Results, st.Usage})
	}
	return rp
}

// turnError maps a failed turn to its status: the session missing (404) or held by
// another turn (409), the model failing (502), the service shutting down (503).
func turnError(err error) *apiError {
	var le *llm.Error
	switch {
	case errors.Is(err, session.ErrNotFound):
		return errorf(http.StatusNotFound, "not_found", "%v", err)
	case errors.Is(err, session.ErrBusy):
		return errorf(http.StatusConflict, "busy", "%v", err)
	case errors.As(err, &le):
		return errorf(http.StatusBadGateway, "model_failed", "%v", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return errorf(http.StatusServiceUnavailable, "cancelled", "the turn was cancelled: %v", err)
	}
	return errorf(http.StatusInternalServerError, "turn_failed", "%v", err)
}

// endedError is turnError for a turn that ran: one cancelled because the server shuts
// down and its grace is over says so, and what was kept.
func (s *Server) endedError(err error) *apiError {
	if s.shutDown(err) {
		return errorf(http.StatusServiceUnavailable, "cancelled", "the server is shutting down and its grace is over: the turn was cancelled; "+
			"what it completed is kept in the session (the calls it cut short are answered as interrupted); send the next message once the server is back")
	}
	return turnError(err)
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
	if s.agent == nil {
		writeError(w, r, http.StatusServiceUnavailable, "no_model", s.opts.NoModel)
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
		writeError(w, r, http.StatusBadRequest, "bad_request", `"content": the message is empty`)
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
		res, err := s.runSessionTurn(r.Context(), id, owner, s.sessionTurn(body.Content, owner, nil))
		if err != nil {
			log.Info("turn failed", "error", err)
			writeAPIError(w, r, s.endedError(err))
			return
		}
		log.Info("turn done", "steps", len(res.Steps))
		writeJSON(w, http.StatusOK, replyOf(res))
		return
	}
	s.streamTurn(w, r, id, owner, body.Content, log)
}

// turnOwner is the owner of session id, when the request of ctx may run a turn in
// it; else the error of a session that does not exist (sessionOwner). Without
// identities the store is not asked: the agent's Acquire says whether the session
// exists, and the owner matters to nobody. With them, a server without Sessions (the
// agent's store, Options.Agent says) cannot tell whose a session is, and runs none.
func (s *Server) turnOwner(ctx context.Context, id string) (string, *apiError) {
	if _, ok := identity.FromContext(ctx); !ok {
		return "", nil
	}
	if s.opts.Sessions == nil {
		return "", errorf(http.StatusServiceUnavailable, "no_sessions", "this server keeps no sessions")
	}
	owner, err := sessionOwner(ctx, s.opts.Sessions.Store(), id)
	if err != nil {
		return "", turnError(err)
	}
	return owner, nil
}

// runTurn runs a turn of the agent, a session's or a chat completion's, and counts
// the model request that failed it.
func (s *Server) runTurn(ctx context.Context, id string, opts agent.TurnOptions) (*agent.Turn, error) {
	t, err := s.agent.RunTurn(ctx, id, &opts)
	s.metrics.turnEnded(err)
	return t, err
}

// runSessionTurn is runTurn for a session, counted as running here until it returns:
// by then the store has released the session, and the client that hears the turn
// is over and sends the next message at once finds it free.
func (s *Server) runSessionTurn(ctx context.Context, id, owner string, opts agent.TurnOptions) (*agent.Turn, error) {
	s.turns.begin(id, owner)
	defer s.turns.end(id)
	return s.runTurn(ctx, id, opts)
}

// streamTurn streams a session's turn: its events as they come, then "done" with the
// reply or "error". A turn that fails before any event (the session missing or busy)
// gets a plain JSON error with its status.
func (s *Server) streamTurn(w http.ResponseWriter, r *http.Request, id, owner, content string, log *slog.Logger) {
	sw := newSSEWriter(w)
	q := newTurnQueue()
	opts := s.sessionTurn(content, owner, q)
	res, err := sw.follow(q, func() (*agent.Turn, error) { return s.runSessionTurn(r.Context(), id, owner, opts) }, func(evs []sseEvent) {
		for _, e := range evs {
			_ = sw.send(e.name, e.data)
		}
	})
	if err != nil {
		log.Info("turn failed", "error", err)
		e := s.endedError(err)
		if !sw.started {
			writeAPIError(w, r, e)
			return
		}
		_ = sw.send("error", errorBody{Error: *e})
		_ = sw.flush()
		return
	}
	log.Info("turn done", "steps", len(res.Steps))
	_ = sw.send("done", replyOf(res))
	_ = sw.flush()
}
