package gateway

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay"
)

// Multi-round-trip calls (SEP-2322) for clients of the 2026-07-28 protocol.
//
// Upstream connections speak 2025-11-25, in which a server asks its client for
// sampling, elicitation or roots by sending it a request in the middle of a call.
// A client of 2026-07-28 cannot receive such a request: a server may only answer
// the call with "input required" — the questions, and an opaque request state —
// and the client calls again with the answers and that state. So for such a
// client the gateway runs the upstream call on its own (an exchange), and each
// request the server sends meanwhile ends a round: the client's call gets the
// questions, and the client's next call with the state delivers the answers to
// the waiting server and continues waiting for the same upstream call.

// defaultInputWait is Options.InputWait's default. Answers can take a person's
// time: elicitation is a form.
const defaultInputWait = 10 * time.Minute

// roundSettle is how long a round waits, after a server's first request, for the
// others that came with it (see exchange.wait).
const roundSettle = 20 * time.Millisecond

// speaks2026 reports whether ss speaks the 2026-07-28 protocol or later.
func speaks2026(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= protocol2026
}

// needsRounds reports whether a request of ss may run as an exchange: its client
// speaks 2026-07-28 and can answer some request a server may send (the servers are
// told no more than that).
func needsRounds(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.ProtocolVersion < protocol2026 {
		return false
	}
	return slices.ContainsFunc([]string{relay.MethodCreateMessage, relay.MethodElicit, relay.MethodListRoots},
		func(method string) bool { return relay.CanAnswer(p.Capabilities, method) })
}

// exchange is one upstream call made for a client of the 2026-07-28 protocol,
// across the client's rounds.
type exchange struct {
	f     *forwarder
	what  string // the request: method and name (see roundTrip)
	state string // the request state the client echoes

	asks   chan *ask     // the server's requests, waiting for a round to carry them
	done   chan outcome  // the call's outcome (buffered)
	ended  chan struct{} // closed when the exchange is over
	cancel context.CancelFunc

	round atomic.Pointer[clientRound] // the client's call now waiting on the exchange

	mu      sync.Mutex
	pending map[string]*ask // asked of the client, by input request ID
	nextID  int
	idle    *time.Timer // ends the exchange when the client does not come back
	over    bool
	// parked: a round has gone back to the client with the server's requests, and
	// the client has not come back with its answers (see caller.parked).
	parked bool
}

// ask is one request of a server, waiting for the client's answer.
type ask struct {
	params mcp.InputRequest
	reply  chan outcome // buffered
}

// outcome is a result or an error: of the call, or of a client's answer.
type outcome struct {
	res mcp.Result
	err error
}

var (
	errUnknownState = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState is unknown or expired; call the tool again without it"}
	errExchangeOver = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the client's call is over"}
)

// exchangeKey marks the context of a call run by an exchange.
type exchangeKey struct{}

// clientRound is the client's call of one round: its context (the values that name
// its stream) and its session (over Streamable HTTP without sessions, each round
// has one of its own).
type clientRound struct {
	ctx context.Context
	ss  *mcp.ServerSession
}

// session is the session of the client's current round.
func (ex *exchange) session() *mcp.ServerSession { return ex.round.Load().ss }

// roundValues gives a call run by an exchange the cancellation of the exchange and
// the values of the client's call now waiting on it, so that the progress and log
// messages of each round go on that round's stream.
type roundValues struct {
	context.Context
	ex *exchange
}

func (c roundValues) Value(key any) any {
	if key == (exchangeKey{}) {
		return c.ex
	}
	return c.ex.round.Load().ctx.Value(key)
}

