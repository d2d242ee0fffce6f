package api

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
// GET /v1/events are all written by an sseWriter; the turns' streams also share
// follow, the loop that writes a running turn's events (conversation.Turn) as they come.

// keepAlive is how often an idle stream gets a comment, so that proxies keep it open
// while a turn waits (for the model, for an approval).
const keepAlive = 15 * time.Second

// sseEvent is one event: its name ("" for none) and its data, sent as JSON.
type sseEvent struct {
	name string
	data any
}

// sseWriter writes one response as an event stream. The stream starts (headers,
// status 200) with the first event, so that until then a handler can still answer
// with a plain error and its status.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	// opening, when set, is sent first as the stream starts (a chat completion's role
	// chunk).
	opening *sseEvent
	// encodeFailed is what an event whose data cannot be encoded is sent as instead
	// (its name and data), in the error form the stream's clients read; nil sends
	// {"error": "…"} under the event's name.
	encodeFailed func(name string, err error) (string, any)
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// start sends the headers and status 200, once.
func (s *sseWriter) start() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx would buffer the stream
	s.w.WriteHeader(http.StatusOK)
	if s.opening != nil {
		_ = s.send(s.opening.name, s.opening.data)
	}
}

// send writes one event, starting the stream; data is encoded as JSON. The error is
// the connection's: the client left.
func (s *sseWriter) send(name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		if s.encodeFailed != nil {
			name, data = s.encodeFailed(name, err)
		} else {
			data = map[string]string{"error": err.Error()}
		}
		b, _ = json.Marshal(data)
	}
	return s.sendRaw(name, b)
}

// sendRaw writes one event with data as it is (a chat completion's "[DONE]").
func (s *sseWriter) sendRaw(name string, data []byte) error {
	s.start()
	var err error
	if name != "" {
		_, err = fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data)
	} else {
		_, err = fmt.Fprintf(s.w, "data: %s\n\n", data)
	}
	return err
}

// keepAlive writes a comment and flushes it, once the stream has started (before, a
// handler that answers with a plain error could not).
func (s *sseWriter) keepAlive() error {
	if !s.started {
		return nil
	}
	if _, err := fmt.Fprint(s.w, ": keep-alive\n\n"); err != nil {
		return err
	}
	return s.flush()
}

// flush sends what was written to the client now.
func (s *sseWriter) flush() error { return s.rc.Flush() }

// stepJoin streams the text of a turn's steps as one answer, as the answer that is
// not streamed joins them: the first delta of a later step starts with a blank line.
type stepJoin struct{ last int }

func (j *stepJoin) text(e conversation.Event) string {
	text := e.Text
	if j.last != 0 && e.Step != j.last {
		text = "\n\n" + text
	}
	j.last = e.Step
	return text
}

// textDeltas are the text deltas of evs that carry text: what an endpoint's stream
// of the answer sends (/v1/chat/completions, /v1/responses, /v1/messages).
func textDeltas(evs []conversation.Event) []conversation.Event {
	var out []conversation.Event
	for _, e := range evs {
		if e.Kind == conversation.TextDelta && e.Text != "" {
			out = append(out, e)
		}
	}
	return out
}

// follow writes a running turn's events as they come (write, which may send none of
// them, then a flush once the stream has started), with a comment every keepAlive on
// a stream that has started. It returns the turn's
// outcome once every event of the turn has been written; the caller writes the
// stream's end.
func (s *sseWriter) follow(t *conversation.Turn, write func([]conversation.Event)) (*conversation.Result, error) {
	pass := func() {
		if evs := t.Take(); len(evs) > 0 {
			write(evs)
			if s.started { // a flush would send the headers: not before the stream starts
				_ = s.flush()
			}
		}
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-t.Ready():
			pass()
		case <-tick.C:
			_ = s.keepAlive()
		case <-t.Done():
			pass()
			return t.Wait()
		}
	}
}
