package sqlite

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/sessiontest"
)

// idleSessions is how many sessions the list and memory benchmarks store.
const idleSessions = 10_000

// populate stores n idle sessions as a chat leaves them: metadata, a system message
// and a short history (a question, a step with calls and results, the answer).
func populate(b *testing.B, st *Store, n int) {
	b.Helper()
	h := sessiontest.History()
	start := time.Now().Add(-48 * time.Hour)
	for i := range n {
		s := &session.Session{
			System:     "You are a helpful assistant.",
			Metadata:   map[string]string{"user": fmt.Sprintf("user%d", i%100), "channel": "web"},
			Messages:   h,
			Loaded:     []string{"weather__get"},
			LastActive: start.Add(time.Duration(i) * time.Second),
			Usage:      llm.Usage{InputTokens: 1200, OutputTokens: 80},
		}
		if err := st.Create(b.Context(), s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendStep appends one agent step (the assistant's message with its tool
// calls, then the calls' results) to one session, as the agent does after each step:
// WAL with synchronous=NORMAL, durable against a process crash on return. The target
// is ≤ 1 ms median.
func BenchmarkAppendStep(b *testing.B) {
	st := open(b, filepath.Join(b.TempDir(), "sessions.db"))
	s := &session.Session{}
	if err := st.Create(b.Context(), s); err != nil {
		b.Fatal(err)
	}
	step := sessiontest.History()[1:5] // assistant with 3 calls, 3 results
	usage := llm.Usage{InputTokens: 900, OutputTokens: 40}
	var took []float64
	for b.Loop() {
		t0 := time.Now()
		if err := st.Append(b.Context(), s.ID, usage, step...); err != nil {
			b.Fatal(err)
		}
		took = append(took, float64(time.Since(t0).Nanoseconds())/1e3)
	}
	slices.Sort(took)
	b.ReportMetric(testenv.Median(took), "median-µs")
	b.ReportMetric(took[len(took)*99/100], "p99-µs")
}

// BenchmarkList10000 lists 10,000 stored sessions (the target is ≤ 50 ms).
func BenchmarkList10000(b *testing.B) {
	st := open(b, filepath.Join(b.TempDir(), "sessions.db"))
	populate(b, st, idleSessions)
	var took []float64
	for b.Loop() {
		t0 := time.Now()
		l, err := st.List(b.Context())
		if err != nil || len(l) != idleSessions {
			b.Fatalf("List: %d sessions, %v", len(l), err)
		}
		took = append(took, float64(time.Since(t0).Microseconds())/1e3)
	}
	b.ReportMetric(testenv.Median(took), "median-ms")
}

// BenchmarkIdleRSS is the resident memory of a process that opened a store holding
// 10,000 idle sessions (and listed them, and ran the janitor's stale scan), against one
// that opened an empty store: each a fresh helper process, measured by VmRSS. The
// target is ≤ 30 MB more.
func BenchmarkIdleRSS(b *testing.B) {
	dir := b.TempDir()
	empty, full := filepath.Join(dir, "empty.db"), filepath.Join(dir, "full.db")
	if err := open(b, empty).Close(); err != nil {
		b.Fatal(err)
	}
	st := open(b, full)
	populate(b, st, idleSessions)
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	rss := func(path string) float64 {
		child := startChild(b, "rss", path, "")
		kib, err := testenv.VmRSSKiB(child.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		return float64(kib) / 1024
	}
	var base []float64
	for range 3 {
		base = append(base, rss(empty))
	}
	var loaded []float64
	for b.Loop() {
		loaded = append(loaded, rss(full))
	}
	b.ReportMetric(testenv.Median(base), "empty-MiB")
	b.ReportMetric(testenv.Median(loaded), "10k-MiB")
	b.ReportMetric(testenv.Median(loaded)-testenv.Median(base), "extra-MiB")
}
