package agent

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay"
	"github.com/switchboard-mcp/switchboard/tool"
)

// A server asks the person a question (elicitation/create) in the middle of a tool
// call, on the connection of the hub, far from the turn that made the call. The turn
// is found again by the call's context: the agent marks each call's context with
// the turn (callMark), the hub hands a ServerRequests the contexts of the calls
// under way to the server that asked (relay.CallsUnderWay), and when they are all
// one turn's, that turn's TurnOptions.Elicit answers. So every turn asks its own
// person: a chat at a terminal, a session's stream, nobody (a chat completion).

// Eliciter answers a server's question asked during one of a turn's calls
// (TurnOptions.Elicit). It may block (a person answering) and should return when
// ctx is done: ctx ends with the call that caused the question (its deadline is the
// call's, the server's toolTimeout) and with the server's request.
type Eliciter func(ctx context.Context, e Elicitation) ElicitReply

// Elicitation is a server's elicitation/create as an Eliciter gets it.
type Elicitation struct {
	Session string
	// Server is the server that asks.
	Server string
	// CallID and Tool are the turn's call to Server under way when it asked (the
	// newest, when the turn had several).
	CallID, Tool string
	// Params is the request, its Mode always set: "form" (Message and
	// RequestedSchema, the flat schema of the form) or "url" (Message, URL and
	// ElicitationID: the person is to open URL, which the client must not fetch).
	Params *mcp.ElicitParams
}

// ElicitReply is an Eliciter's answer.
type ElicitReply struct {
	// Result goes back to the server: accept (with the form's Content), decline or
	// cancel. nil cancels.
	Result *mcp.ElicitResult
	// Note, when set, is added to the result of the call that caused the question,
	// for the model to read: that nobody could be asked, and what to do instead.
	Note string
}

// callMark is what the agent puts in the context of each of its calls: which turn
// made it, and the notes its questions leave for the model.
type callMark struct {
	run      *run
	id, name string
	mu       sync.Mutex
	notes    []string
}

type callMarkKey struct{}

func (m *callMark) note(s string) {
	if s == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.notes = append(m.notes, s)
}

// withNotes is res with the call's notes added as text blocks (a copy: res may be
// the toolset's).
func (m *callMark) withNotes(res *tool.Result) *tool.Result {
	m.mu.Lock()
	notes := slices.Clone(m.notes)
	m.mu.Unlock()
	if len(notes) == 0 {
		return res
	}
	c := *res
	c.Content = slices.Clone(res.Content)
	for _, n := range notes {
		c.Content = append(c.Content, &mcp.TextContent{Text: "[" + n + "]"})
	}
	return &c
}

// turnCall is a turn with calls under way to the server that sent a message: its
// newest such call's mark and context.
type turnCall struct {
	mark *callMark
	ctx  context.Context
}

// turnCalls are the turns whose calls were under way when a server's message
// arrived (ctx, as a relay.Peer gets it), each once with its newest call; foreign
// reports calls under way that no agent's turn made (a gateway's client's, a
// program's own call on the hub).
func turnCalls(ctx context.Context) (turns []turnCall, foreign bool) {
	for _, c := range relay.CallsUnderWay(ctx) { // oldest first
		m, _ := c.Value(callMarkKey{}).(*callMark)
		if m == nil {
			foreign = true
			continue
		}
		if i := slices.IndexFunc(turns, func(t turnCall) bool { return t.mark.run == m.run }); i >= 0 {
			turns[i] = turnCall{m, c} // the newest call stands for its turn
			continue
		}
		turns = append(turns, turnCall{m, c})
	}
	return turns, foreign
}

// elicit answers elicitation/create. It goes to the one turn whose calls to the
// server were under way (its TurnOptions.Elicit), else to r.Elicit; with several
// callers under way, which one caused it is unknown, and nobody is asked rather than
// the wrong person. A question that came during no agent's call, with no Elicit of
// r's to ask, is left to the hub's other peers (a gateway's client may have caused
// it).
func (r *ServerRequests) elicit(ctx context.Context, server string, p *mcp.ElicitParams) (mcp.Result, error) {
	q := *p
	if q.Mode == "" { // "Clients MUST treat requests without a mode field as form mode"; the SDK infers url from its fields
		q.Mode = "form"
		if q.URL != "" || q.ElicitationID != "" {
			q.Mode = "url"
		}
	}
	turns, foreign := turnCalls(ctx)
	log := r.logger().With("server", server, "mode", q.Mode)
	switch {
	case len(turns) > 1 || (len(turns) == 1 && foreign):
		log.Info("elicitation declined: calls of several callers were under way, and which one caused it is unknown")
		return &mcp.ElicitResult{Action: "decline"}, nil
	case len(turns) == 1 && turns[0].mark.run.opts.Elicit != nil:
		return turns[0].ask(ctx, server, &q, log), nil
	case r.Elicit != nil:
		return r.Elicit(ctx, server, &q)
	case len(turns) == 1:
		log.Info("elicitation declined: nobody to ask", "session", turns[0].mark.run.sess.ID)
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return nil, relay.NotMine(fmt.Errorf("elicitation/create from server %q: nobody to ask here", server))
}

// ask puts the question to the turn's Eliciter, for as long as the call that caused
// it and the server's request both last, and leaves its note on the call.
func (t turnCall) ask(ctx context.Context, server string, q *mcp.ElicitParams, log *slog.Logger) *mcp.ElicitResult {
	m := t.mark
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(t.ctx, cancel)()
	if d, ok := t.ctx.Deadline(); ok {
		var cancelD context.CancelFunc
		ctx, cancelD = context.WithDeadline(ctx, d)
		defer cancelD()
	}
	e := Elicitation{Session: m.run.sess.ID, Server: server, CallID: m.id, Tool: m.name, Params: q}
	reply := func() (reply ElicitReply) {
		defer func() {
			if p := recover(); p != nil {
				log.Error("elicitation hook panicked", "session", e.Session, "call_id", e.CallID, "panic", p, "stack", string(debug.Stack()))
				reply = ElicitReply{}
			}
		}()
		return m.run.opts.Elicit(ctx, e)
	}()
	m.note(reply.Note)
	res := reply.Result
	if res == nil {
		res = &mcp.ElicitResult{Action: "cancel"}
	}
	if res.Action != "accept" || q.Mode == "url" {
		// "For URL mode: The content field is omitted"; decline and cancel carry none.
		c := *res
		c.Content = nil
		res = &c
	}
	log.Info("elicitation answered", "session", e.Session, "call_id", e.CallID, "action", res.Action)
	return res
}
