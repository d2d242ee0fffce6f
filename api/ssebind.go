package api

import (
	"bytes"
	"net/http"
	"net/url"
	"sync"

	"github.com/switchboard-mcp/switchboard/internal/httpguard"
)

// sseSessions binds each legacy SSE session of the gateway to the user who opened
// it (sessionUser), as the SDK binds a Streamable HTTP one (auditContext): the SDK
// runs an SSE session's requests with the context of its GET, its opener's person,
// and takes a POST to its endpoint (?sessionid=ID) from anyone, so that whoever
// learned the id would call tools as the opener. The zero value is ready to use.
type sseSessions struct {
	mu    sync.Mutex
	users map[string]string // session id → its opener's sessionUser
}

// serve serves a request of user at the gateway's /sse: a GET's session is bound to
// user while it lasts (the id read from the endpoint event the SDK writes first); a
// POST to a session bound to someone else is 403, as the SDK says it at /mcp.
func (b *sseSessions) serve(user string, next http.Handler, w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		id := r.URL.Query().Get("sessionid")
		b.mu.Lock()
		opener, known := b.users[id]
		b.mu.Unlock()
		if known && opener != user {
			httpguard.Unread(w, r)
			httpguard.JSONRPCError(w, http.StatusForbidden, "session user mismatch: this SSE session was opened by someone else")
			return
		}
		next.ServeHTTP(w, r)
		return
	}
	sw := &endpointWriter{ResponseWriter: w, bind: func(id string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.users == nil {
			b.users = map[string]string{}
		}
		b.users[id] = user
	}}
	defer func() {
		sw.mu.Lock()
		id := sw.id
		sw.mu.Unlock()
		b.mu.Lock()
		delete(b.users, id)
		b.mu.Unlock()
	}()
	next.ServeHTTP(sw, r)
}

// endpointWriter is the ResponseWriter of a GET /sse: it binds the session named by
// the first event, "endpoint" (data: /sse?sessionid=ID), before the client can read
// it, so that no POST comes before the binding.
type endpointWriter struct {
	http.ResponseWriter
	bind func(id string)
	mu   sync.Mutex // the SDK's writes need not all come from one goroutine
	id   string
}

func (e *endpointWriter) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.id == "" && bytes.HasPrefix(p, []byte("event: endpoint\n")) {
		for line := range bytes.SplitSeq(p, []byte("\n")) {
			data, ok := bytes.CutPrefix(line, []byte("data: "))
			if !ok {
				continue
			}
			if u, err := url.Parse(string(data)); err == nil {
				if id := u.Query().Get("sessionid"); id != "" {
					e.id = id
					e.bind(id)
				}
			}
		}
	}
	return e.ResponseWriter.Write(p)
}

// Flush and Unwrap keep the SDK's flushes (http.ResponseController) reaching the
// connection.
func (e *endpointWriter) Flush() {
	if f, ok := e.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (e *endpointWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }
