package gateway

import (
	"context"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client's requests under way end when no answer can reach the client any more,
// and the upstream calls they make are cancelled with them; so do the requests the
// gateway sends the client for a server (sampling, elicitation, roots), which no
// answer can come back to any more. The SDK does not do
// this by itself: it hands a request's handler a context that ends only with a
// notifications/cancelled, and closing a session waits for the handlers under way.
// So a gateway closing (SIGTERM) or a client deleting its session waited for every
// call under way to finish, up to its tool timeout, and a call whose client had gone
// ran on at its server until then.
//
// A request ends with:
//   - its carrier, the context that delivers its answer, when the request's context
//     has one (see carried): over Streamable HTTP without sessions, the POST (a
//     notifications/cancelled would come in a POST of its own that knows no other,
//     and protocol 2026-07-28 makes closing the stream the way to cancel); over
//     legacy SSE, the session's GET stream; over stdio, ServeStdio's context;
//   - its session, when the client deletes it (Streamable HTTP with sessions; see
//     endOnDelete) or the gateway closes it as idle (idleSessions.expire). The end
//     of a POST is not the end of a request there: protocol 2025-11-25 tells
//     clients to cancel explicitly, not by disconnecting;
//   - the gateway, at Close.

// carrierKey is the context value that holds a request's carrier.
type carrierKey struct{}

// withCarrier returns ctx carrying carrier. The SDK hands the values of the
// context a session was connected with (or, without sessions, of the POST) to the
// handlers of its requests, but not its end.
func withCarrier(ctx, carrier context.Context) context.Context {
	return context.WithValue(ctx, carrierKey{}, carrier)
}

// carried makes each HTTP request the carrier of the client requests that come
// with it: next must be a handler that connects a session per HTTP request (legacy
// SSE: the GET; Streamable HTTP without sessions: the POST). Not for Streamable
// HTTP with sessions, whose session gets the values of its first POST.
func carried(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(withCarrier(r.Context(), r.Context())))
	})
}

var (
	errCarrierGone    = errors.New("the client's connection ended")
	errSessionEnded   = errors.New("the client ended its session")
	errSessionExpired = errors.New("the client's session was idle too long")
)

// underWay is a request between the gateway and a client, under way.
type underWay struct {
	ss     *mcp.ServerSession
	cancel context.CancelCauseFunc
}

// track returns ctx for one request between the gateway and ss's client, ended as
// described above: a request of the client, or one the gateway sends it for a
// server (Request), which closing the session would wait for in the same way. done
// releases it when the request is answered.
func (f *forwarder) track(ctx context.Context, ss *mcp.ServerSession) (_ context.Context, done func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	r := &underWay{ss: ss, cancel: cancel}
	carrier, carried := ctx.Value(carrierKey{}).(context.Context)
	f.mu.Lock()
	f.underWay[r] = struct{}{}
	switch {
	case carried && f.carriers[ss] == nil:
		// Remembered for the session's requests that carry none: those the gateway
		// sends the client outside any call of its.
		f.carriers[ss] = carrier
		context.AfterFunc(carrier, func() {
			f.mu.Lock()
			delete(f.carriers, ss)
			f.mu.Unlock()
		})
	case !carried:
		carrier = f.carriers[ss]
	}
	f.mu.Unlock()
	if f.g.ctx.Err() != nil { // Close cancels what it finds after it cancelled g.ctx
		cancel(errClosed)
	}
	unhook := func() bool { return false }
	if carrier != nil {
		unhook = context.AfterFunc(carrier, func() { cancel(errCarrierGone) })
	}
	return ctx, func() {
		unhook()
		f.mu.Lock()
		delete(f.underWay, r)
		f.mu.Unlock()
		cancel(nil)
	}
}

// endRequests ends the requests under way of the sessions for which which is true
// with cause.
func (f *forwarder) endRequests(which func(*mcp.ServerSession) bool, cause error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for r := range f.underWay {
		if which(r.ss) {
			r.cancel(cause)
		}
	}
}

// endOnDelete wraps next, a Streamable HTTP handler with sessions: a DELETE of a
// session ends its requests under way before next closes it (which waits for them).
func (g *Gateway) endOnDelete(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(sessionIDHeader); r.Method == http.MethodDelete && id != "" {
			g.fwd.endRequests(func(ss *mcp.ServerSession) bool { return ss.ID() == id }, errSessionEnded)
		}
		next.ServeHTTP(w, r)
	})
}
