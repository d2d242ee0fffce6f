package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/usage"
)

// seedUsage is a day of calls: per hour back from now, that many calls of three
// tools on two servers by two people, some failing, and one tool whose name is
// markup. It returns the calls per hour bucket (Unix seconds of the bucket's start).
func seedUsage(t *testing.T, st session.UsageStore, now time.Time) map[int64]int {
	t.Helper()
	var calls []session.Call
	want := map[int64]int{}
	add := func(at time.Time, tool, server, person, outcome string, d time.Duration) {
		calls = append(calls, session.Call{Time: at, Tool: tool, Server: server, Person: person, Source: session.SourceAPI, Duration: d, Outcome: outcome})
		want[at.Truncate(time.Hour).Unix()]++
	}
	for h, n := range []int{0, 4, 9, 2, 0, 7} { // hours ago
		// Mid-hour, but never in the future nor before the page's 24 hours.
		at := now.Truncate(time.Hour).Add(-time.Duration(h) * time.Hour).Add(-30 * time.Minute)
		for i := range n {
			outcome := "ok"
			if i == 0 && n > 5 {
				outcome = "error"
			}
			person := "alice"
			if i%3 == 0 {
				person = "bob"
			}
			add(at.Add(time.Duration(i)*time.Second), "convert_time", "clock", person, outcome, time.Duration(i+1)*time.Millisecond)
		}
	}
	add(now.Add(-90*time.Minute), "slow_query", "db", "alice", "ok", 900*time.Millisecond)
	add(now.Add(-80*time.Minute), hostile, "db", "bob", "ok", 2*time.Second)
	if err := st.AddCalls(context.Background(), calls); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestDashboardUsage: the Usage view of a day of seeded calls: the chart's points
// are the calls per hour, the slowest tools come slowest first, the servers and
// people busiest first, a tool named with markup is text, and the chart is drawn
// by the vendored uPlot on a canvas.
func TestDashboardUsage(t *testing.T) {
	ctx := browser(t)
	st := session.NewMemory()
	want := seedUsage(t, st, time.Now())
	rec := usage.NewRecorder(st, nil)
	t.Cleanup(func() { rec.Close(); st.Close() })
	e := start(t, setup{opts: api.Options{Usage: rec}})
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/#usage-section"))
	waitJS(t, ctx, "the usage chart's data", `window.switchboard.usage && window.switchboard.usage.data !== null`)

	points := eval[[][]float64](t, ctx, `(d => d[0].map((x, i) => [x, d[1][i], d[2][i]]).filter(p => p[1] > 0))(window.switchboard.usage.data)`)
	got := map[int64]int{}
	errs := 0
	for _, p := range points {
		got[int64(p[0])] = int(p[1])
		errs += int(p[2])
	}
	if !sameCounts(got, want) {
		t.Errorf("chart points (bucket → calls) = %v, want %v", got, want)
	}
	if errs != 2 {
		t.Errorf("errors over the chart = %d, want 2", errs)
	}
	if n := eval[int](t, ctx, `window.switchboard.usage.data[0].length`); n < 24 || n > 25 {
		t.Errorf("%d buckets over 24 hours by the hour", n)
	}
	waitJS(t, ctx, "a canvas drawn by uPlot", `document.querySelector("#usage-chart .uplot canvas") !== null`)

	rows := func(id string) []string {
		return eval[[]string](t, ctx, `[...document.querySelectorAll("#`+id+` tbody tr")].map(r => [...r.cells].map(c => c.textContent).join(" | "))`)
	}
	if got, want := rows("usage-slowest"), []string{hostile + " | 1 | 2000 ms | 2000 ms", "slow_query | 1 | 900 ms | 900 ms", "convert_time | 22 | 3.0 ms | 8.0 ms"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("slowest tools:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := rows("usage-servers"), []string{"clock | 22 | 2", "db | 2 | 0"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("busiest servers: %q, want %q", got, want)
	}
	if got, want := rows("usage-people"), []string{"alice | 14 | 0", "bob | 10 | 2"}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("people: %q, want %q", got, want)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#usage img").length`); n != 0 {
		t.Errorf("a tool named %s made %d img elements: markup, not text", hostile, n)
	}
	if s := eval[string](t, ctx, `document.getElementById("usage-status").textContent`); !strings.HasPrefix(s, "24 calls, 2 errors") {
		t.Errorf("status = %q", s)
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#usage-section")))
	if err == nil {
		path := filepath.Join(t.ArtifactDir(), "usage.png")
		if err := os.WriteFile(path, png, 0o644); err == nil {
			t.Logf("screenshot: %s", path)
		}
	}

	// Another range asks again: the last hour by the minute holds none of them.
	eval[bool](t, ctx, `(s => (s.value = "1h", s.dispatchEvent(new Event("change")), true))(document.getElementById("usage-range"))`)
	waitJS(t, ctx, "the last hour's figures", `window.switchboard.usage.data !== null && window.switchboard.usage.data[0].length >= 60 && window.switchboard.usage.data[1].every(n => n === 0)`)
	waitJS(t, ctx, "no rows", `document.getElementById("usage-slowest").hidden`)
}

func sameCounts(a, b map[int64]int) bool {
	if len(a) != len(b) {
		return false
	}
	keys := make([]int64, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// TestDashboardUsageNone: a service that keeps no usage says so in the view.
func TestDashboardUsageNone(t *testing.T) {
	ctx := browser(t)
	e := start(t, setup{})
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
	waitJS(t, ctx, "the usage view's note", `document.getElementById("usage-status").textContent.includes("keeps no usage")`)
}

// TestVendoredUPlot: the chart library the page loads is the npm package's file,
// unchanged (testdata/npm pins uplot, the version api/dashboard/vendor/README.md
// names).
func TestVendoredUPlot(t *testing.T) {
	t.Parallel()
	pkg := filepath.Join(testenv.NPMDir(t), "node_modules", "uplot", "dist")
	for _, f := range []string{"uPlot.iife.min.js", "uPlot.min.css"} {
		want, err := os.ReadFile(filepath.Join(pkg, f))
		if err != nil {
			testenv.Missing(t, "uplot is not installed (%v); run `make deps` (npm ci in testdata/npm)", err)
			continue
		}
		got, err := os.ReadFile(filepath.Join("dashboard", "vendor", f))
		if err != nil {
			t.Fatal(err)
		}
		if sum(got) != sum(want) {
			t.Errorf("api/dashboard/vendor/%s is not uplot's dist/%s (update both as its README says)", f, f)
		}
	}
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
