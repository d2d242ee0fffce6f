package agent

import (
	"context"

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// TurnOptions change one turn of RunTurn from the agent's Options. nil, and every
// zero field, keeps the agent's.
type TurnOptions struct {
	// User is the user's message that starts the turn. Empty adds none: the turn
	// continues the session's history as stored, which should end with the user's
	// message or the results of client calls (a caller that keeps the conversation
	// itself puts it in the session whole).
	User string
	// Store keeps the turn's session instead of the agent's store (New's).
	Store session.Store
	// Session, when set, is the turn's session held in memory, in no store: the turn
	// reads its system message, history and loaded tools there and adds to them in
	// place (Messages, Usage, Loaded, LastActive), so that the caller reads the whole
	// conversation back afterwards. For a request that brings its whole conversation
	// (a chat completion): nothing is written to a store only to be read back. The
	// caller must not touch it while the turn runs; no other turn may use it.
	Session *session.Session
	// OnEvent, Approve and Elicit take the place of the agent's for this turn.
	OnEvent func(Event)
	Approve Approver
	Elicit  Eliciter
	// MaxTokens and Temperature, when set, take the place of the agent's for this
	// turn's requests.
	MaxTokens   int
	Temperature *float64
	// Output, when set, asks every request of the turn for an answer in JSON
	// (llm.Request.Output): the caller's structured output. A model that cannot give
	// it fails the turn's first request with an *llm.UnsupportedError.
	Output *llm.Output
	// ClientTools are tools the caller runs itself (an OpenAI client's own functions):
	// the model sees them with the agent's tools (one of the same name is hidden), and
	// a step that calls one ends the turn once the agent's own calls of the step have
	// run, with the calls to them in Turn.ClientCalls. Their results go in the
	// history before the next turn; a next turn without them answers them as
	// interrupted.
	ClientTools []tool.Tool
	// Allow, when set, is the test of the agent's tools this turn may list, find
	// and call (the caller's profiles: access.Access.Keep): any other is unknown to
	// the turn, in deferred mode too. nil: every tool.
	Allow func(tool.Tool) bool
}

// RunTurn is Run with TurnOptions: a turn on another store, with other hooks, tools
// of the caller's, or no new user message (nil opts: a turn that continues the
// session's history as stored, with the agent's options).
func (a *Agent) RunTurn(ctx context.Context, sessionID string, opts *TurnOptions) (*Turn, error) {
	var o TurnOptions
	if opts != nil {
		o = *opts
	}
	b := *a // the same model, tools and deferred catalog; only the options below differ
	if o.Store != nil {
		b.sessions = o.Store
	}
	if o.OnEvent != nil {
		b.opts.OnEvent = o.OnEvent
	}
	if o.Approve != nil {
		b.opts.Approve = o.Approve
	}
	if o.Elicit != nil {
		b.opts.Elicit = o.Elicit
	}
	if o.MaxTokens > 0 {
		b.opts.MaxTokens = o.MaxTokens
	}
	if o.Temperature != nil {
		b.opts.Temperature = o.Temperature
	}
	b.output = o.Output
	var user *string
	if o.User != "" {
		user = &o.User
	}
	b.allow = o.Allow
	if o.Session != nil {
		return b.startIn(ctx, sessionID, o.Session, user, o.ClientTools)
	}
	return b.start(ctx, sessionID, user, o.ClientTools)
}

func (r *run) setClient(tools []tool.Tool) {
	if len(tools) == 0 {
		return
	}
	r.client = make(map[string]tool.Tool, len(tools))
	for _, t := range tools {
		if _, dup := r.client[t.Name]; !dup {
			r.clientList = append(r.clientList, t)
		}
		r.client[t.Name] = t
	}
}

// addClientTools lists the caller's tools in req, in place of the turn's tools of the
// same names: the caller named them, so the model must get the caller's.
func (r *run) addClientTools(req *llm.Request) {
	if len(r.client) == 0 {
		return
	}
	req.Tools = r.withoutClient(req.Tools)
	req.Deferred = r.withoutClient(req.Deferred)
	req.Tools = append(req.Tools, r.clientList...)
}

func (r *run) withoutClient(ts []tool.Tool) []tool.Tool {
	var kept []tool.Tool
	for _, t := range ts {
		if _, mine := r.client[t.Name]; !mine {
			kept = append(kept, t)
		}
	}
	return kept
}

// splitClient parts a step's calls into the agent's own and those to client tools.
func (r *run) splitClient(calls []llm.Call) (own, client []llm.Call) {
	if len(r.client) == 0 {
		return calls, nil
	}
	for _, c := range calls {
		if _, ok := r.client[c.Name]; ok {
			client = append(client, c)
		} else {
			own = append(own, c)
		}
	}
	return own, client
}
