package agent

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/telemetry"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Defaults of Options' zero values (and of the config's "agent" settings).
const (
	// DefaultMaxSteps: model requests with tools per turn, after which one more
	// request, without tools, asks for the final answer. From persona_agent.
	DefaultMaxSteps = 10
	// DefaultParallelTools bounds the calls of one step that run at once.
	// Switchboard's own: models rarely ask for more in one step.
	DefaultParallelTools = 8
)

// storeTimeout bounds a write to the store made after the turn's context is done:
// what completed before a cancellation is still stored, but not forever.
const storeTimeout = 10 * time.Second

// AgentName is gen_ai.agent.name in the spans of a turn (invoke_agent).
const AgentName = "switchboard"

// Options configure an Agent; nil, and every zero field, is a usable default.
type Options struct {
	// Tools are the tools the model may call, read afresh at every step (normally a
	// tool.Union of local tools and a hub). nil means none.
	Tools tool.Toolset
	// Deferred, when set, shows the model Tools in deferred mode (deferred.Policy says
	// when): the search tools tool_search and tool_search_regex, the pinned tools,
	// and the tools the session has found, which are exposed from the next step of
	// the same turn and kept with the session (Session.Loaded). A deferred tool
	// called by its exact name runs and is loaded too. nil shows every tool.
	Deferred *deferred.Policy
	// Catalog, with Deferred, is the search index of Tools to use: a
	// deferred.NewCatalog(Tools) shared with other agents, the gateway and the API, so
	// that the index is built once for all of them. nil: one of the agent's own.
	Catalog *deferred.Catalog
	// NativeSearch, with Deferred, lets a model whose backend has the provider's
	// own tool search (llm.NativeSearcher) search the catalog itself: the pinned
	// tools go as usual, the rest as Request.Deferred, and no search tools of ours.
	// A model without it gets Switchboard's search tools (logged once).
	NativeSearch bool
	// System is the system message of sessions that have none of their own.
	System string
	// MaxSteps bounds the requests with tools per turn; default DefaultMaxSteps.
	MaxSteps int
	// ParallelTools bounds the calls of one step that run at once; default
	// DefaultParallelTools.
	ParallelTools int
	// MaxTokens and Temperature are passed on to the model (0 and nil: its defaults).
	MaxTokens   int
	Temperature *float64
	// ToolTimeout bounds each call, on top of the toolset's own bounds (a hub applies
	// each server's toolTimeout); 0 means no bound of the agent's own. A call past it
	// is answered with a timeout error result. The tool is told through its context
	// and must return: the turn waits for it.
	ToolTimeout time.Duration
	// Approve decides each call before it runs; a denied call is answered with an
	// error result carrying the reason. nil allows every call.
	Approve Approver
	// Elicit answers the questions servers ask the person (elicitation/create)
	// during the agent's calls, when a ServerRequests on the hub passes them on (see
	// Eliciter); nil leaves them to the ServerRequests' own Elicit.
	Elicit Eliciter
	// OnEvent observes the turn (see Event); nil observes nothing. A callback rather
	// than a channel: events arrive in order without a goroutine to own, and none is
	// dropped or blocks the turn on a reader that went away. An observer that wants a
	// channel sends to its own.
	OnEvent func(Event)
	// Logger gets the agent's logs; nil discards them.
	Logger *slog.Logger
}

// Agent runs turns: a user message in, the model and the tools in a loop, an answer
// out. It is safe for concurrent use by turns of different sessions.
type Agent struct {
	model    llm.Model
	sessions session.Store // the turns' store unless TurnOptions.Store
	opts     Options
	log      *slog.Logger
	deferred *deferred.Views // nil unless Options.Deferred
	native   bool            // NativeSearch, and the model has it
}

