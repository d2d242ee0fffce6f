package upstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// jsonLines filters a server's stdout down to the lines that are JSON-RPC messages.
// Real servers print banners and debug lines on stdout; the SDK's reader ends the
// connection at the first line that is not a JSON-RPC message, plain text and JSON
// alike ({"not":"jsonrpc"} killed a server's start with no word), so those lines are
// dropped here and reported to junk. Each line is also counted by notes when it is
// an ordered notification (see order.go).
type jsonLines struct {
	r       *bufio.Reader
	c       io.Closer
	pending []byte
	junk    *junkLog
	notes   *conn
}

func newJSONLines(rc io.ReadCloser, junk *junkLog, notes *conn) *jsonLines {
	// A small buffer: long lines are gathered across ErrBufferFull anyway, and the
	// buffer is per server.
	return &jsonLines{r: bufio.NewReaderSize(rc, 4<<10), c: rc, junk: junk, notes: notes}
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.pending) == 0 {
		line, err := j.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long message: collect the rest of the line.
			full := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = j.r.ReadSlice('\n')
				full = append(full, line...)
			}
			line = full
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if why := notMessage(trimmed); why != "" {
				j.junk.drop(trimmed, why)
			} else {
				j.pending = line
				j.notes.noteRead(trimmed)
			}
		}
		if err != nil {
			if len(j.pending) > 0 {
				break
			}
			return 0, err
		}
	}
	n := copy(p, j.pending)
	j.pending = j.pending[n:]
	return n, nil
}

func (j *jsonLines) Close() error { return j.c.Close() }

// notMessage says why a (trimmed, non-empty) stdout line is not something the SDK's
// reader takes, or "" when it is: a JSON-RPC message, or a batch of them. The test
// is the SDK's own decoder, the one its reader applies next.
func notMessage(line []byte) string {
	switch line[0] {
	case '{':
		if _, err := jsonrpc.DecodeMessage(line); err != nil {
			return notMessageWhy(line)
		}
		return ""
	case '[':
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil {
			return "not JSON"
		}
		if len(batch) == 0 {
			return "an empty batch"
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return "a batch holding something that is not a JSON-RPC message"
			}
		}
		return ""
	}
	return "not JSON"
}

// notMessageWhy tells JSON that is not a JSON-RPC message from a line that is not
// JSON at all.
func notMessageWhy(line []byte) string {
	if json.Valid(line) {
		return "JSON, but not a JSON-RPC message"
	}
	return "not JSON"
}

// The warnings about dropped stdout lines are rate-limited per server: a server that
// prints junk all the time filled the log with one WARN a line (90 lines in 18 s).
const (
	// junkBurst lines are logged one by one after a quiet spell ...
	junkBurst = 5
	// ... then at most one summary per junkInterval says how many more were dropped.
	// A whole junkInterval without junk shows the next burst one by one again.
	junkInterval = 30 * time.Second
)

// junkLog reports the lines of one server's stdout that were dropped, across its
// connections: the first junkBurst one by one, then a summary per interval with the
// count of those left out. Its one timer is stopped, and the last summary written,
// by close.
type junkLog struct {
	log      *slog.Logger
	burst    int
	interval time.Duration

	mu         sync.Mutex
	logged     int       // lines logged one by one since the last quiet spell
	suppressed int       // lines dropped without a word since the last summary
	last       string    // the last of them, for the summary
	lastDrop   time.Time // when a line was last dropped
	timer      *time.Timer
	closed     bool
	pending    sync.WaitGroup // the timer's summary, while it may run
}

func newJunkLog(log *slog.Logger, burst int, interval time.Duration) *junkLog {
	return &junkLog{log: log, burst: burst, interval: interval}
}

// drop reports one dropped line and why it was dropped.
func (j *junkLog) drop(line []byte, why string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return
	}
	now := time.Now()
	if j.suppressed == 0 && j.timer == nil && now.Sub(j.lastDrop) >= j.interval {
		j.logged = 0 // quiet for a whole interval: a new burst is shown in full
	}
	j.lastDrop = now
	text := truncate(string(line), 200)
	if j.logged < j.burst {
		j.logged++
		j.log.Warn("stdout: dropped a line that is not JSON-RPC", "line", text, "why", why)
		if j.logged == j.burst {
			j.log.Warn("stdout: more dropped lines are counted, not logged", "every", j.interval)
		}
		return
	}
	j.suppressed++
	j.last = text
	if j.timer == nil {
		j.pending.Add(1)
		j.timer = time.AfterFunc(j.interval, j.summary)
	}
}

// summary runs on the timer: it says how many lines were left out.
func (j *junkLog) summary() {
	defer j.pending.Done()
	j.mu.Lock()
	defer j.mu.Unlock()
	j.timer = nil
	j.flushLocked()
}

func (j *junkLog) flushLocked() {
	if j.suppressed == 0 {
		return
	}
	j.log.Warn("stdout: dropped more lines that are not JSON-RPC", "count", j.suppressed, "last", j.last)
	j.suppressed = 0
	j.last = ""
}

// close writes the last summary and stops the timer; later lines are not reported.
func (j *junkLog) close() {
	j.mu.Lock()
	j.closed = true
	if j.timer != nil && j.timer.Stop() {
		j.timer = nil
		j.pending.Done()
	}
	j.flushLocked()
	j.mu.Unlock()
	j.pending.Wait() // a summary that had already fired finds nothing left to say
}

// truncate cuts s to at most n bytes, on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
