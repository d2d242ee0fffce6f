package httpguard

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// The defaults of Timeouts.
const (
	// HeaderTimeout bounds reading a request's headers, from its first byte (or the
	// connection's opening).
	HeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds reading a request's body: 4 MiB, the largest body
	// taken by default, in a minute is 70 KB/s.
	DefaultReadTimeout = time.Minute
	// DefaultWriteTimeout bounds sending a response once it begins.
	DefaultWriteTimeout = time.Minute
	// DefaultIdleTimeout closes a keep-alive connection that sends no request.
	DefaultIdleTimeout = 2 * time.Minute
)

// Timeouts bound how long one connection may hold a server without doing its part:
// a body sent a byte a second, a response its client does not read, a keep-alive
// connection left open. Without them each holds a goroutine and a descriptor for as
// long as the client likes (http.Server sets none by default). What a handler takes
// to compute its answer is not bounded here: a turn with the model or a tool call
// may take minutes, and an event stream lasts as long as its client stays.
//
// The zero value is the defaults; a negative duration means none.
type Timeouts struct {
	// Read bounds reading a request's body, from the end of its headers; past it
	// the body's reader fails with a *BodyTimeoutError. Once the body is read, the
	// connection has no read deadline: net/http's read that notices a client leaving
	// must not cut a long request. Default DefaultReadTimeout.
	Read time.Duration
	// Write bounds sending a response, from its first byte: a client that stops
	// reading is cut. An event stream (Content-Type text/event-stream) has no write
	// deadline: it stays open as long as its client. Default DefaultWriteTimeout.
	Write time.Duration
	// Idle closes a keep-alive connection after this long without a request.
	// Default DefaultIdleTimeout.
	Idle time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&t.Read, DefaultReadTimeout}, {&t.Write, DefaultWriteTimeout}, {&t.Idle, DefaultIdleTimeout}} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	return t
}

// Server is an http.Server for h with these timeouts: the connection's (headers,
// idle) set on the server, the request's (body, response) by Wrap around h.
func (t Timeouts) Server(h http.Handler) *http.Server {
	t = t.withDefaults()
	return &http.Server{
		Handler:           t.Wrap(h),
		ReadHeaderTimeout: HeaderTimeout,
		// 0 would mean ReadTimeout's, which is none (the body's is set per request).
		IdleTimeout: max(t.Idle, 0),
	}
}

// Wrap sets each request's body and response deadlines on its connection (through
// http.ResponseController). A server's own ReadTimeout and WriteTimeout cannot do it:
// they run from the request's start, so they would cut a long turn or tool call that
// has not begun its answer yet, and every event stream.
func (t Timeouts) Wrap(next http.Handler) http.Handler {
	t = t.withDefaults()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		// A deadline that the previous response on this connection set must not cut
		// this one (nor the "100 Continue" that reading its body may send).
		_ = rc.SetWriteDeadline(time.Time{})
		if t.Read > 0 && r.Body != nil && r.Body != http.NoBody {
			if rc.SetReadDeadline(time.Now().Add(t.Read)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc, limit: t.Read}
			}
		}
		next.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: rc, limit: t.Write}, r)
	})
}

// BodyTimeoutError is a request body that did not arrive within Timeouts.Read.
type BodyTimeoutError struct {
	Limit time.Duration
	err   error
}

func (e *BodyTimeoutError) Error() string {
	return fmt.Sprintf("the request body did not arrive within %s", e.Limit)
}

func (e *BodyTimeoutError) Unwrap() error { return e.err }

// deadlineBody lifts the read deadline once the body is in.
type deadlineBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	limit time.Duration
	eof   bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF && !b.eof:
		b.eof = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		err = &BodyTimeoutError{Limit: b.limit, err: err}
	}
	return n, err
}

// deadlineWriter sets the write deadline when the response begins, unless it is an
// event stream.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	limit   time.Duration
	started bool
}

func (w *deadlineWriter) start() {
	if w.started {
		return
	}
	w.started = true
	if w.limit > 0 && !strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.limit))
	}
}

func (w *deadlineWriter) WriteHeader(code int) {
	if code >= 200 { // not for an informational 1xx: the response has not begun
		w.start()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	w.start()
	return w.ResponseWriter.Write(b)
}

// Flush passes on to the connection: streams need it (the MCP SDK asserts
// http.Flusher).
func (w *deadlineWriter) Flush() {
	w.start()
	_ = w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