// New returns an agent that answers with model and keeps its sessions in store (a
// session.NewMemory, session/sqlite, session/postgres …); opts, nil for the defaults,
// gives the tools and the rest. New panics if model or store is nil: an agent
// without them cannot take a turn.
func New(model llm.Model, store session.Store, opts *Options) *Agent {
	if model == nil {
		panic("agent: New: nil llm.Model")
	}
	if store == nil {
		panic("agent: New: nil session.Store")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	if o.ParallelTools <= 0 {
		o.ParallelTools = DefaultParallelTools
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Agent{model: model, sessions: store, opts: o, log: log}
	if o.Deferred != nil && o.Tools != nil {
		cat := o.Catalog
		if cat == nil {
			cat = deferred.NewCatalog(o.Tools)
		}
		a.deferred = cat.Views(*o.Deferred)
	}
	if a.deferred != nil {
		if o.NativeSearch {
			ns, ok := model.(llm.NativeSearcher)
			a.native = ok && ns.NativeToolSearch()
			if !a.native {
				log.Warn("the model has no native tool search: using Switchboard's search tools instead")
			}
		}
	}
	return a
}

// Turn is what one Run did.
type Turn struct {
	Session string
	// Answer is the text of the last assistant message.
	Answer string
	// Steps are the model's replies with their calls' results, in order.
	Steps []Step
	// Usage is the sum of the steps' token counts.
	Usage llm.Usage
	// Stop is why the model stopped in the last step.
	Stop llm.StopReason
	// ClientCalls are the last step's calls to TurnOptions.ClientTools, which ended
	// the turn unanswered: the caller runs them (the step's Results answer only the
	// agent's own calls).
	ClientCalls []llm.Call
}

// Step is one request to the model and what came of it.
type Step struct {
	// Assistant is the model's reply.
	Assistant llm.Message
	// Results answer Assistant.Calls, in call order.
	Results []llm.Message
	Usage   llm.Usage
}

// Model is the model the agent's turns ask (what New was given).
func (a *Agent) Model() llm.Model { return a.model }

// Run takes the session's turn, adds userText to its history, and loops: send the
// history and the tools listed now to the model, store its reply, run its calls
// (concurrently, each answered with a result, failures included), store each result
// as it completes, and go on until the model answers without calls. After MaxSteps
// requests with tools, one more request without tools asks for the answer.
//
// Everything is stored as soon as it is complete, so a process that dies mid-turn
// loses nothing already said; the next Run answers the calls left without a result
// (InterruptedText) before it adds the user's message. A turn cancelled through ctx
// answers its calls cut short with InterruptedText itself before it returns.
//
// The error is the store's (session.ErrBusy when another turn holds the session,
// session.ErrNotFound), the model's (*llm.Error), or ctx's when it is done, wrapped
// with the session id; tool failures are never errors. On error the Turn holds the
// steps completed so far (nil when the turn never started).
func (a *Agent) Run(ctx context.Context, sessionID, userText string) (*Turn, error) {
	return a.start(ctx, sessionID, &userText, nil)
}

// start runs a turn in the agent's store: Run's, or RunTurn's with its user message
// (nil: none) and the caller's tools.
func (a *Agent) start(ctx context.Context, sessionID string, userText *string, client []tool.Tool) (turn *Turn, err error) {
	return a.traced(ctx, sessionID, func(ctx context.Context) (*Turn, error) {
		// The store's errors name the session already.
		release, err := a.sessions.Acquire(ctx, sessionID)
		if err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
		defer release()
		sess, err := a.sessions.Get(ctx, sessionID)
		if err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
		return a.runIn(ctx, sess, false, userText, client)
	})
}

// startIn runs RunTurn's turn over sess, held in memory (TurnOptions.Session).
func (a *Agent) startIn(ctx context.Context, sessionID string, sess *session.Session, userText *string, client []tool.Tool) (*Turn, error) {
	if sess.ID == "" {
		sess.ID = sessionID
	}
	return a.traced(ctx, sessionID, func(ctx context.Context) (*Turn, error) {
		return a.runIn(ctx, sess, true, userText, client)
	})
}

// traced runs a turn in the span invoke_agent.
func (a *Agent) traced(ctx context.Context, sessionID string, turn func(context.Context) (*Turn, error)) (t *Turn, err error) {
	ctx, span := telemetry.Tracer().Start(ctx, "invoke_agent "+AgentName, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", AgentName),
		attribute.String("gen_ai.conversation.id", sessionID)))
	defer func() {
		if t != nil && span.IsRecording() {
			span.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", int64(t.Usage.InputTokens)),
				attribute.Int64("gen_ai.usage.output_tokens", int64(t.Usage.OutputTokens)))
		}
		telemetry.End(span, err)
	}()
	return turn(ctx)
}

