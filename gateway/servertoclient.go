package gateway

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay"
)

// Server to client: the forwarder is the gateway's relay.Peer. A server's request
// goes to the one client that caused it (or, with none under way, the client heard
// from last that can answer it); a notification to the client whose token or call
// it belongs to, or to every client.

// Request implements relay.Peer: a server's request goes to a client that can
// answer it, and the answer back to the server.
func (f *forwarder) Request(ctx context.Context, server, method string, params mcp.Params) (mcp.Result, error) {
	c, why, mine := f.target(ctx, method)
	switch {
	case c.ss == nil:
		err := error(&jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("%s from server %q: %s", method, server, why)})
		if !mine {
			err = relay.NotMine(err) // perhaps another gateway's client's
		}
		return nil, err
	case c.ex != nil:
		return c.ex.request(ctx, params) // see mrtr_clients.go
	case speaks2026(c.ss):
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("%s from server %q: a client of protocol 2026-07-28 can be asked only during a request of its own", method, server)}
	}
	ss := c.ss
	send := func(ctx context.Context) (mcp.Result, error) {
		ctx, done := f.track(ctx, ss) // closing ss would wait for the answer
		defer done()
		switch p := params.(type) {
		case *mcp.CreateMessageWithToolsParams:
			return ss.CreateMessageWithTools(ctx, p)
		case *mcp.ElicitParams:
			return ss.Elicit(ctx, p)
		case *mcp.ListRootsParams:
			return ss.ListRoots(ctx, p)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: method + " is not forwarded"}
	}
	res, err := send(c.context(ctx))
	if err != nil && c.ctx != nil && rejected(err) {
		// The client's request whose stream it was to go on was answered meanwhile
		// (the SDK refuses to write to a closed stream, so it never went out): it
		// goes on the session's own stream, as for a request that no call caused.
		return send(detach(ctx))
	}
	return res, err
}

// codeRejected is the SDK's "rejected by transport" (jsonrpc2.ErrRejected, not
// exported): a message it did not send, as to a request stream already closed.
const codeRejected = -32005

func rejected(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == codeRejected
}

