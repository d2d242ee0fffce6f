package upstream

//lint:file-ignore SA1019 logging is deprecated in the 2026-07-28 protocol but lives in the versions servers speak today.

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/tool"
)

// DefaultLogEntries is how many entries a server's log keeps ([Log]): ten times the
// stderr tail of [Status]. Switchboard's own.
const DefaultLogEntries = 1000

// MaxLogText bounds the text of one log entry, in bytes: a longer line is cut (and
// ends with "…"), so that a log costs at most about DefaultLogEntries·MaxLogText.
const MaxLogText = 4096

// LogKind says what a log entry records.
type LogKind string

// The kinds of log entries.
const (
	// LogStderr is a line a stdio server wrote to its stderr (HTTP and SSE servers
	// have none).
	LogStderr LogKind = "stderr"
	// LogState is a change of the supervisor's state: State is the state entered,
	// From the one left, Text why.
	LogState LogKind = "state"
	// LogNotice is what the supervisor has to say that is no change of state: a
	// connection attempt that failed (of any transport), the connection starting.
	LogNotice LogKind = "notice"
	// LogMCP is a log message the server sent over MCP (notifications/message, at
	// the level a client asked for with logging/setLevel); Level is its level.
	LogMCP LogKind = "mcp"
)

// LogEntry is one entry of a server's log. Its text is masked of the secrets the
// supervisor's redactor knows.
type LogEntry struct {
	// Seq numbers the entries of one log from 1, without gaps: a reader that asks
	// for the entries after the last it has gets each once, and a gap tells it that
	// the ring dropped some before it read them.
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	Kind LogKind   `json:"kind"`
	Text string    `json:"text"`
	// State and From: a LogState entry's state entered and left.
	State State `json:"state,omitempty"`
	From  State `json:"from,omitempty"`
	// Level is a LogMCP entry's level ("info", "error", ...).
	Level string `json:"level,omitempty"`
}

// Log is a server's log: its stderr lines, its state changes, the failed connection
// attempts and the log messages it sent, with their times, in a ring of bounded size.
// A Supervisor writes to the one of its Options (a hub keeps one per server name, so
// that a restarted server's log goes on), else to its own, which outlives every
// reconnect.
//
// Readers ask for the entries after a sequence number (Entries) and wait on Changed
// for more: a writer never waits for a reader, and a slow reader loses only the
// entries the ring dropped before it read them, which Entries counts as missed.
// Safe for concurrent use.
type Log struct {
	mu      sync.Mutex
	ring    []LogEntry // oldest at head once full
	head    int
	max     int
	last    uint64 // Seq of the newest entry; 0 while empty
	changed tool.Notifier
}

// NewLog returns an empty log of max entries; max ≤ 0 means [DefaultLogEntries].
func NewLog(max int) *Log {
	if max <= 0 {
		max = DefaultLogEntries
	}
	return &Log{max: max}
}

// Cap is how many entries the log keeps.
func (l *Log) Cap() int { return l.max }

// Last is the sequence number of the newest entry (0 while the log is empty): ask
// for the entries after it to get only those to come.
func (l *Log) Last() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// Changed returns a channel closed when the next entry is added. Take it before
// reading with Entries, so that no entry added in between goes unnoticed.
func (l *Log) Changed() <-chan struct{} { return l.changed.Changed() }

// Add appends e, numbering it and, when its Time is zero, timing it now; its Text is
// cut to MaxLogText. The oldest entry goes once the log is full.
func (l *Log) Add(e LogEntry) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Text = truncate(e.Text, MaxLogText)
	l.mu.Lock()
	l.last++
	e.Seq = l.last
	if len(l.ring) < l.max {
		l.ring = append(l.ring, e)
	} else {
		l.ring[l.head] = e
		l.head = (l.head + 1) % l.max
	}
	l.mu.Unlock()
	l.changed.Notify()
}

