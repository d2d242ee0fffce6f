package upstream

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// The SDK's Streamable HTTP client sends each call as a POST whose request context
// is the call's own, and reads the event stream of its response in a goroutine:
// when the result arrives it hands it over, then reads on to the end of the stream
// so that the connection can be used again. The caller's context usually ends at
// once with the result (a gateway's does: the client's request is answered), and
// net/http closes the connection of a request whose context ends while its body is
// still being read. The end of the stream (a chunk written when the server's
// handler returns) comes a moment after the result, so calls kept losing their
// connection and dialling a new one: in TestCallsKeepTheirConnections, 400 calls
// from 8 callers opened 26 to 38 connections instead of 9, and a gateway under load
// left a socket in TIME_WAIT for every few calls.
//
// lingerRoundTrip lets a response body outlive its request's context by up to
// drainGrace: until the response has arrived, the end of the context cancels the
// request at once, as before; after that it cancels the request only if the body
// has not been read to its end or closed within drainGrace. A server that keeps
// the stream of a cancelled call open therefore holds its connection no longer than
// that.

// drainGrace is how long a response body may still be read after its request's
// context has ended. The end of a call's stream follows its result within
// microseconds; the bound is for servers that never end it.
const drainGrace = time.Second

// lingerRoundTrip makes request r with base, as described above. Requests whose
// context cannot end, and requests other than POST (the long-lived GET event
// streams, which end with their connection's context), are made as they are.
func lingerRoundTrip(base http.RoundTripper, r *http.Request) (*http.Response, error) {
	parent := r.Context()
	if r.Method != http.MethodPost || parent.Done() == nil {
		return base.RoundTrip(r)
	}
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	l := &linger{cancel: cancel}
	l.stop = context.AfterFunc(parent, func() { l.parentDone(context.Cause(parent)) })
	// net/http reports a cancelled request with its context's cause, which is the
	// parent's: the caller sees the same error as without the linger.
	resp, err := base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		l.finish()
		return nil, err
	}
	// If the parent ended while the response was arriving, the request is already
	// cancelled and reading the body fails, as it would have without the linger.
	l.mu.Lock()
	l.received = true
	l.mu.Unlock()
	resp.Body = &lingerBody{ReadCloser: resp.Body, l: l}
	return resp, nil
}

// linger is the state of one request made by lingerRoundTrip.
type linger struct {
	cancel context.CancelCauseFunc
	stop   func() bool // stops the parent's AfterFunc

	mu       sync.Mutex
	received bool        // the response has arrived: the parent's end waits drainGrace
	timer    *time.Timer // set when the parent ended after the response arrived
	done     bool        // the body was read to its end or closed
}

// parentDone runs when the request's own context ends with cause.
func (l *linger) parentDone(cause error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.done:
	case !l.received:
		l.cancel(cause)
	default:
		l.timer = time.AfterFunc(drainGrace, func() { l.cancel(cause) })
	}
}

// finish releases the request's context once its body is done with (or the
// request failed).
func (l *linger) finish() {
	l.stop()
	l.mu.Lock()
	l.done = true
	if l.timer != nil {
		l.timer.Stop()
	}
	l.mu.Unlock()
	l.cancel(nil)
}

// lingerBody finishes its request's linger when it is read to its end or closed.
// net/http returns the connection to its pool before a read reports io.EOF, so
// cancelling the request then costs nothing.
type lingerBody struct {
	io.ReadCloser
	l    *linger
	once sync.Once
}

func (b *lingerBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.l.finish)
	}
	return n, err
}

func (b *lingerBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.l.finish)
	return err
}
