package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/switchboard-mcp/switchboard/relay"
)

// A server's response waits until the notifications it sent before it have been
// handled. The SDK hands a notification to its handler on one goroutine and a
// response to the waiting call on another, so a server's last log message or
// progress of a call could otherwise be handled after the call returned, when no
// call claims it any more.
//
// The ordered notifications are counted in the bytes the SDK reads (jsonLines for
// stdio, noteCounter for the event streams of HTTP and SSE), before the SDK sees
// them, so every one sent before a response is counted by the time the response is
// handled; Supervisor.middleware counts them handled, and roundTrips waits after
// each response (conn.waitNotes). The connection itself is not wrapped: the SDK
// hands the session's state to its streamable client connection through an
// unexported method, which a wrapper hides (and without it the connection sends no
// MCP-Protocol-Version header and opens no standalone stream).

// ordered are the notifications that pass through Supervisor.middleware, which
// counts them handled.
var ordered = map[string]bool{
	relay.NotificationLog: true, relay.NotificationProgress: true, relay.NotificationResourceUpdated: true, relay.NotificationElicitComplete: true,
	notificationToolsChanged: true, notificationResChanged: true, notificationPromptChanged: true,
}

// orderWait bounds how long a response waits for earlier notifications.
const orderWait = 250 * time.Millisecond

// noteRead counts msg, one message as the server sent it (or its first bytes), if
// it is an ordered notification. Only messages that mention "notifications/" are
// looked at, and only their first maxNoteEvent bytes: a message counts when its
// method comes before any member that is not there whole, and no "id" before it —
// SDKs write the method before the params, so a huge log line counts too.
func (c *conn) noteRead(msg []byte) {
	msg = msg[:min(len(msg), maxNoteEvent)]
	if !bytes.Contains(msg, []byte("notifications/")) {
		return
	}
	if method, ok := leadingMethod(msg); ok && ordered[method] {
		c.notesRead.Add(1)
	}
}

// leadingMethod is the method of the JSON-RPC notification that msg starts, if its
// "method" member comes before any member msg does not hold whole, and no "id"
// before it.
func leadingMethod(msg []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		key, err := dec.Token()
		switch {
		case err != nil || key == "id":
			return "", false
		case key == "method":
			v, err := dec.Token()
			method, ok := v.(string)
			return method, ok && err == nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// noteHandled counts one ordered notification handled.
func (c *conn) noteHandled() {
	c.notesHandled.Add(1)
	select {
	case c.noteSignal <- struct{}{}:
	default:
	}
}

// waitNotes waits until every ordered notification read so far is handled, at
// most orderWait (then it stops waiting for those: one the SDK dropped before its
// handler, say).
func (c *conn) waitNotes(ctx context.Context) {
	target := c.notesRead.Load()
	if c.notesHandled.Load() >= target {
		return
	}
	timer := time.NewTimer(orderWait)
	defer timer.Stop()
	for c.notesHandled.Load() < target {
		select {
		case <-c.noteSignal:
		case <-timer.C:
			c.skipNotes(target)
			return
		case <-ctx.Done():
			return
		}
	}
}

// skipNotes counts the notifications up to target handled, unless more are already:
// the count only grows, whatever noteHandled adds meanwhile.
func (c *conn) skipNotes(target int64) {
	for {
		n := c.notesHandled.Load()
		if n >= target || c.notesHandled.CompareAndSwap(n, target) {
			return
		}
	}
}

// maxNoteEvent bounds what is decoded of a message, and what a noteCounter gathers
// of an event: the notifications counted (progress, log lines, list changes) are
// small, and of a longer message only the start is read (see noteRead).
const maxNoteEvent = 64 << 10

// noteCounter passes an event stream through, counting in c.notesRead the events
// that are ordered notifications.
type noteCounter struct {
	io.ReadCloser
	c *conn

	line    []byte // the line being read (its first maxNoteEvent bytes)
	data    []byte // the event's data so far (its first maxNoteEvent bytes)
	afterCR bool   // the last byte seen was '\r': a '\n' next ends no line
}

func (n *noteCounter) Read(p []byte) (int, error) {
	k, err := n.ReadCloser.Read(p)
	n.scan(p[:k])
	return k, err
}

// scan follows the event stream syntax: lines end with "\r\n", "\n" or "\r"; a
// blank line ends an event; "data:" lines make its data.
func (n *noteCounter) scan(b []byte) {
	for len(b) > 0 {
		if n.afterCR && b[0] == '\n' {
			b = b[1:]
		}
		n.afterCR = false
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			n.add(b)
			return
		}
		n.add(b[:i])
		n.afterCR = b[i] == '\r'
		n.endLine()
		b = b[i+1:]
	}
}

func (n *noteCounter) add(b []byte) {
	n.line = appendBounded(n.line, b)
}

func (n *noteCounter) endLine() {
	line := n.line
	n.line = n.line[:0]
	switch {
	case len(line) == 0:
		n.endEvent()
	case bytes.HasPrefix(line, []byte("data:")):
		if len(n.data) > 0 {
			n.data = appendBounded(n.data, []byte{'\n'})
		}
		n.data = appendBounded(n.data, bytes.TrimPrefix(line[len("data:"):], []byte(" ")))
	}
}

func (n *noteCounter) endEvent() {
	data := n.data
	n.data = n.data[:0]
	if len(data) > 0 {
		n.c.noteRead(data)
	}
}

// appendBounded appends to buf what fits of b within maxNoteEvent bytes.
func appendBounded(buf, b []byte) []byte {
	return append(buf, b[:min(len(b), max(maxNoteEvent-len(buf), 0))]...)
}
