package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestServeReplicasUsage: two `serve` replicas on one PostgreSQL keep their calls'
// records in it: GET /v1/usage on either adds both up, by server and by source,
// each within a second of the other's calls, and after one replica restarts (its
// buffer written when it stops) it still does.
func TestServeReplicasUsage(t *testing.T) {
	t.Parallel()
	pg := testenv.OwnPostgres(t)
	s := newSandbox(t)
	s.env["PG_DSN"] = pg.DSN("pw-usage-Hk3")
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"clock": `+demoEntry(t, "clock")+`},
  "switchboard": {"sessions": {"store": "postgres", "dsn": "${PG_DSN}"}}
}`)
	a := startServe(t, s, cfg, "")
	b := startServe(t, s, cfg, "")
	call := func(p *serveProc, n int) {
		t.Helper()
		for range n {
			if code, body := p.do(t, "POST", "/v1/tools/convert_time/call", `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}`); code != 200 {
				t.Fatalf("call on %s: %d %s", p.url, code, body)
			}
		}
	}
	report := func(p *serveProc, by string) map[string]int {
		t.Helper()
		code, body := p.do(t, "GET", "/v1/usage?by="+by, "")
		if code != 200 {
			t.Fatalf("GET /v1/usage on %s: %d %s", p.url, code, body)
		}
		var rep apiwire.UsageReport
		if err := json.Unmarshal([]byte(body), &rep); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, g := range rep.Groups {
			got[g.Key] = g.Total.Calls
		}
		return got
	}
	call(a, 120)
	call(b, 80)
	// A replica's report writes its own records first; the other's reach the store
	// within its batch interval (a second).
	for _, p := range []*serveProc{a, b} {
		var got map[string]int
		testenv.WaitFor(t, "both replicas' calls in "+p.url+"'s report", 10*time.Second, func() bool {
			got = report(p, "server")
			return got["clock"] == 200 && len(got) == 1
		})
	}
	call(b, 5)
	if code := b.stop(t); code != 0 {
		t.Errorf("B stopped with %d", code)
	}
	b = startServe(t, s, cfg, "")
	if got := report(b, "source"); got["api"] != 205 || len(got) != 1 {
		t.Errorf("after B's restart, by source = %v, want api 205", got)
	}
}
