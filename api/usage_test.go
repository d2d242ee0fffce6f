package api_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/session/sqlite"
	"github.com/switchboard-mcp/switchboard/usage"
)

// startUsage starts an API with people (testPeople) whose calls a usage.Recorder
// keeps in the SQLite file at path, as serve's host wires it.
func startUsage(t *testing.T, path string) (*env, func()) {
	t.Helper()
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := usage.NewRecorder(st, nil)
	e := start(t, setup{gateway: true, opts: api.Options{Identify: testPeople, Token: "static-secret", Usage: rec}})
	e.token = ""
	e.hub.SetUsage(rec)
	stop := func() {
		e.shutdown(5 * time.Second)
		e.hub.SetUsage(nil)
		rec.Close()
		st.Close()
	}
	return e, stop
}

func usageOf(t *testing.T, e *env, tok, query string) apiwire.UsageReport {
	t.Helper()
	r := e.do("GET", "/v1/usage?"+query, nil, "Authorization: Bearer "+tok)
	r.want(t, http.StatusOK)
	var rep apiwire.UsageReport
	r.decode(t, &rep)
	return rep
}

func callsBy(rep apiwire.UsageReport) map[string]int {
	got := map[string]int{}
	for _, g := range rep.Groups {
		got[g.Key] = g.Total.Calls
	}
	return got
}

// TestUsage: the calls of two people, through the API and /mcp, a refused one
// too, are in GET /v1/usage per tool, server, person and source, each person seeing
// their own and the admin everyone's, and still there after a restart over the
// same store.
func TestUsage(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	e, stop := startUsage(t, path)
	args := `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}`
	for i := range 300 {
		tok := "alice-token"
		if i%3 == 0 {
			tok = "bob-token"
		}
		e.do("POST", "/v1/tools/convert_time/call", args, "Authorization: Bearer "+tok).want(t, http.StatusOK)
	}
	e.do("POST", "/v1/tools/no_such_tool/call", `{}`, "Authorization: Bearer bob-token").want(t, http.StatusNotFound)
	cs := mcpClientVersion(t, e, "alice-token", "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range 5 {
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "current_time", Arguments: map[string]any{"zone": "UTC"}}); err != nil || res.IsError {
			t.Fatalf("the gateway's call: %v %+v", err, res)
		}
	}

	check := func(when string) {
		t.Helper()
		if got := callsBy(usageOf(t, e, "carol-token", "by=person&bucket=1m")); got["alice"] != 205 || got["bob"] != 101 || len(got) != 2 {
			t.Errorf("%s: the admin's by person = %v, want alice 205, bob 101", when, got)
		}
		rep := usageOf(t, e, "carol-token", "by=tool")
		if got := callsBy(rep); got["convert_time"] != 300 || got["current_time"] != 5 || got["no_such_tool"] != 1 {
			t.Errorf("%s: by tool = %v", when, got)
		}
		if rep.Total.Calls != 306 || rep.Total.Refused != 1 || rep.Total.Errors != 0 || rep.Total.P50Ms <= 0 || rep.Total.P95Ms < rep.Total.P50Ms {
			t.Errorf("%s: total = %+v", when, rep.Total)
		}
		if rep.Bucket != "1h" || rep.By != "tool" || len(rep.Buckets) < 24 || !rep.Until.After(rep.Since) {
			t.Errorf("%s: defaults = by %s, bucket %s, %d buckets, %s to %s", when, rep.By, rep.Bucket, len(rep.Buckets), rep.Since, rep.Until)
		}
		if got := callsBy(usageOf(t, e, "carol-token", "by=server")); got["clock"] != 305 || got[""] != 1 {
			t.Errorf("%s: by server = %v, want clock 305 and the unknown tool's 1 under \"\"", when, got)
		}
		if got := callsBy(usageOf(t, e, "carol-token", "by=source")); got["api"] != 301 || got["mcp"] != 5 {
			t.Errorf("%s: by source = %v, want api 301, mcp 5", when, got)
		}
		if got := callsBy(usageOf(t, e, "bob-token", "by=person")); got["bob"] != 101 || len(got) != 1 {
			t.Errorf("%s: bob's own = %v, want bob 101 alone", when, got)
		}
		if got := callsBy(usageOf(t, e, "carol-token", "by=tool&person=alice")); got["convert_time"] != 200 || got["current_time"] != 5 || len(got) != 2 {
			t.Errorf("%s: the admin's view of alice = %v", when, got)
		}
	}
	check("running")
	stop()

	e, stop = startUsage(t, path)
	defer stop()
	check("after a restart")
}

// TestUsageRefusals: a person asking for another's usage gets 403, bad parameters
// 400 naming what is wrong, and a service that keeps none 404.
func TestUsageRefusals(t *testing.T) {
	t.Parallel()
	e, stop := startUsage(t, filepath.Join(t.TempDir(), "sessions.db"))
	defer stop()
	e.do("GET", "/v1/usage?person=alice", nil, "Authorization: Bearer bob-token").want(t, http.StatusForbidden, "their own usage only")
	e.do("GET", "/v1/usage?person=bob", nil, "Authorization: Bearer bob-token").want(t, http.StatusOK)
	e.do("GET", "/v1/usage?since=7d&bucket=1d", nil, "Authorization: Bearer bob-token").want(t, http.StatusOK, `"bucket": "1d"`)
	for q, want := range map[string]string{
		"by=colour":                  `by \"colour\": want one of`,
		"bucket=5m":                  `bucket \"5m\"`,
		"since=yesterday":            `since: \"yesterday\" is neither an RFC 3339 time`,
		"since=1h&until=2h":          "is not after since",
		"since=8760h&bucket=1m":      "more than 1500 buckets",
		"until=2026-13-01T00:00:00Z": "until:",
	} {
		e.do("GET", "/v1/usage?"+q, nil, "Authorization: Bearer carol-token").want(t, http.StatusBadRequest, want)
	}
	none := start(t, setup{})
	none.do("GET", "/v1/usage", nil).want(t, http.StatusNotFound, "keeps no usage")
}