// roundTrip runs a client's tools/call, prompts/get or resources/read. A client of
// 2026-07-28 takes input requests itself: its request goes upstream marked as a
// round of its own (relay.InputRound), so that a server of 2026-07-28 that answers
// "input required" has its input requests passed on as they are (under its keys,
// with its request state, wrapped: see wrapState), and the client's next call with
// that state brings the answers back to it. When that client can also be asked
// something (needsRounds), the call runs as an exchange besides, for a server of
// an older protocol that sends its requests in the middle of the call: a first call
// (no state) starts call on its own; a call with one of the exchange's states
// delivers the client's answers to the exchange it names. Either way it returns the
// call's result when it is done, or the server's next requests as input requests,
// in the result needInput makes. Other requests just run call.
//
// what names the request (method and tool, prompt or URI): a state is good only
// for the request that got it.
func roundTrip[R mcp.Result](ctx context.Context, f *forwarder, ss *mcp.ServerSession, what, state string, answers mcp.InputResponseMap,
	call func(context.Context) (R, error), needInput func(mcp.InputRequestMap, string) R) (R, error) {
	if f.g.up == nil || state == "" && !speaks2026(ss) {
		return call(ctx)
	}
	var zero R
	var ex *exchange
	if state != "" {
		f.mu.Lock()
		ex = f.exchanges[state]
		f.mu.Unlock()
		switch {
		case ex == nil:
			server, ok := unwrapState(what, state)
			if !ok {
				return zero, errUnknownState
			}
			ctx = relay.WithInputRound(ctx, relay.InputRound{Responses: answers, State: server})
		case ex.what != what:
			return zero, errUnknownState
		}
	} else {
		// Answers without a state: for a server that gave none (a state is optional).
		ctx = relay.WithInputRound(ctx, relay.InputRound{Responses: answers})
	}
	switch {
	case ex != nil:
		// The state is the credential: 128 random bits, known only to the client
		// that got it (over Streamable HTTP without sessions each round comes on
		// a session of its own).
		if err := ex.answer(ctx, ss, answers); err != nil {
			return zero, err
		}
	case !needsRounds(ss):
		res, err := call(ctx)
		if err != nil {
			return zero, err
		}
		return wrapped(res, what), nil
	default:
		var err error
		ex, err = f.startExchange(ctx, ss, what, func(ctx context.Context) (mcp.Result, error) { return call(ctx) })
		if err != nil {
			return zero, err
		}
	}
	res, requests, state, err := ex.wait(ctx)
	switch {
	case err != nil:
		return zero, err
	case requests != nil:
		return needInput(requests, state), nil
	}
	return wrapped(res.(R), what), nil // what ties an exchange to one kind of request
}

// statePrefix starts a server's request state as the gateway passes it on.
const statePrefix = "switchboard:"

// wrapped is res with its request state, when it asks for input, wrapped: tied to
// what (the request it is good for) and set apart from the states of the gateway's
// own exchanges. The server's state itself passes unchanged: it is the server's to
// protect (SEP-2322: "servers MUST treat requestState as untrusted input").
func wrapped[R mcp.Result](res R, what string) R {
	switch r := any(res).(type) {
	case *mcp.CallToolResult:
		if r != nil && r.InputRequests != nil {
			r.RequestState = wrapState(what, r.RequestState)
		}
	case *mcp.GetPromptResult:
		if r != nil && r.InputRequests != nil {
			r.RequestState = wrapState(what, r.RequestState)
		}
	case *mcp.ReadResourceResult:
		if r != nil && r.InputRequests != nil {
			r.RequestState = wrapState(what, r.RequestState)
		}
	}
	return res
}

func wrapState(what, state string) string {
	sum := sha256.Sum256([]byte(what))
	return statePrefix + hex.EncodeToString(sum[:8]) + ":" + state
}

// unwrapState is the server's state in a state wrapState made for what.
func unwrapState(what, state string) (string, bool) {
	rest, ok := strings.CutPrefix(state, statePrefix)
	if !ok {
		return "", false
	}
	tag, server, ok := strings.Cut(rest, ":")
	sum := sha256.Sum256([]byte(what))
	if !ok || tag != hex.EncodeToString(sum[:8]) {
		return "", false
	}
	return server, true
}

// startExchange starts call for ss on a goroutine the gateway owns. The exchange
// gets its state (and a place among those a retry can name) with its first round
// of input requests: most calls have none.
func (f *forwarder) startExchange(ctx context.Context, ss *mcp.ServerSession, what string, call func(context.Context) (mcp.Result, error)) (*exchange, error) {
	callCtx, cancel := context.WithCancel(f.g.ctx)
	ex := &exchange{
		f: f, what: what,
		asks: make(chan *ask), done: make(chan outcome, 1), ended: make(chan struct{}),
		cancel: cancel, pending: map[string]*ask{},
	}
	ex.round.Store(&clientRound{ctx, ss})
	if !f.g.spawn(func() {
		res, err := call(roundValues{callCtx, ex})
		ex.done <- outcome{res, err}
	}) {
		ex.end()
		return nil, errClosed
	}
	return ex, nil
}

