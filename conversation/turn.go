package conversation

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"iter"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/agent"
)

// Turn is a turn under way (Runner.Start): a typed stream of its events, the calls
// that wait for a decision and the questions that wait for an answer. The stream
// holds every event until it is taken: the turn never waits for its reader.
type Turn struct {
	r   *Runner
	req *Request
	log *slog.Logger

	mu        sync.Mutex
	events    []Event
	approvals map[string]*approval // by call id
	questions map[string]*question // by question id
	ready     chan struct{}        // a token when events were added or the turn ended
	done      chan struct{}        // closed when the turn has ended
	res       *Result
	err       error
}

type approval struct {
	a      *Approval
	decide chan agent.Decision // buffered: one decision
}

type question struct {
	q      *Question
	answer chan answer // buffered: one answer
}

// answer is a question's checked answer: its result for the server, and the note.
type answer struct {
	res  *mcp.ElicitResult
	note string
}

func newTurn(r *Runner, req *Request) *Turn {
	return &Turn{r: r, req: req, log: r.log.With("session", req.Session),
		approvals: map[string]*approval{}, questions: map[string]*question{},
		ready: make(chan struct{}, 1), done: make(chan struct{})}
}

// Ready has a token when events were added since the last Take, or the turn ended.
func (t *Turn) Ready() <-chan struct{} { return t.ready }

// Done is closed when the turn has ended; by then every event is in the stream.
func (t *Turn) Done() <-chan struct{} { return t.done }

// Take returns the events added since the last Take, in order.
func (t *Turn) Take() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	evs := t.events
	t.events = nil
	return evs
}

// Events yields the turn's events as they come, until the turn has ended and every
// event was yielded. A reader that stops early leaves the rest untaken.
func (t *Turn) Events() iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for {
			for _, e := range t.Take() {
				if !yield(e) {
					return
				}
			}
			select {
			case <-t.ready:
			case <-t.done:
				for _, e := range t.Take() {
					if !yield(e) {
						return
					}
				}
				return
			}
		}
	}
}

// Wait waits for the turn's end and returns what it did. The error is the
// agent's (session.ErrBusy, session.ErrNotFound, *llm.Error, ctx's); on error the
// Result holds the steps completed (nil when the turn never started).
func (t *Turn) Wait() (*Result, error) {
	<-t.done
	return t.res, t.err
}

// Pending are the calls that wait for a decision and the questions that wait for an
// answer, oldest first.
func (t *Turn) Pending() ([]*Approval, []*Question) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var as []*Approval
	for _, a := range t.approvals {
		as = append(as, a.a)
	}
	var qs []*Question
	for _, q := range t.questions {
		qs = append(qs, q.q)
	}
	slices.SortFunc(as, func(a, b *Approval) int { return a.Since.Compare(b.Since) })
	slices.SortFunc(qs, func(a, b *Question) int { return a.Since.Compare(b.Since) })
	return as, qs
}

// Decide decides the call callID that waits (ErrNotWaiting when none does) and
// returns it; a call is decided once. A call denied runs not, and the model reads
// reason ("" says the user declined it).
func (t *Turn) Decide(callID string, allow bool, reason string) (*Approval, error) {
	t.mu.Lock()
	a := t.approvals[callID]
	delete(t.approvals, callID)
	t.mu.Unlock()
	if a == nil {
		return nil, ErrNotWaiting
	}
	d := agent.Allow()
	if !allow {
		if reason == "" {
			reason = "the user declined the call to " + a.a.Name
		}
		d = agent.Deny(reason)
	}
	a.decide <- d
	return a.a, nil
}

