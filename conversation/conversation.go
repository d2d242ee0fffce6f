package conversation

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Defaults of Options' zero values. Switchboard's own.
const (
	// DefaultApprovalTimeout bounds the wait for a person to decide a call; past it
	// the call is denied.
	DefaultApprovalTimeout = 5 * time.Minute
	// DefaultInputTimeout bounds the wait for a person to answer a server's
	// question; past it the question is cancelled. The call that caused it has its
	// own bound too (the server's toolTimeout), and the shorter one holds.
	DefaultInputTimeout = 5 * time.Minute
)

// Errors of Decide and Answer.
var (
	// ErrNotWaiting: no such call waits for a decision, or no such question for an
	// answer (never was, was decided or answered already, or no longer waits).
	ErrNotWaiting = errors.New("conversation: nothing of that id waits")
	// ErrClosed: the question was answered or closed while the answer was checked.
	ErrClosed = errors.New("conversation: the question was answered or closed meanwhile")
)

// ContentError is an answer that does not fit its question (a form's content, or
// content for a URL): the question still waits.
type ContentError struct{ Msg string }

func (e *ContentError) Error() string { return e.Msg }

// Options configure a Runner; nil, and every zero field, is a usable default.
type Options struct {
	// NeedsApproval is the approve policy: whether a call must be decided by a
	// person before it runs (ServerPolicy: the servers' "approve" globs). nil: no
	// call needs approval.
	NeedsApproval func(agent.Call) bool
	// ApprovalTimeout bounds the wait for a decision (default
	// DefaultApprovalTimeout; negative: no bound), InputTimeout for an answer to a
	// server's question (default DefaultInputTimeout; negative: only the call's).
	ApprovalTimeout, InputTimeout time.Duration
	// Logger gets the waits for a person and their outcome; nil discards them.
	Logger *slog.Logger
}

// Runner runs the turns a person watches: over an agent, with the approve policy,
// the calls that wait for a decision and the servers' questions that wait for an
// answer. It is safe for concurrent use; the turns of stored sessions running in it
// are known by session id (Busy, Decide, Answer).
type Runner struct {
	agent *agent.Agent
	opts  Options
	log   *slog.Logger

	mu sync.Mutex
	// sessions are the stored sessions with a turn running here, by id.
	sessions map[string]*running
}

// running is a session's turns here: one, or for a moment two while the store
// refuses the second.
type running struct {
	n     int
	owner string
	turns []*Turn
}