// target picks the client for a server's request. While requests to that server
// are running it is the client that sent them — only when they all come from one
// client of this gateway: nothing on the wire says which request caused it, and no
// client may see a request that another's caused (nor one that a call made around
// the gateway caused: a program's own call on the hub, another gateway's client).
// With none running, it is the client heard from most recently that can answer.
// why says why there is none, and mine whether the request was for this gateway's
// clients at all (when not, another gateway on the same hub may take it).
func (f *forwarder) target(ctx context.Context, method string) (c caller, why string, mine bool) {
	live := f.sessions()
	callers, foreign := f.callers(ctx, live)
	if active := slices.DeleteFunc(slices.Clone(callers), caller.parked); len(active) < len(callers) && (len(active) > 0 || foreign) {
		// A call whose server waits for its client's answers (a round gone back to
		// a 2026-07-28 client) causes no request until they come: another call
		// under way caused this one. A client that never comes back would
		// otherwise hold every other client of the server off its requests until
		// InputWait ends its exchange.
		callers = active
	}
	switch {
	case len(callers) == 0 && foreign:
		return caller{}, "it came during a call not made through a gateway", false
	case len(callers) == 0:
	case len(callers) == 1 && !foreign:
		if supports(callers[0].session(), method) {
			return callers[0], "", true
		}
		return caller{}, "the client whose request caused it does not support it", true
	default:
		return caller{}, fmt.Sprintf("%d callers have requests to this server under way; which one caused it is unknown", len(callers)+btoi(foreign)), true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.recent) - 1; i >= 0; i-- {
		if ss := f.recent[i]; live[ss] && supports(ss, method) {
			return caller{ss: ss}, "", true
		}
	}
	return caller{}, "no client connected to a gateway supports it", false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// caller is a client with requests under way to a server: the session its request
// came on and, when its newest such call runs as a multi-round-trip exchange (a
// client of 2026-07-28, see mrtr_clients.go), that exchange. Over Streamable HTTP without
// sessions each round of an exchange has a session of its own: ss is the first.
type caller struct {
	ss  *mcp.ServerSession
	ex  *exchange
	ctx context.Context // of its newest request under way (nil: none)
}

// parked reports whether the caller's newest call waits for the caller's answers
// to the server's requests (see exchange.wait): it is not what caused a new one.
func (c caller) parked() bool { return c.ex != nil && c.ex.isParked() }

// session is where messages to the caller go: the session of the exchange's
// current round, or ss.
func (c caller) session() *mcp.ServerSession {
	if c.ex != nil {
		return c.ex.session()
	}
	return c.ss
}

// callers are the clients with requests under way to the server that sent a
// message (see relay.CallsUnderWay), each once; foreign reports calls under way that
// are not theirs (a program's own call on the hub, another gateway's, one of a
// client that has left).
func (f *forwarder) callers(ctx context.Context, live map[*mcp.ServerSession]bool) (out []caller, foreign bool) {
	for _, c := range relay.CallsUnderWay(ctx) { // oldest first
		ss, _ := c.Value(sessionKey{}).(*mcp.ServerSession)
		ex, _ := c.Value(exchangeKey{}).(*exchange)
		if ss == nil || (ex == nil && !live[ss]) {
			foreign = true
			continue
		}
		if i := slices.IndexFunc(out, func(o caller) bool { return o.ss == ss }); i >= 0 {
			out[i].ex, out[i].ctx = ex, c // the newest call decides
			continue
		}
		out = append(out, caller{ss, ex, c})
	}
	return out, foreign
}

// supports reports whether the client said it can answer method.
func supports(ss *mcp.ServerSession, method string) bool {
	p := ss.InitializeParams()
	return p != nil && relay.CanAnswer(p.Capabilities, method)
}

// Notify implements relay.Peer.
func (f *forwarder) Notify(ctx context.Context, server, method string, params mcp.Params) {
	var err error
	switch p := params.(type) {
	case *mcp.ProgressNotificationParams:
		token, _ := p.ProgressToken.(string)
		f.mu.Lock()
		dest, ok := f.progress[token]
		f.mu.Unlock()
		if !ok {
			return // the request is over, or the token is not ours
		}
		c := *p
		c.ProgressToken = dest.token
		err = retryDetached(ctx, dest.context(ctx), func(ctx context.Context) error { return dest.session().NotifyProgress(ctx, &c) })
	case *mcp.LoggingMessageParams:
		c := *p
		if c.Logger == "" {
			c.Logger = server
		}
		live := f.sessions()
		switch callers, foreign := f.callers(ctx, live); {
		case len(callers) == 0 && !foreign: // not caused by a request: every client, at its level
			for ss := range live {
				if e := ss.Log(detach(ctx), &c); e != nil {
					err = e
				}
			}
		case len(callers) == 1 && !foreign:
			err = retryDetached(ctx, callers[0].context(ctx), func(ctx context.Context) error { return callers[0].session().Log(ctx, &c) })
		default:
			f.g.log.Debug("log message of a server with calls of several callers (or of none of this gateway's clients) under way not passed on", "server", server)
		}
	case *mcp.ResourceUpdatedNotificationParams:
		err = f.g.server.ResourceUpdated(detach(ctx), p)
	case *mcp.ElicitationCompleteParams:
		live := f.sessions()
		if callers, foreign := f.callers(ctx, live); len(callers) == 1 && !foreign {
			err = callers[0].session().NotifyElicitationComplete(callers[0].context(ctx), p)
			break
		}
		for ss := range live { // the elicitation ID tells the client whether it is its own
			if e := ss.NotifyElicitationComplete(detach(ctx), p); e != nil {
				err = e
			}
		}
	}
	if err != nil {
		f.g.log.Debug("notification not passed on", "server", server, "method", method, "err", err)
	}
}

// context is ctx for a message to caller c: with the values of c's request (the
// SDK sends a message on the stream of the request its context names; for an
// exchange, its current round's), or none.
func (c caller) context(ctx context.Context) context.Context {
	if c.ctx == nil {
		return detach(ctx)
	}
	return valuesOf{ctx, c.ctx}
}

type valuesOf struct {
	context.Context
	values context.Context
}

func (c valuesOf) Value(key any) any { return c.values.Value(key) }

// retryDetached sends with related (the context of the client's request, so that
// the message goes on that request's stream) and, if the SDK refuses because the
// request has just been answered, again without it (on the session's own stream).
func retryDetached(ctx, related context.Context, send func(context.Context) error) error {
	if err := send(related); err == nil || related.Value(sessionKey{}) == nil {
		return err
	}
	return send(detach(ctx))
}

// detach is ctx's cancellation without its values: values of one client's request
// (the SDK ties a message to the request stream it names) must not steer a
// message to another client.
func detach(ctx context.Context) context.Context { return valuesOf{ctx, context.Background()} }
