package relay

import (
	"context"
	"time"
)

// MessageContext is the context a Peer gets for a server's message: the deadline and
// cancellation of life (the server's request, as the connection hands it over), the
// calls to that server under way when the message arrived (calls, oldest first; see
// CallsUnderWay), and the values of the newest of them. life's own values (the
// receiving connection's internals) are not passed on; with no call under way there
// are none.
func MessageContext(life context.Context, calls []context.Context) context.Context {
	return messageContext{life, calls}
}

// CallsUnderWay returns, for a ctx given to a Peer, the contexts of every call to
// the server that was under way when the message arrived, oldest first. When they
// come from more than one caller, which one caused the message is unknown.
func CallsUnderWay(ctx context.Context) []context.Context {
	calls, _ := ctx.Value(callsKey{}).([]context.Context)
	return calls
}

type callsKey struct{}

type messageContext struct {
	life  context.Context
	calls []context.Context
}

func (c messageContext) Deadline() (time.Time, bool) { return c.life.Deadline() }
func (c messageContext) Done() <-chan struct{}       { return c.life.Done() }
func (c messageContext) Err() error                  { return c.life.Err() }
func (c messageContext) Value(key any) any {
	if _, ok := key.(callsKey); ok {
		return c.calls
	}
	if n := len(c.calls); n > 0 {
		return c.calls[n-1].Value(key)
	}
	return nil
}