// New returns a Runner of a's turns; opts, nil for the defaults, gives the policy,
// the timeouts and the observers. New panics if a is nil.
func New(a *agent.Agent, opts *Options) *Runner {
	if a == nil {
		panic("conversation: New: nil agent")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.ApprovalTimeout == 0 {
		o.ApprovalTimeout = DefaultApprovalTimeout
	}
	if o.InputTimeout == 0 {
		o.InputTimeout = DefaultInputTimeout
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Runner{agent: a, opts: o, log: log, sessions: map[string]*running{}}
}

// Model is the model of the Runner's turns (its agent's).
func (r *Runner) Model() llm.Model { return r.agent.Model() }

// ServerPolicy is the approve policy of the servers' config: a call needs approval
// when its tool's server lists the tool's original name under "approve". servers
// finds a server's config by name (hub.Hub.Server).
func ServerPolicy(servers func(name string) (config.Server, bool)) func(agent.Call) bool {
	return func(c agent.Call) bool {
		srv, ok := servers(c.Tool.Server)
		return ok && srv.NeedsApproval(c.Tool.OriginalName)
	}
}

// Request is one turn to run: in a stored session (Session), or over a conversation
// the request brought (InMemory).
type Request struct {
	// Session is the id of the stored session to take a turn in (the agent's
	// store); with InMemory, the id the turn's events carry.
	Session string
	// InMemory, when set, is the conversation to run the turn over, held in memory
	// and in no store: the turn adds to it in place (agent.TurnOptions.Session).
	InMemory *session.Session
	// User is the user's message; empty continues the history as it is.
	User string
	// Owner is whose the session is (identity.Person.Subject): only a request of
	// theirs (identity.Allowed) decides its calls and answers its questions by
	// session id, and its calls are recorded as theirs.
	Owner string
	// Source is where the turn comes from, as Call records it ("session", "chat").
	Source string
	// ClientTools, MaxTokens and Temperature are agent.TurnOptions'.
	ClientTools []tool.Tool
	MaxTokens   int
	Temperature *float64
	// Unattended, when set, says nobody can be asked during the turn: a call that
	// needs approval is denied and a server's question declined, saying why.
	Unattended *Unattended
	// Observer, when set, watches this turn beside the Runner's observers: the
	// front end's own metrics and feeds, given with the turn it starts.
	Observer *Observer
}

// Observer watches one turn for whoever started it (metrics, a recent-calls feed):
// its events, its calls once answered, its end. Each func runs on the turn's
// goroutines and must return quickly; a nil one observes nothing.
type Observer struct {
	// OnEvent gets every event of the turn.
	OnEvent func(Event)
	// OnCall gets every call the turn made, once it is answered.
	OnCall func(Call)
	// OnEnd gets the agent's error (nil when the turn succeeded), before Wait
	// returns.
	OnEnd func(error)
}

// Unattended says what a turn nobody watches tells the model instead of asking.
type Unattended struct {
	// Refuse is the reason the model gets for a call of tool (its exposed name)
	// that needs approval.
	Refuse func(tool string) string
	// Decline is the note for a server's question ("": none).
	Decline func(server, message string) string
}

// Start starts a turn on a goroutine of its own: read its events (Events, or
// Ready and Take), decide its calls (Decide), answer its questions (Answer), and
// Wait for its outcome. ctx ends the turn. Every started turn must be waited for.
func (r *Runner) Start(ctx context.Context, req *Request) *Turn {
	t := newTurn(r, req)
	stored := req.InMemory == nil
	if stored {
		r.begin(req.Session, req.Owner, t)
	}
	opts := &agent.TurnOptions{User: req.User, Session: req.InMemory, ClientTools: req.ClientTools,
		MaxTokens: req.MaxTokens, Temperature: req.Temperature,
		OnEvent: t.agentEvent, Approve: t.approve, Elicit: t.elicit}
	go func() {
		res, err := r.agent.RunTurn(ctx, req.Session, opts)
		if stored {
			// Once the store has released the session: a client that hears the
			// turn is over and sends the next message at once finds it free.
			r.end(req.Session, t)
		}
		if o := req.Observer; o != nil && o.OnEnd != nil {
			o.OnEnd(err)
		}
		t.finish(res, err)
	}()
	return t
}

// Run runs a turn to its end, its events given to the Runner's observers only: for
// a front end with nobody to render them to (or Unattended).
func (r *Runner) Run(ctx context.Context, req *Request) (*Result, error) {
	return r.Start(ctx, req).Wait()
}

func (r *Runner) begin(id, owner string, t *Turn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[id]
	if s == nil {
		s = &running{}
		r.sessions[id] = s
	}
	s.n++
	s.owner = owner
	s.turns = append(s.turns, t)
}

func (r *Runner) end(id string, t *Turn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[id]
	if s == nil {
		return
	}
	s.turns = slices.DeleteFunc(s.turns, func(x *Turn) bool { return x == t })
	if s.n--; s.n <= 0 {
		delete(r.sessions, id)
	}
}

// Active is how many stored sessions have a turn running here.
func (r *Runner) Active() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sessions)
}

// Busy reports whether a turn runs in session id here, the calls it waits to have
// decided and the questions it waits to have answered, oldest first.
func (r *Runner) Busy(id string) (bool, []*Approval, []*Question) {
	r.mu.Lock()
	s := r.sessions[id]
	var turns []*Turn
	if s != nil {
		turns = slices.Clone(s.turns)
	}
	r.mu.Unlock()
	if s == nil {
		return false, nil, nil
	}
	var as []*Approval
	var qs []*Question
	for _, t := range turns {
		a, q := t.Pending()
		as, qs = append(as, a...), append(qs, q...)
	}
	return true, as, qs
}

// turnsOf are the turns of session id that the request of ctx may act on
// (identity.Allowed of the session's owner); none when it may not, as if nothing
// waited.
func (r *Runner) turnsOf(ctx context.Context, id string) []*Turn {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[id]
	if s == nil || !identity.Allowed(ctx, s.owner) {
		return nil
	}
	return slices.Clone(s.turns)
}

// Decide decides the call callID that waits in session id (Turn.Decide), for the
// request of ctx (identity.Allowed of the session's owner): ErrNotWaiting when none
// waits that it may decide. It returns the call decided.
func (r *Runner) Decide(ctx context.Context, id, callID string, allow bool, reason string) (*Approval, error) {
	for _, t := range r.turnsOf(ctx, id) {
		if a, err := t.Decide(callID, allow, reason); err == nil {
			return a, nil
		}
	}
	return nil, ErrNotWaiting
}

// Answer answers the question reqID that waits in session id, for the request of
// ctx (identity.Allowed of the session's owner): ErrNotWaiting when none waits that
// it may answer, a *ContentError when the reply does not fit (the question still
// waits), ErrClosed when it was closed meanwhile.
func (r *Runner) Answer(ctx context.Context, id, reqID string, rep Reply) error {
	for _, t := range r.turnsOf(ctx, id) {
		if err := t.Answer(reqID, rep); !errors.Is(err, ErrNotWaiting) {
			return err
		}
	}
	return ErrNotWaiting
}