// answer hands the client's answers to the server's requests of the last round; a
// request left unanswered gets an error.
func (ex *exchange) answer(ctx context.Context, ss *mcp.ServerSession, responses mcp.InputResponseMap) error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.over {
		return errUnknownState
	}
	if ex.idle != nil {
		ex.idle.Stop()
	}
	ex.round.Store(&clientRound{ctx, ss})
	ex.parked = false
	for id, a := range ex.pending {
		r, ok := responses[id].(mcp.Result)
		switch {
		case ok && r != nil:
			a.reply <- outcome{res: r}
		default:
			a.reply <- outcome{err: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the client gave no answer to input request %q", id)}}
		}
		delete(ex.pending, id)
	}
	return nil
}

// wait waits for the call's outcome, or for the server's next requests, which end
// this round as input requests with the state the client is to echo.
func (ex *exchange) wait(ctx context.Context) (_ mcp.Result, _ mcp.InputRequestMap, state string, _ error) {
	select {
	case o := <-ex.done:
		ex.end()
		return o.res, nil, "", o.err
	case a := <-ex.asks:
		// The server's other requests of this round: those of an input-required
		// result reach a server's client all at once (the SDK sends each on a
		// goroutine of its own), but not in one read.
		batch := []*ask{a}
		settle := time.NewTimer(roundSettle)
	collect:
		for {
			select {
			case a := <-ex.asks:
				batch = append(batch, a)
			case <-settle.C:
				break collect
			}
		}
		ex.mu.Lock()
		defer ex.mu.Unlock()
		if ex.over { // ended (idle, or the gateway closing) since a was sent
			for _, a := range batch {
				a.reply <- outcome{err: errExchangeOver}
			}
			return nil, nil, "", errUnknownState
		}
		// A state of its own each round (128 random bits): an earlier round's,
		// replayed, is refused, and the client sees the exchange move on (SEP-2322's
		// multi-round flow "returns another InputRequiredResult with updated
		// requestState").
		last := ex.state
		ex.state = rand.Text()
		ex.f.mu.Lock()
		delete(ex.f.exchanges, last)
		ex.f.exchanges[ex.state] = ex
		ex.f.mu.Unlock()
		requests := mcp.InputRequestMap{}
		for _, a := range batch {
			ex.nextID++
			id := strconv.Itoa(ex.nextID)
			ex.pending[id] = a
			requests[id] = a.params
		}
		ex.parked = true
		ex.idle = time.AfterFunc(ex.f.g.inputWait, ex.end)
		return nil, requests, ex.state, nil
	case <-ctx.Done(): // the client cancelled its call
		ex.end()
		return nil, nil, "", ctx.Err()
	}
}

// isParked reports whether the exchange waits for its client to come back with
// answers.
func (ex *exchange) isParked() bool {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.parked && !ex.over
}

// end cancels the call (if it still runs), fails the requests waiting for answers
// and forgets the exchange.
func (ex *exchange) end() {
	ex.mu.Lock()
	if ex.over {
		ex.mu.Unlock()
		return
	}
	ex.over = true
	if ex.idle != nil {
		ex.idle.Stop()
	}
	for id, a := range ex.pending {
		a.reply <- outcome{err: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the client did not answer"}}
		delete(ex.pending, id)
	}
	state := ex.state
	ex.mu.Unlock()
	close(ex.ended)
	ex.cancel()
	if state != "" {
		ex.f.mu.Lock()
		delete(ex.f.exchanges, state)
		ex.f.mu.Unlock()
	}
}

// request asks the exchange's client, in its next round, what a server asked.
func (ex *exchange) request(ctx context.Context, params mcp.Params) (mcp.Result, error) {
	ir, ok := params.(mcp.InputRequest)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("%T cannot be asked of a 2026-07-28 client", params)}
	}
	a := &ask{params: ir, reply: make(chan outcome, 1)}
	select {
	case ex.asks <- a:
	case <-ex.ended:
		return nil, errExchangeOver
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-a.reply:
		return r.res, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// endExchanges ends every exchange waiting for its client's answers (the gateway
// is closing; the calls of the others end with the gateway's context).
func (f *forwarder) endExchanges() {
	f.mu.Lock()
	exs := make([]*exchange, 0, len(f.exchanges))
	for _, ex := range f.exchanges {
		exs = append(exs, ex)
	}
	f.mu.Unlock()
	for _, ex := range exs {
		ex.end()
	}
}
