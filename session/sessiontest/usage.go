package sessiontest

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/session"
)

// RunUsage runs the checks every session.UsageStore must pass against the store
// open returns.
func RunUsage(t *testing.T, open func(t *testing.T) session.UsageStore) {
	t.Run("UsageRoundTrip", func(t *testing.T) { testUsageRoundTrip(t, open(t)) })
	t.Run("UsageQuery", func(t *testing.T) { testUsageQuery(t, open(t)) })
	t.Run("UsagePrune", func(t *testing.T) { testUsagePrune(t, open(t)) })
}

// usageBase is a whole second, so that every store keeps the times exactly
// (PostgreSQL keeps microseconds).
var usageBase = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func usageCalls() []session.Call {
	return []session.Call{
		{Time: usageBase.Add(2 * time.Minute), Tool: "echo", Server: "a", Person: "alice", Source: session.SourceAPI, Duration: 1500 * time.Microsecond, Outcome: "ok"},
		{Time: usageBase, Tool: "add", Server: "b", Person: "bob", Source: session.SourceMCP, Duration: 20 * time.Millisecond, Outcome: "error"},
		{Time: usageBase.Add(time.Minute), Tool: "echo", Server: "a", Source: session.SourceTurn, Duration: time.Second, Outcome: "failed"},
		{Time: usageBase.Add(3 * time.Minute), Tool: "nope", Person: "alice", Source: session.SourceCompat, Outcome: "refused"},
	}
}

func addUsage(t *testing.T, st session.UsageStore, calls []session.Call) {
	t.Helper()
	if err := st.AddCalls(context.Background(), calls); err != nil {
		t.Fatalf("AddCalls: %v", err)
	}
}

func wantCalls(t *testing.T, what string, got []session.Call, want ...session.Call) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d calls %+v, want %d %+v", what, len(got), got, len(want), want)
	}
	for i := range want {
		if !got[i].Time.Equal(want[i].Time) || got[i].Tool != want[i].Tool || got[i].Server != want[i].Server ||
			got[i].Person != want[i].Person || got[i].Source != want[i].Source || got[i].Duration != want[i].Duration ||
			got[i].Outcome != want[i].Outcome {
			t.Errorf("%s: call %d = %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

// testUsageRoundTrip: every field comes back as stored, in time order whatever
// the order of the batch, and an empty batch stores nothing.
func testUsageRoundTrip(t *testing.T, st session.UsageStore) {
	ctx := context.Background()
	addUsage(t, st, nil)
	in := usageCalls()
	addUsage(t, st, in)
	got, more, err := st.Calls(ctx, session.CallQuery{Since: usageBase, Until: usageBase.Add(time.Hour)}, 0)
	if err != nil || more {
		t.Fatalf("Calls: %v (more %v)", err, more)
	}
	wantCalls(t, "all", got, in[1], in[2], in[0], in[3])
}

// testUsageQuery: the range is [Since, Until), a person's calls only when asked
// (the calls of no person too), and a limit says there were more.
func testUsageQuery(t *testing.T, st session.UsageStore) {
	ctx := context.Background()
	in := usageCalls()
	addUsage(t, st, in)
	got, _, err := st.Calls(ctx, session.CallQuery{Since: usageBase.Add(time.Minute), Until: usageBase.Add(3 * time.Minute)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls(t, "[1m, 3m)", got, in[2], in[0])
	got, _, err = st.Calls(ctx, session.CallQuery{Since: usageBase, Until: usageBase.Add(time.Hour), Person: "alice", PersonOnly: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls(t, "alice's", got, in[0], in[3])
	got, _, err = st.Calls(ctx, session.CallQuery{Since: usageBase, Until: usageBase.Add(time.Hour), PersonOnly: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls(t, "nobody's", got, in[2])
	got, more, err := st.Calls(ctx, session.CallQuery{Since: usageBase, Until: usageBase.Add(time.Hour)}, 2)
	if err != nil || !more {
		t.Fatalf("Calls with limit 2 of 4: %v, more %v", err, more)
	}
	wantCalls(t, "the first 2", got, in[1], in[2])
	if _, more, _ := st.Calls(ctx, session.CallQuery{Since: usageBase, Until: usageBase.Add(time.Hour)}, 4); more {
		t.Error("Calls with limit 4 of 4 says there are more")
	}
}

// testUsagePrune: calls before the time go, the rest stay.
func testUsagePrune(t *testing.T, st session.UsageStore) {
	ctx := context.Background()
	in := usageCalls()
	addUsage(t, st, in)
	n, err := st.PruneCalls(ctx, usageBase.Add(2*time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("PruneCalls = %d, %v; want 2", n, err)
	}
	got, _, err := st.Calls(ctx, session.CallQuery{Since: usageBase.Add(-time.Hour), Until: usageBase.Add(time.Hour)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls(t, "after the prune", got, in[0], in[3])
}