// runIn runs the loop over sess, stored (in the agent's store) or held in memory.
func (a *Agent) runIn(ctx context.Context, sess *session.Session, inMemory bool, userText *string, client []tool.Tool) (*Turn, error) {
	r := &run{Agent: a, ctx: ctx, sess: sess, inMemory: inMemory, history: sess.Messages, turn: &Turn{Session: sess.ID}, tools: a.opts.Tools}
	r.log = a.log.With("session", sess.ID)
	r.setClient(client)
	if a.deferred != nil {
		view := a.deferred.View(sess.Loaded, r.saveLoaded)
		defer view.Close()
		r.tools, r.view = view, view
	}
	if err := r.loop(userText); err != nil {
		return r.turn, fmt.Errorf("agent: session %s: %w", sess.ID, err)
	}
	return r.turn, nil
}

// run is the state of one turn.
type run struct {
	*Agent
	ctx  context.Context
	log  *slog.Logger
	sess *session.Session
	// inMemory: sess is held by the caller (TurnOptions.Session), in no store.
	inMemory bool
	// tools are the turn's tools: Options.Tools, or the session's deferred view of
	// them (view; nil when not deferred).
	tools tool.Toolset
	view  *deferred.View
	// history is the session's whole history as stored; histMu guards it while the
	// calls of a step store their results.
	histMu  sync.Mutex
	history []llm.Message
	turn    *Turn
	emitMu  sync.Mutex
	// client are the caller's tools (TurnOptions.ClientTools), by name: listed with
	// the turn's tools, never run here.
	client     map[string]tool.Tool
	clientList []tool.Tool
}

func (r *run) loop(userText *string) error {
	if owed := unanswered(r.history); len(owed) > 0 {
		r.log.Warn("answering calls whose results were lost", "calls", len(owed))
		if err := r.store(llm.Usage{}, owed...); err != nil {
			return err
		}
	}
	if userText != nil {
		if err := r.store(llm.Usage{}, llm.Message{Role: llm.RoleUser, Text: *userText}); err != nil {
			return err
		}
	}
	system := r.sess.System
	if system == "" {
		system = r.opts.System
	}
	for step := 1; ; step++ {
		final := step > r.opts.MaxSteps
		req := &llm.Request{
			System:      system,
			Messages:    forRequest(r.history),
			MaxTokens:   r.opts.MaxTokens,
			Temperature: r.opts.Temperature,
		}
		if !final && (r.tools != nil || len(r.clientList) > 0) {
			// Afresh: a tool that joined mid-turn, or one a search just loaded, is
			// usable now.
			r.listTools(req)
		}
		tools := req.Tools
		res, err := r.model.Generate(r.ctx, req, func(e llm.Event) {
			if e.Kind == llm.TextDelta {
				r.emit(Event{Kind: TextDelta, Step: step, Text: e.Text})
			}
		})
		if err != nil {
			if ctxErr := r.ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			return fmt.Errorf("step %d: %w", step, err)
		}
		msg := res.Message
		msg.Role = llm.RoleAssistant
		r.log.Debug("step", "step", step, "tools", len(tools), "calls", len(msg.Calls), "stop", res.Stop,
			"input_tokens", res.Usage.InputTokens, "output_tokens", res.Usage.OutputTokens)
		if err := r.store(res.Usage, msg); err != nil {
			return err
		}
		st := Step{Assistant: msg, Usage: res.Usage}
		r.turn.Usage = r.turn.Usage.Add(res.Usage)
		r.turn.Stop = res.Stop
		r.emit(Event{Kind: StepUsage, Step: step, Usage: res.Usage})

		if len(msg.Calls) > 0 {
			own, client := msg.Calls, []llm.Call(nil)
			if !final {
				own, client = r.splitClient(msg.Calls)
			}
			var err error
			switch {
			case len(own) == 0:
			case final || r.tools == nil:
				st.Results, err = r.refuseAll(own)
			default:
				st.Results, err = r.runCalls(step, own)
			}
			r.turn.Steps = append(r.turn.Steps, st)
			if err != nil {
				return err
			}
			r.turn.ClientCalls = client
			if !final && len(client) == 0 {
				continue
			}
		} else {
			r.turn.Steps = append(r.turn.Steps, st)
		}
		r.turn.Answer = msg.Text
		r.emit(Event{Kind: TurnUsage, Step: step, Usage: r.turn.Usage})
		r.emit(Event{Kind: Answer, Step: step, Text: msg.Text})
		return nil
	}
}

