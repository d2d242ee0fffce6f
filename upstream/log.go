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

// logState records a change of state from prev to st, for reason.
func (s *Supervisor) logState(prev, st State, reason string) {
	s.logs.Add(LogEntry{Kind: LogState, State: st, From: prev, Text: reason})
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

// logMessage records a log message the server sent (notifications/message), masked:
// its logger's name, a colon and its data, as text when a string, else as JSON.
func (s *Supervisor) logMessage(params any) {
	p, ok := params.(*mcp.LoggingMessageParams)
	if !ok || p == nil {
		return
	}
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
	// Masking a long message takes long, and the call whose message it is waits
	// (order.go): twice what is kept is masked, then cut to what is kept, so that no
	// cut leaves the start of a secret unmasked.
	text = s.redact(truncate(text, 2*MaxLogText))
	s.logs.Add(LogEntry{Kind: LogMCP, Level: string(p.Level), Text: text})
}

// Log is the server's log: its stderr, its state changes, the failed connection
// attempts and the log messages it sent (see [Log]).
func (s *Supervisor) Log() *Log { return s.logs }