// Answer answers the question id that waits: ErrNotWaiting when none does, a
// *ContentError when rep does not fit it (it still waits), ErrClosed when it was
// answered or closed meanwhile. A form's content is checked against the form, its
// defaults filling the fields left out.
func (t *Turn) Answer(id string, rep Reply) error {
	t.mu.Lock()
	q := t.questions[id]
	t.mu.Unlock()
	if q == nil {
		return ErrNotWaiting
	}
	switch rep.Action {
	case "accept", "decline", "cancel":
	default:
		return &ContentError{fmt.Sprintf(`"action": %q: want "accept", "decline" or "cancel"`, rep.Action)}
	}
	res := &mcp.ElicitResult{Action: rep.Action}
	if rep.Action == "accept" {
		hasContent := len(rep.Content) > 0 && strings.TrimSpace(string(rep.Content)) != "null"
		switch {
		case q.q.Mode == "url" && hasContent:
			return &ContentError{`"content": a URL-mode question takes none (accept says the person opens the URL)`}
		case q.q.Mode == "form":
			content, err := q.q.Form.Check(rep.Content)
			if err != nil {
				return &ContentError{err.Error()}
			}
			res.Content = content
		}
	}
	t.mu.Lock()
	if t.questions[id] != q {
		t.mu.Unlock()
		return ErrClosed
	}
	delete(t.questions, id)
	t.mu.Unlock()
	q.answer <- answer{res, rep.Note}
	return nil
}

func (t *Turn) push(e Event) {
	if o := t.req.Observer; o != nil && o.OnEvent != nil {
		o.OnEvent(e)
	}
	t.mu.Lock()
	t.events = append(t.events, e)
	t.mu.Unlock()
	t.wake()
}

func (t *Turn) wake() {
	select {
	case t.ready <- struct{}{}:
	default:
	}
}

func (t *Turn) finish(res *Result, err error) {
	t.mu.Lock()
	t.res, t.err = res, err
	t.mu.Unlock()
	close(t.done)
	t.wake()
}

// agentEvent is the agent's OnEvent: into the stream, and a finished call recorded.
func (t *Turn) agentEvent(e agent.Event) {
	if e.Kind == agent.ToolFinished {
		t.recordCall(Call{Tool: e.Name, Server: e.Server, Session: e.Session, Owner: t.req.Owner, Source: t.req.Source,
			Start: time.Now().Add(-e.Duration), Duration: e.Duration, IsError: e.IsError, Result: e.Result})
	}
	t.push(Event{Event: e})
}

// recordCall gives a call the turn made to the turn's observer.
func (t *Turn) recordCall(c Call) {
	if o := t.req.Observer; o != nil && o.OnCall != nil {
		o.OnCall(c)
	}
}

// approve is the turn's agent.Approver: the policy says whether a person must decide
// the call; an unattended turn denies it, else it waits in the stream
// (ApprovalRequired) for Decide, at most ApprovalTimeout and while the turn lasts.
func (t *Turn) approve(ctx context.Context, c agent.Call) agent.Decision {
	if p := t.r.opts.NeedsApproval; p == nil || !p(c) {
		return agent.Allow()
	}
	if u := t.req.Unattended; u != nil {
		return agent.Deny(u.Refuse(c.Name))
	}
	timeout := max(t.r.opts.ApprovalTimeout, 0)
	a := &approval{decide: make(chan agent.Decision, 1), a: &Approval{Session: c.Session, CallID: c.ID, Name: c.Name, Server: c.Tool.Server,
		Arguments: c.Arguments, Since: time.Now(), Timeout: timeout, done: make(chan struct{})}}
	t.mu.Lock()
	t.approvals[c.ID] = a
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		if t.approvals[c.ID] == a {
			delete(t.approvals, c.ID)
		}
		t.mu.Unlock()
		close(a.a.done)
	}()
	log := t.log.With("call_id", c.ID, "tool", c.Name)
	log.Info("call waits for approval")
	t.push(Event{Event: agent.Event{Kind: ApprovalRequired, Session: c.Session, Step: c.Step, CallID: c.ID, Name: c.Name,
		Server: c.Tool.Server, Arguments: string(c.Arguments)}, Approval: a.a})
	var expired <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case d := <-a.decide:
		log.Info("call decided", "allow", d.Allow)
		return d
	case <-expired:
		log.Info("call not approved in time")
		return agent.Deny(fmt.Sprintf("nobody approved the call to %s within %s", c.Name, timeout))
	case <-ctx.Done():
		return agent.Deny("the turn ended before the call to " + c.Name + " was approved")
	}
}

