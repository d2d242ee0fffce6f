package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

type llmMessage = llm.Message

// turn is a turn running in this process: the events its stream has yet to send, and
// the calls that wait for a person's decision.
type turn struct {
	mu        sync.Mutex
	events    []sseEvent
	wake      chan struct{} // a token when events were added
	approvals map[string]*approval
}

type sseEvent struct {
	name string
	data any
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

func (t *turn) push(name string, data any) {
	t.mu.Lock()
	t.events = append(t.events, sseEvent{name, data})
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *turn) take() []sseEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	evs := t.events
	t.events = nil
	return evs
}

func (t *turn) pending() []pendingApproval {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []pendingApproval{}
	for id, a := range t.approvals {
		out = append(out, pendingApproval{CallID: id, Name: a.call.Name, Server: a.call.Tool.Server, Arguments: a.call.Arguments, Since: a.since})
	}
	return out
}

// beginTurn registers a turn for session id, or returns nil when one already runs
// here (the store's Acquire catches turns of other processes).
func (s *Server) beginTurn(id string) *turn {
	s.turnsMu.Lock()
	defer s.turnsMu.Unlock()
	if _, busy := s.turns[id]; busy {
		return nil
	}
	t := &turn{wake: make(chan struct{}, 1), approvals: map[string]*approval{}}
	s.turns[id] = t
	return t
}

// endTurn unregisters t, once its Run has returned and before the client hears the
// turn is over: a client that sends the next message at once finds the session free.
// A turn registered since (t ended earlier) stays.
func (s *Server) endTurn(id string, t *turn) {
	s.turnsMu.Lock()
	defer s.turnsMu.Unlock()
	if s.turns[id] == t {
		delete(s.turns, id)
	}
}

func (s *Server) turnOf(id string) *turn {
	s.turnsMu.Lock()
	defer s.turnsMu.Unlock()
	return s.turns[id]
}

// onEvent is the agent's OnEvent: each event is observed, and goes to the stream of
// its session's turn.
func (s *Server) onEvent(e agent.Event) {
	s.observe(e, sourceSession)
	t := s.turnOf(e.Session)
	if t == nil {
		return
	}
	switch e.Kind {
	case agent.TextDelta:
		t.push("text", map[string]any{"step": e.Step, "text": e.Text})
	case agent.ToolStarted:
		t.push("tool_call", map[string]any{"step": e.Step, "callId": e.CallID, "name": e.Name, "arguments": rawOrString(e.Arguments)})
	case agent.ToolFinished:
		t.push("tool_result", map[string]any{"step": e.Step, "callId": e.CallID, "name": e.Name, "result": e.Result,
			"isError": e.IsError, "durationMs": float64(e.Duration.Microseconds()) / 1000})
	case agent.TurnUsage:
		t.push("usage", e.Usage)
	}
}

// observe is what the API takes of every turn's events, a session's or a chat
// completion's (source): the metrics, and the recent calls of GET /v1/events.
func (s *Server) observe(e agent.Event, source string) {
	s.metrics.event(e)
	if e.Kind == agent.ToolFinished {
		s.recordTurnCall(e, source)
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

// approve is the agent's Approver. A call that needs approval is announced on the
// turn's stream (approval_required) and listed by GET /v1/sessions/{id}; the turn
// waits for POST /v1/sessions/{id}/approvals/{call_id}, at most ApprovalTimeout.
func (s *Server) approve(ctx context.Context, c agent.Call) agent.Decision {
	if !s.needsApproval(c) {
		return agent.Allow()
	}
	t := s.turnOf(c.Session)
	if t == nil {
		return agent.Deny("the user must approve " + c.Name + " and nobody was there to ask")
	}
	a := &approval{call: c, since: time.Now(), decide: make(chan agent.Decision, 1)}
	t.mu.Lock()
	t.approvals[c.ID] = a
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.approvals, c.ID)
		t.mu.Unlock()
	}()
	log := s.log.With("session", c.Session, "call_id", c.ID, "tool", c.Name)
	log.Info("call waits for approval")
	t.push("approval_required", map[string]any{"callId": c.ID, "name": c.Name, "server": c.Tool.Server, "arguments": c.Arguments,
		"timeoutMs": s.opts.ApprovalTimeout.Milliseconds()})
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
	srv, ok := s.opts.Hub.Server(c.Tool.Server)
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
	if t := s.turnOf(id); t != nil {
		t.mu.Lock()
		a = t.approvals[callID]
		delete(t.approvals, callID) // decided once
		t.mu.Unlock()
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
// tool_call, tool_result, approval_required, usage, then done or error).
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
	t := s.beginTurn(id)
	if t == nil {
		writeAPIError(w, r, turnError(fmt.Errorf("session %s: %w", id, session.ErrBusy)))
		return
	}
	defer s.endTurn(id, t)
	log := s.logOf(r.Context()).With("session", id)
	log.Info("turn started")
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		res, err := s.runTurn(r.Context(), id, body.Content)
		s.endTurn(id, t)
		if err != nil {
			log.Info("turn failed", "error", err)
			writeAPIError(w, r, s.endedError(err))
			return
		}
		log.Info("turn done", "steps", len(res.Steps))
		writeJSON(w, http.StatusOK, replyOf(res))
		return
	}
	s.streamTurn(w, r, t, id, body.Content, log)
}

// keepAlive is how often an idle stream gets a comment, so that proxies keep it open
// while a turn waits (for the model, for an approval).
const keepAlive = 15 * time.Second

// streamTurn runs the turn on a goroutine of its own and writes its events as they
// come. The stream starts with the first event: a turn that fails before any (the
// session missing or busy) gets a plain JSON error with its status.
func (s *Server) streamTurn(w http.ResponseWriter, r *http.Request, t *turn, id, content string, log *slog.Logger) {
	type outcome struct {
		turn *agent.Turn
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := s.runTurn(r.Context(), id, content)
		done <- outcome{res, err}
	}()
	rc := http.NewResponseController(w)
	started := false
	start := func() {
		if started {
			return
		}
		started = true
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
	}
	send := func(evs []sseEvent) {
		if len(evs) == 0 {
			return
		}
		start()
		for _, e := range evs {
			data, err := json.Marshal(e.data)
			if err != nil {
				data, _ = json.Marshal(map[string]string{"error": err.Error()})
			}
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, data)
		}
		_ = rc.Flush()
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-t.wake:
			send(t.take())
		case <-tick.C:
			if started {
				fmt.Fprint(w, ": keep-alive\n\n")
				_ = rc.Flush()
			}
		case o := <-done:
			s.endTurn(id, t)
			send(t.take())
			if o.err != nil {
				log.Info("turn failed", "error", o.err)
				e := s.endedError(o.err)
				if !started {
					writeAPIError(w, r, e)
					return
				}
				send([]sseEvent{{"error", errorBody{*e}}})
				return
			}
			log.Info("turn done", "steps", len(o.turn.Steps))
			send([]sseEvent{{"done", replyOf(o.turn)}})
			return
		}
	}
}
