//go:build unix

package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/api"
)

// TestSSESessionBound: a legacy SSE session (GET /sse) is its opener's, as a
// Streamable HTTP one is: its requests run as the person of the GET, so a POST to
// its endpoint from anyone else (bob, an admin, the static token) is 403 "session
// user mismatch" and reaches nothing; the opener's own go on. Before, whoever had
// the session id called tools on it as its opener.
func TestSSESessionBound(t *testing.T) {
	t.Parallel()
	e := start(t, setup{gateway: true, opts: api.Options{Identify: testPeople, Token: "static-secret"}})
	audit := auditOf(e, false)
	e.token = "alice-token"
	s := e.openGet("/sse")
	ev, ok := s.next()
	if !ok || ev.name != "endpoint" || !strings.Contains(ev.data, "sessionid=") {
		t.Fatalf("the SSE stream begins with %+v, want its endpoint", ev)
	}
	endpoint := ev.data
	post := func(tok, body string) response {
		t.Helper()
		return e.do("POST", endpoint, body, "Authorization: Bearer "+tok, "Content-Type: application/json")
	}
	post("alice-token", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`).want(t, http.StatusAccepted)
	s.until(t, "message")
	post("alice-token", `{"jsonrpc":"2.0","method":"notifications/initialized"}`).want(t, http.StatusAccepted)

	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"convert_time","arguments":{"time":"2026-01-02T03:04:05Z","to":"Asia/Tokyo"}}}`
	for _, tok := range []string{"bob-token", "carol-token", "static-secret"} {
		if r := post(tok, call); r.status != http.StatusForbidden || !strings.Contains(r.body, "session user mismatch") {
			t.Errorf("%s on alice's SSE session: %d %s, want 403 session user mismatch", tok, r.status, r)
		}
	}
	if n := len(auditLines(t, audit)); n != 0 {
		t.Errorf("%d calls made on alice's session by others:\n%s", n, audit)
	}
	post("alice-token", call).want(t, http.StatusAccepted)
	if evs := s.until(t, "message"); !strings.Contains(evs[len(evs)-1].data, "+09:00") {
		t.Errorf("alice's call answered %v", evs)
	}
	if lines := auditLines(t, audit); len(lines) != 1 {
		t.Errorf("%d audit lines after alice's call, want 1:\n%s", len(lines), audit)
	} else {
		wantLine(t, "alice's call", lines[0], map[string]any{"subject": "alice", "tool": "convert_time"})
	}
}