// elicit is the turn's agent.Eliciter: an unattended turn declines; else the
// question waits in the stream (QuestionAsked) for Answer, at most InputTimeout and
// while the call lasts, and the stream says when it is closed (QuestionClosed).
func (t *Turn) elicit(ctx context.Context, e agent.Elicitation) agent.ElicitReply {
	if u := t.req.Unattended; u != nil {
		note := ""
		if u.Decline != nil {
			note = u.Decline(e.Server, e.Params.Message)
		}
		return agent.ElicitReply{Result: &mcp.ElicitResult{Action: "decline"}, Note: note}
	}
	log := t.log.With("server", e.Server, "call_id", e.CallID, "mode", e.Params.Mode)
	q, why := readQuestion(e)
	if q == nil {
		log.Info("a server's question declined: " + why)
		return agent.ElicitReply{Result: &mcp.ElicitResult{Action: "decline"},
			Note: fmt.Sprintf("server %s asked the user a question that Switchboard cannot show (%s); it was declined", e.Server, why)}
	}
	timeout := t.r.opts.InputTimeout
	if d, ok := ctx.Deadline(); ok && (timeout < 0 || time.Until(d) < timeout) {
		timeout = time.Until(d)
	}
	q.q.Timeout = max(timeout, 0)
	t.mu.Lock()
	t.questions[q.q.ID] = q
	t.mu.Unlock()
	log = log.With("request_id", q.q.ID)
	log.Info("a server's question waits for the person")
	t.push(Event{Event: agent.Event{Kind: QuestionAsked, Session: e.Session, CallID: e.CallID, Name: e.Tool, Server: e.Server}, Question: q.q})
	var expired <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	reply := agent.ElicitReply{Result: &mcp.ElicitResult{Action: "cancel"}}
	select {
	case a := <-q.answer:
		reply = agent.ElicitReply{Result: a.res, Note: a.note}
		log.Info("the person answered the server's question", "action", a.res.Action)
	case <-expired:
		log.Info("a server's question not answered in time")
		reply.Note = fmt.Sprintf("nobody answered server %s's question within %s; it was cancelled", e.Server, timeout.Round(time.Millisecond))
	case <-ctx.Done(): // the call ended (the turn, the call's time)
	}
	t.mu.Lock()
	if t.questions[q.q.ID] == q {
		delete(t.questions, q.q.ID)
	}
	t.mu.Unlock()
	close(q.q.done)
	t.push(Event{Event: agent.Event{Kind: QuestionClosed, Session: e.Session, CallID: e.CallID, Name: e.Tool, Server: e.Server},
		Question: q.q, Action: reply.Result.Action})
	return reply
}

// readQuestion reads a server's question; why says why it cannot be put to anyone: a
// URL that is not a web address, a form whose schema is not one.
func readQuestion(e agent.Elicitation) (q *question, why string) {
	p := e.Params
	q = &question{answer: make(chan answer, 1), q: &Question{ID: "in_" + randomHex(8), Session: e.Session, Server: e.Server,
		Mode: p.Mode, Message: p.Message, CallID: e.CallID, Tool: e.Tool, Since: time.Now(), done: make(chan struct{})}}
	switch p.Mode {
	case "url":
		// Only a web address becomes a link: "Clients implementing URL mode
		// elicitation MUST handle URLs carefully to prevent users from unknowingly
		// clicking malicious links" (a javascript: URL would run in a browser).
		u, err := url.Parse(p.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, "the URL to open is not an http(s) address"
		}
		q.q.URL = p.URL
		return q, ""
	case "form":
	default:
		return nil, fmt.Sprintf("mode %q is neither form nor url", p.Mode)
	}
	form, err := ReadForm(p.RequestedSchema)
	if err != nil {
		return nil, err.Error()
	}
	q.q.Form = form
	return q, ""
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
