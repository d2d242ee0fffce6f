package httpx

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/conversation"
)

// The API's streams are server-sent events, the text/event-stream format of
// https://html.spec.whatwg.org/multipage/server-sent-events.html: "event: NAME" (none
// means "message"), "data: …", and a blank line per event; a line that starts with a
// colon is a comment, which clients ignore. A session's turn, a chat completion and
// GET /v1/events are all written by an SSEWriter; the turns' streams also share
// Follow, the loop that writes a running turn's events (conversation.Turn) as they come.

// KeepAliveEvery is how often an idle stream gets a comment, so that proxies keep it
// open while a turn waits (for the model, for an approval).
const KeepAliveEvery = 15 * time.Second

// SSEEvent is one event: its name ("" for none) and its data, sent as JSON.
type SSEEvent struct {
	Name string
	Data any
}

// SSEWriter writes one response as an event stream. The stream starts (headers,
// status 200) with the first event, so that until then a handler can still answer
// with a plain error and its status.
type SSEWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	// Opening, when set, is sent first as the stream starts (a chat completion's role
	// chunk).
	Opening *SSEEvent
	// EncodeFailed is what an event whose data cannot be encoded is sent as instead
	// (its name and data), in the error form the stream's clients read; nil sends
	// {"error": "…"} under the event's name.
	EncodeFailed func(name string, err error) (string, any)
}

// NewSSEWriter is the event stream of w, not started yet.
func NewSSEWriter(w http.ResponseWriter) *SSEWriter {
	return &SSEWriter{w: w, rc: http.NewResponseController(w)}
}

// Started reports whether the stream has started: from then on an error is an event.
func (s *SSEWriter) Started() bool { return s.started }

// Start sends the headers and status 200, once.
func (s *SSEWriter) Start() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx would buffer the stream
	s.w.WriteHeader(http.StatusOK)
	if s.Opening != nil {
		_ = s.Send(s.Opening.Name, s.Opening.Data)
	}
}

// Send writes one event, starting the stream; data is encoded as JSON. The error is
// the connection's: the client left.
func (s *SSEWriter) Send(name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		if s.EncodeFailed != nil {
			name, data = s.EncodeFailed(name, err)
		} else {
			data = map[string]string{"error": err.Error()}
		}
		b, _ = json.Marshal(data)
	}
	return s.SendRaw(name, b)
}

// SendRaw writes one event with data as it is (a chat completion's "[DONE]").
func (s *SSEWriter) SendRaw(name string, data []byte) error {
	s.Start()
	var err error
	if name != "" {
		_, err = fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data)
	} else {
		_, err = fmt.Fprintf(s.w, "data: %s\n\n", data)
	}
	return err
}

// KeepAlive writes a comment and flushes it, once the stream has started (before, a
// handler that answers with a plain error could not).
func (s *SSEWriter) KeepAlive() error {
	if !s.started {
		return nil
	}
	if _, err := fmt.Fprint(s.w, ": keep-alive\n\n"); err != nil {
		return err
	}
	return s.Flush()
}

// Flush sends what was written to the client now.
func (s *SSEWriter) Flush() error { return s.rc.Flush() }

// Follow writes a running turn's events as they come (write, which may send none of
// them, then a flush once the stream has started), with a comment every
// KeepAliveEvery on a stream that has started. It returns the turn's outcome once
// every event of the turn has been written; the caller writes the stream's end.
func (s *SSEWriter) Follow(t *conversation.Turn, write func([]conversation.Event)) (*conversation.Result, error) {
	pass := func() {
		if evs := t.Take(); len(evs) > 0 {
			write(evs)
			if s.started { // a flush would send the headers: not before the stream starts
				_ = s.Flush()
			}
		}
	}
	tick := time.NewTicker(KeepAliveEvery)
	defer tick.Stop()
	for {
		select {
		case <-t.Ready():
			pass()
		case <-tick.C:
			_ = s.KeepAlive()
		case <-t.Done():
			pass()
			return t.Wait()
		}
	}
}
