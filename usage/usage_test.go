package usage_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/sqlite"
	"github.com/switchboard-mcp/switchboard/usage"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func call(at time.Duration, tool, server, person, outcome string, d time.Duration) session.Call {
	return session.Call{Time: t0.Add(at), Tool: tool, Server: server, Person: person, Source: session.SourceAPI, Duration: d, Outcome: outcome}
}

// TestSummarize: groups busiest first, each with its total and one figure per
// bucket; errors and refusals counted apart; percentiles by nearest rank over the
// calls that reached a server.
func TestSummarize(t *testing.T) {
	var calls []session.Call
	for i := range 20 { // echo: 20 calls in the first hour, 1..20 ms, the last two errors
		outcome := "ok"
		if i >= 18 {
			outcome = "error"
		}
		calls = append(calls, call(time.Duration(i)*time.Minute, "echo", "a", "alice", outcome, time.Duration(i+1)*time.Millisecond))
	}
	calls = append(calls,
		call(90*time.Minute, "add", "b", "bob", "ok", 7*time.Millisecond),
		call(95*time.Minute, "add", "b", "bob", "failed", 3*time.Second),
		call(96*time.Minute, "nope", "", "bob", "refused", 0),
	)
	q := usage.Query{CallQuery: session.CallQuery{Since: t0.Add(30 * time.Second), Until: t0.Add(2 * time.Hour)}, By: "tool", Bucket: "1h"}
	if err := q.Check(); err != nil {
		t.Fatal(err)
	}
	rep := usage.Summarize(q, calls)
	// The first call (at t0) is before since: 19 echo calls, 2..20 ms.
	if want := []time.Time{t0, t0.Add(time.Hour)}; len(rep.Buckets) != 2 || !rep.Buckets[0].Equal(want[0]) || !rep.Buckets[1].Equal(want[1]) {
		t.Fatalf("buckets = %v, want %v", rep.Buckets, want)
	}
	want := map[string]apiwire.UsageGroup{
		"echo": {Key: "echo", Total: apiwire.UsageFigures{Calls: 19, Errors: 2, P50Ms: 11, P95Ms: 20},
			Series: []apiwire.UsageFigures{{Calls: 19, Errors: 2, P50Ms: 11, P95Ms: 20}, {}}},
		"add": {Key: "add", Total: apiwire.UsageFigures{Calls: 2, Errors: 1, P50Ms: 7, P95Ms: 3000},
			Series: []apiwire.UsageFigures{{}, {Calls: 2, Errors: 1, P50Ms: 7, P95Ms: 3000}}},
		"nope": {Key: "nope", Total: apiwire.UsageFigures{Calls: 1, Refused: 1},
			Series: []apiwire.UsageFigures{{}, {Calls: 1, Refused: 1}}},
	}
	var order []string
	for _, g := range rep.Groups {
		order = append(order, g.Key)
		w := want[g.Key]
		if g.Total != w.Total || len(g.Series) != 2 || g.Series[0] != w.Series[0] || g.Series[1] != w.Series[1] {
			t.Errorf("group %s = %+v, want %+v", g.Key, g, w)
		}
	}
	if got := strings.Join(order, ","); got != "echo,add,nope" {
		t.Errorf("groups in order %s, want echo,add,nope (busiest first, then by name)", got)
	}
	if rep.Total.Calls != 22 || rep.Total.Errors != 3 || rep.Total.Refused != 1 {
		t.Errorf("total = %+v", rep.Total)
	}
	q.By, q.Person, q.PersonOnly = "person", "bob", true
	rep = usage.Summarize(q, calls)
	if len(rep.Groups) != 1 || rep.Groups[0].Key != "bob" || rep.Groups[0].Total.Calls != 3 {
		t.Errorf("bob's calls by person = %+v", rep.Groups)
	}
}

// TestQueryCheck: every bad query says what is wrong.
func TestQueryCheck(t *testing.T) {
	ok := session.CallQuery{Since: t0, Until: t0.Add(time.Hour)}
	for _, c := range []struct {
		q    usage.Query
		want string
	}{
		{usage.Query{CallQuery: ok, By: "colour", Bucket: "1h"}, `by "colour": want one of [tool server person source]`},
		{usage.Query{CallQuery: ok, By: "tool", Bucket: "5m"}, `bucket "5m": want one of [1m 1h 1d]`},
		{usage.Query{CallQuery: session.CallQuery{Since: t0, Until: t0}, By: "tool", Bucket: "1h"}, "is not after since"},
		{usage.Query{CallQuery: session.CallQuery{Since: t0, Until: t0.Add(365 * 24 * time.Hour)}, By: "tool", Bucket: "1h"}, "more than 1500 buckets"},
	} {
		if err := c.q.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%+v) = %v, want %q", c.q, err, c.want)
		}
	}
}

