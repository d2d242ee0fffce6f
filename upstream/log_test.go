package upstream_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// texts are the entries' texts, in order.
func texts(es []upstream.LogEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Text
	}
	return out
}

// The ring keeps its newest entries, numbered without gaps; a read after a sequence
// number gets what came since, and counts what the ring dropped or the limit left
// out as missed.
func TestLogRing(t *testing.T) {
	t.Parallel()
	l := upstream.NewLog(3)
	if es, missed := l.Entries(0, 0); len(es) != 0 || missed != 0 || l.Last() != 0 {
		t.Fatalf("empty log: %v, missed %d, last %d", es, missed, l.Last())
	}
	for i := 1; i <= 5; i++ {
		l.Add(upstream.LogEntry{Kind: upstream.LogStderr, Text: fmt.Sprint("line ", i)})
	}
	for _, tc := range []struct {
		after      uint64
		limit      int
		want       string
		wantMissed uint64
	}{
		{0, 0, "line 3,line 4,line 5", 2}, // 1 and 2 dropped by the ring of 3
		{2, 0, "line 3,line 4,line 5", 0},
		{3, 0, "line 4,line 5", 0},
		{5, 0, "", 0},
		{9, 0, "", 0},
		{0, 1, "line 5", 4},
		{3, 5, "line 4,line 5", 0},
		{3, 1, "line 5", 1},
	} {
		es, missed := l.Entries(tc.after, tc.limit)
		if got := strings.Join(texts(es), ","); got != tc.want || missed != tc.wantMissed {
			t.Errorf("Entries(%d, %d) = %q, missed %d; want %q, missed %d", tc.after, tc.limit, got, missed, tc.want, tc.wantMissed)
		}
		for i, e := range es {
			if i > 0 && e.Seq != es[i-1].Seq+1 || e.Time.IsZero() {
				t.Errorf("Entries(%d, %d): entry %d is %+v", tc.after, tc.limit, i, e)
			}
		}
	}
	if l.Last() != 5 {
		t.Errorf("Last = %d, want 5", l.Last())
	}
}

// The default log keeps DefaultLogEntries, and a line longer than MaxLogText is cut.
func TestLogBound(t *testing.T) {
	t.Parallel()
	l := upstream.NewLog(0)
	if l.Cap() != upstream.DefaultLogEntries {
		t.Fatalf("Cap = %d, want %d", l.Cap(), upstream.DefaultLogEntries)
	}
	for i := range upstream.DefaultLogEntries + 10 {
		l.Add(upstream.LogEntry{Kind: upstream.LogStderr, Text: fmt.Sprint(i)})
	}
	es, missed := l.Entries(0, 0)
	if len(es) != upstream.DefaultLogEntries || missed != 10 || es[0].Text != "10" || es[0].Seq != 11 {
		t.Fatalf("%d entries from %+v, missed %d; want %d from seq 11, missed 10", len(es), es[0], missed, upstream.DefaultLogEntries)
	}
	l.Add(upstream.LogEntry{Kind: upstream.LogStderr, Text: strings.Repeat("x", 3*upstream.MaxLogText)})
	es, _ = l.Entries(l.Last()-1, 0)
	if n := len(es[0].Text); n > upstream.MaxLogText+len("…") || !strings.HasSuffix(es[0].Text, "…") {
		t.Errorf("a long line is kept as %d bytes, want at most %d ending in …", n, upstream.MaxLogText)
	}
}

// Changed wakes a reader at the next entry, never before; the writer waits for nobody.
func TestLogChanged(t *testing.T) {
	t.Parallel()
	l := upstream.NewLog(2)
	ch := l.Changed()
	select {
	case <-ch:
		t.Fatal("Changed is closed before any entry")
	default:
	}
	for range 10 { // nobody reads: Add never blocks
		l.Add(upstream.LogEntry{Kind: upstream.LogNotice, Text: "n"})
	}
	select {
	case <-ch:
	default:
		t.Fatal("Changed is still open after an entry")
	}
}

// A disabled server's log says so, and nothing else.
func TestLogOfDisabledServer(t *testing.T) {
	t.Parallel()
	s := upstream.New(config.Server{Name: "off", Transport: config.Stdio, Command: "never-run", Disabled: true}, nil)
	s.Start()
	defer s.Close()
	es, _ := s.Log().Entries(0, 0)
	if len(es) != 1 || es[0].Kind != upstream.LogState || es[0].State != upstream.Disabled {
		t.Errorf("entries %+v, want one: disabled", es)
	}
}