// Entries returns the entries after sequence number after, oldest first: the newest
// limit of them when limit > 0, else all. missed counts those after it that are not
// returned: dropped by the ring before this read, or left out by limit.
func (l *Log) Entries(after uint64, limit int) (entries []LogEntry, missed uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if after >= l.last {
		return nil, 0
	}
	n := len(l.ring)
	oldest := l.last - uint64(n) + 1 // Seq of the oldest entry kept
	skip := 0                        // of the ring's entries, oldest first
	if after >= oldest {
		skip = int(after - oldest + 1)
	} else {
		missed = oldest - after - 1
	}
	if want := n - skip; limit > 0 && want > limit {
		missed += uint64(want - limit)
		skip = n - limit
	}
	entries = make([]LogEntry, 0, n-skip)
	for i := skip; i < n; i++ {
		entries = append(entries, l.ring[(l.head+i)%n])
	}
	return entries, missed
}

// logState records a change of state from prev to st, for reason (masked).
func (s *Supervisor) logState(prev, st State, reason string) {
	s.logs.Add(LogEntry{Kind: LogState, State: st, From: prev, Text: s.redact(reason)})
}

// logNotice records what the supervisor has to say, masked.
func (s *Supervisor) logNotice(text string) {
	s.logs.Add(LogEntry{Kind: LogNotice, Text: s.redact(text)})
}

// stderrLine takes a line of a stdio server's stderr, masked already: into the tail of
// Status and into the log.
func (s *Supervisor) stderrLine(line string) {
	s.tail.add(line)
	s.logs.Add(LogEntry{Kind: LogStderr, Text: line})
}

// logMessage queues a log message the server sent (notifications/message) for the
// log: masking a long one takes long (tens of milliseconds), and the call whose
// message it is waits until its messages are handled (order.go), so the supervisor's
// logWriter masks and adds it. Past maxPendingMessages waiting, a message is dropped
// and counted.
func (s *Supervisor) logMessage(params any) {
	p, ok := params.(*mcp.LoggingMessageParams)
	if !ok || p == nil {
		return
	}
	s.pending.push(pendingMessage{at: time.Now(), params: p})
}

// maxPendingMessages bounds the log messages waiting for the logWriter.
const maxPendingMessages = 256

// pendingMessage is a log message waiting to be masked and logged, and when it came.
type pendingMessage struct {
	at     time.Time
	params *mcp.LoggingMessageParams
}

// messageQueue holds the log messages the logWriter has yet to log. The zero value is
// ready to use.
type messageQueue struct {
	mu      sync.Mutex
	msgs    []pendingMessage
	dropped int
	wake    chan struct{} // a token when messages were queued; made by logWriter
}

func (q *messageQueue) push(m pendingMessage) {
	q.mu.Lock()
	if len(q.msgs) < maxPendingMessages {
		q.msgs = append(q.msgs, m)
	} else {
		q.dropped++
	}
	wake := q.wake
	q.mu.Unlock()
	if wake != nil {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

func (q *messageQueue) take() (msgs []pendingMessage, dropped int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs, dropped = q.msgs, q.dropped
	q.msgs, q.dropped = nil, 0
	return msgs, dropped
}

// logWriter starts the goroutine that logs the server's log messages; it ends with
// the supervisor's context, and the returned function waits for it.
func (s *Supervisor) logWriter() (wait func()) {
	wake := make(chan struct{}, 1)
	s.pending.mu.Lock()
	s.pending.wake = wake
	s.pending.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-wake:
			}
			msgs, dropped := s.pending.take()
			if dropped > 0 {
				s.logNotice(fmt.Sprintf("%d log messages of the server were not logged: it sent them faster than they could be", dropped))
			}
			for _, m := range msgs {
				s.logs.Add(LogEntry{Time: m.at, Kind: LogMCP, Level: string(m.params.Level), Text: s.messageText(m.params)})
			}
		}
	}()
	return func() { <-done }
}

// messageText is a log message as the log shows it, masked: its logger's name, a
// colon and its data, as text when a string, else as JSON. Twice what an entry keeps
// is masked, then cut to what it keeps, so that no cut leaves the start of a secret
// unmasked.
func (s *Supervisor) messageText(p *mcp.LoggingMessageParams) string {
	text, isString := p.Data.(string)
	if !isString {
		b, err := json.Marshal(p.Data)
		if err != nil {
			text = fmt.Sprint(p.Data)
		} else {
			text = string(b)
		}
	}
	if p.Logger != "" {
		text = p.Logger + ": " + text
	}
	return s.redact(truncate(text, 2*MaxLogText))
}

// Log is the server's log: its stderr, its state changes, the failed connection
// attempts and the log messages it sent (see [Log]).
func (s *Supervisor) Log() *Log { return s.logs }