// TestRecorder: records take the person and source of their context, a report
// counts every call recorded before it (buffered ones written first), and Close
// writes what is left, so a recorder over the same file after a restart reads all.
func TestRecorder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := usage.NewRecorder(st, &usage.Options{Interval: time.Hour}) // only Flush and Close write
	alice := identity.NewContext(context.Background(), identity.Person{Subject: "alice"})
	key := identity.NewContext(context.Background(), identity.Person{KeyID: "k1", Profiles: []string{"ci"}})
	now := time.Now()
	rec.Record(usage.WithSource(alice, session.SourceMCP), session.Call{Time: now, Tool: "echo", Server: "a", Outcome: "ok", Duration: time.Millisecond})
	rec.Record(key, session.Call{Time: now, Tool: "echo", Server: "a", Outcome: "ok", Duration: time.Millisecond})
	q := usage.Query{CallQuery: session.CallQuery{Since: now.Add(-time.Minute), Until: now.Add(time.Minute)}, By: "source", Bucket: "1m"}
	rep, err := rec.Report(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, g := range rep.Groups {
		got[g.Key] = g.Total.Calls
	}
	if got[session.SourceMCP] != 1 || got[session.SourceCLI] != 1 || len(got) != 2 {
		t.Errorf("by source = %v, want mcp 1 and cli 1", got)
	}
	rec.Record(alice, session.Call{Time: now, Tool: "add", Server: "b", Outcome: "error", Duration: time.Millisecond})
	rec.Close()
	if err := rec.Flush(context.Background()); err == nil {
		t.Error("Flush after Close: no error")
	}
	st.Close()

	st, err = sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec = usage.NewRecorder(st, nil)
	defer rec.Close()
	q.By = "person"
	if rep, err = rec.Report(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	got = map[string]int{}
	for _, g := range rep.Groups {
		got[g.Key] = g.Total.Calls
	}
	if got["alice"] != 2 || got["key:k1"] != 1 || len(got) != 2 {
		t.Errorf("after a restart, by person = %v, want alice 2 and key:k1 1", got)
	}
}

// TestRecorderRetention: a recorder removes the records older than its retention
// when it starts.
func TestRecorderRetention(t *testing.T) {
	st := session.NewMemory()
	defer st.Close()
	now := time.Now()
	old := session.Call{Time: now.Add(-48 * time.Hour), Tool: "echo", Outcome: "ok"}
	recent := session.Call{Time: now.Add(-time.Hour), Tool: "echo", Outcome: "ok"}
	if err := st.AddCalls(context.Background(), []session.Call{old, recent}); err != nil {
		t.Fatal(err)
	}
	rec := usage.NewRecorder(st, &usage.Options{Retention: 24 * time.Hour})
	defer rec.Close()
	if err := rec.Flush(context.Background()); err != nil { // after the start's prune
		t.Fatal(err)
	}
	calls, _, err := st.Calls(context.Background(), session.CallQuery{Since: now.Add(-72 * time.Hour), Until: now}, 0)
	if err != nil || len(calls) != 1 || !calls[0].Time.Equal(recent.Time.UTC()) {
		t.Errorf("after a start with 24h retention: %+v (%v), want the recent call only", calls, err)
	}
}

// stuckStore is a store whose writes wait until release is closed.
type stuckStore struct {
	*session.Memory
	release chan struct{}
}

func (s stuckStore) AddCalls(ctx context.Context, calls []session.Call) error {
	<-s.release
	return s.Memory.AddCalls(ctx, calls)
}

// TestRecorderDrops: a store that does not keep up makes the buffer drop records
// rather than make a call wait, and count them; what was taken is still written.
func TestRecorderDrops(t *testing.T) {
	st := stuckStore{session.NewMemory(), make(chan struct{})}
	defer st.Close()
	rec := usage.NewRecorder(st, &usage.Options{Buffer: 1, Interval: time.Hour})
	defer rec.Close()
	defer close(st.release)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 1000 {
			rec.Record(context.Background(), session.Call{Time: time.Now(), Tool: "echo", Outcome: "ok"})
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Record blocked on a full buffer")
	}
	// The recorder takes a batch (256), then waits on the store with one more in
	// the buffer: the rest are dropped.
	if n := rec.Dropped(); n < 1000-256-1 {
		t.Errorf("1000 records, a batch of 256 and a buffer of 1 before a stuck store: %d dropped", n)
	}
}

// BenchmarkRecord is the cost of one record in the caller's path (a buffered send):
// compare with a call's own time in hub's BenchmarkCallUsage.
func BenchmarkRecord(b *testing.B) {
	st := session.NewMemory()
	defer st.Close()
	rec := usage.NewRecorder(st, &usage.Options{Buffer: 1 << 20})
	defer rec.Close()
	ctx := usage.WithSource(identity.NewContext(context.Background(), identity.Person{Subject: "alice"}), session.SourceAPI)
	c := session.Call{Time: time.Now(), Tool: "echo", Server: "a", Outcome: "ok", Duration: time.Millisecond}
	b.ReportAllocs()
	for b.Loop() {
		rec.Record(ctx, c)
	}
}
