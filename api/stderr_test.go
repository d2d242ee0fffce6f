//go:build unix

package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestStderrAdmins: with identities on, a server's stderr tail (which may quote
// what anyone's calls sent it) is an admin's, as its log is. Alice's call has the
// server write her argument to stderr; bob, not an admin, never reads it in GET
// /v1/servers, GET /v1/servers/{name} or /v1/events (its snapshot and its server
// events): the field is left out, not emptied. Carol, an admin, reads it on each.
func TestStderrAdmins(t *testing.T) {
	t.Parallel()
	const arg = "alice-private-argument-7Qx2"
	e := start(t, setup{servers: []config.Server{chattyServer(t)}, opts: api.Options{Identify: testPeople}})
	e.token = "alice-token"
	e.say("alice asked for " + arg)
	e.token = "carol-token"
	testenv.WaitFor(t, "alice's line in the admin's stderr tail", 5*time.Second, func() bool {
		return strings.Contains(e.do("GET", "/v1/servers/chatty", nil).body, arg)
	})

	// hidden fails unless body is bob's view: no stderr field, no argument.
	hidden := func(what, body string) {
		t.Helper()
		if strings.Contains(body, arg) || strings.Contains(body, `"stderr"`) {
			t.Errorf("%s shows bob the stderr tail: %s", what, body)
		}
	}
	e.token = "bob-token"
	bobEvents := e.openGet("/v1/events")
	e.token = "carol-token"
	carolEvents := e.openGet("/v1/events")
	snap := func(s *stream) string {
		t.Helper()
		evs := s.until(t, "snapshot")
		if data := evs[len(evs)-1].data; strings.Contains(data, "chatty") {
			return data
		}
		t.Fatalf("a snapshot without the server: %v", evs)
		return ""
	}
	hidden("bob's snapshot", snap(bobEvents))
	if !strings.Contains(snap(carolEvents), arg) {
		t.Error("carol's snapshot has no stderr tail")
	}

	e.token = "bob-token"
	r := e.do("GET", "/v1/servers", nil)
	r.want(t, http.StatusOK, `"chatty"`)
	hidden("GET /v1/servers", r.body)
	r = e.do("GET", "/v1/servers/chatty", nil)
	r.want(t, http.StatusOK, `"chatty"`)
	hidden("GET /v1/servers/chatty", r.body)

	// A server event for both streams: alice's call adds a tool, and the server
	// says its tools changed.
	e.token = "alice-token"
	e.do("POST", "/v1/tools/add_tool/call", map[string]any{"arguments": map[string]any{"name": "gamma"}}).want(t, http.StatusOK, "added gamma")
	toolsEvent := func(s *stream) []event {
		t.Helper()
		var evs []event
		for {
			ev, ok := s.next()
			if !ok {
				t.Fatalf("the stream ended before the server event of the new tool; got %v", evs)
			}
			evs = append(evs, ev)
			var srv struct {
				ToolsChanged bool `json:"toolsChanged"`
			}
			if ev.name == "server" && json.Unmarshal([]byte(ev.data), &srv) == nil && srv.ToolsChanged {
				return evs
			}
		}
	}
	for _, ev := range toolsEvent(bobEvents) {
		hidden("bob's event "+ev.name, ev.data)
	}
	seen := false
	for _, ev := range toolsEvent(carolEvents) {
		seen = seen || (ev.name == "server" && strings.Contains(ev.data, arg))
	}
	if !seen {
		t.Error("carol, an admin, got no server event with the stderr tail")
	}

	e.token = "carol-token"
	e.do("GET", "/v1/servers", nil).want(t, http.StatusOK, arg, `"stderr"`)
}
