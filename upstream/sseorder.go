package upstream

import (
	"bytes"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Over Streamable HTTP the connection cannot be wrapped to count notifications as
// they are read (see orderedTransport). They are counted in the HTTP responses'
// event streams instead, as the SDK reads them: a noteCounter sees each event's
// bytes before the SDK does, so every ordered notification sent before a response
// is counted by the time the response is handled, and roundTrips waits for them
// (conn.waitNotes) before the response goes back to its caller.

// maxNoteEvent bounds the event data a noteCounter gathers: the notifications it
// counts (progress, log lines, list changes) are small, and a longer event (a big
// result, a huge log line) is passed on uncounted.
const maxNoteEvent = 64 << 10

// noteCounter passes an event stream through, counting in c.notesRead the events
// that are ordered notifications.
type noteCounter struct {
	io.ReadCloser
	c *conn

	line    []byte // the line being read (up to maxNoteEvent)
	long    bool   // the line is longer: its event is not counted
	data    []byte // the event's data so far
	skip    bool   // the event has a line that was too long
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
	if n.long || len(n.line)+len(b) > maxNoteEvent {
		n.long = true
		return
	}
	n.line = append(n.line, b...)
}

func (n *noteCounter) endLine() {
	line, long := n.line, n.long
	n.line, n.long = n.line[:0], false
	switch {
	case long:
		n.skip = true
	case len(line) == 0:
		n.endEvent()
	case bytes.HasPrefix(line, []byte("data:")):
		d := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
		if len(n.data)+len(d)+1 > maxNoteEvent {
			n.skip = true
			return
		}
		if len(n.data) > 0 {
			n.data = append(n.data, '\n')
		}
		n.data = append(n.data, d...)
	}
}

func (n *noteCounter) endEvent() {
	data, skip := n.data, n.skip
	n.data, n.skip = n.data[:0], false
	if skip || !bytes.Contains(data, []byte("notifications/")) {
		return
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if req, ok := msg.(*jsonrpc.Request); err == nil && ok && !req.ID.IsValid() && ordered[req.Method] {
		n.c.notesRead.Add(1)
	}
}