// refuseAll answers calls made when no tool may run (the last step, sent without
// tools, or an agent without tools): the history must answer every call.
func (r *run) refuseAll(calls []llm.Call) ([]llm.Message, error) {
	why := "no tool can be called now: the turn has reached its step limit; answer with what you have"
	if r.tools == nil {
		why = "no tools are available; answer without them"
	}
	msgs := make([]llm.Message, len(calls))
	for i, c := range calls {
		msgs[i] = toolMessage(c, tool.ErrorResult("%s", why))
	}
	return msgs, r.store(llm.Usage{}, msgs...)
}

// listTools puts the tools of this step in req: the turn's tools, or, in native
// deferred mode, the pinned tools up front and the rest for the provider's search.
func (r *run) listTools(req *llm.Request) {
	defer r.addClientTools(req)
	if r.tools == nil {
		return
	}
	if !r.native || !r.view.Active() {
		req.Tools = r.tools.Tools()
		return
	}
	pinned := r.deferred.Policy().Pinned
	for _, t := range r.deferred.Inner().Tools() {
		if pinned != nil && pinned(t) {
			req.Tools = append(req.Tools, t)
		} else {
			req.Deferred = append(req.Deferred, t)
		}
	}
}

// saveLoaded keeps the session's loaded tools with it. A failure to save costs the
// next turn a search, not this one its tools: it is logged, not returned.
func (r *run) saveLoaded(loaded []string) {
	if r.inMemory {
		r.histMu.Lock()
		r.sess.Loaded = loaded
		r.histMu.Unlock()
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), storeTimeout)
	defer cancel()
	if err := r.sessions.SetLoaded(ctx, r.sess.ID, loaded); err != nil {
		r.log.Warn("could not save the session's loaded tools", "error", err)
	}
}

// store appends msgs to the session's history, here and in the store. After ctx is
// done it still writes (bounded by storeTimeout): what completed is kept.
func (r *run) store(usage llm.Usage, msgs ...llm.Message) error {
	if r.inMemory {
		r.histMu.Lock()
		defer r.histMu.Unlock()
		r.history = append(r.history, msgs...)
		r.sess.Messages, r.sess.Usage, r.sess.LastActive = r.history, r.sess.Usage.Add(usage), time.Now()
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), storeTimeout)
	defer cancel()
	if err := r.sessions.Append(ctx, r.sess.ID, usage, msgs...); err != nil {
		return err
	}
	r.histMu.Lock()
	r.history = append(r.history, msgs...)
	r.histMu.Unlock()
	return nil
}

// emit hands e to the observer, one event at a time.
func (r *run) emit(e Event) {
	if r.opts.OnEvent == nil {
		return
	}
	e.Session = r.sess.ID
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.opts.OnEvent(e)
}
