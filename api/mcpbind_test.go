package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/identity"
)

// TestMCPStaticTokenSession: an MCP session opened at /mcp with the static token is
// bound to it as a person's is to them: alice (a person with a token) who knows
// its Mcp-Session-Id gets 403 "session user mismatch" on it, and so does a person
// whose subject is the very string the static token's sessions are bound to; the
// static token's own requests go on. Before, such a session was bound to nobody,
// and any person could call tools on it as the static token's admin.
func TestMCPStaticTokenSession(t *testing.T) {
	t.Parallel()
	people := func(r *http.Request) (identity.Person, error) {
		if r.Header.Get("Authorization") == "Bearer mimic-token" {
			return identity.Person{Subject: api.StaticTokenUser}, nil
		}
		return testPeople(r)
	}
	e := start(t, setup{gateway: true, opts: api.Options{Identify: people, Token: "static-secret"}})
	e.token = ""
	cs := mcpClientVersion(t, e, "static-secret", "2025-11-25") // a session: 2026-07-28 has none
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "convert_time", Arguments: map[string]any{"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}); err != nil || res.IsError {
		t.Fatalf("the static token's call on its own session: %v %+v", err, res)
	}

	call := func(tok string) response {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"convert_time","arguments":{"time":"2026-01-02T03:04:05Z","to":"Asia/Tokyo"}}}`
		return e.do("POST", "/mcp", body, "Authorization: Bearer "+tok, "Mcp-Session-Id: "+cs.ID(),
			"Content-Type: application/json", "Accept: application/json, text/event-stream", "Mcp-Protocol-Version: 2025-11-25")
	}
	for _, tok := range []string{"alice-token", "carol-token", "mimic-token"} {
		if r := call(tok); r.status != http.StatusForbidden || !strings.Contains(r.body, "session user mismatch") {
			t.Errorf("%s on the static token's MCP session: %d %s, want 403 session user mismatch", tok, r.status, r)
		}
	}
	if r := call("static-secret"); r.status != http.StatusOK || !strings.Contains(r.body, "+09:00") {
		t.Errorf("the static token on its own session: %d %s", r.status, r)
	}

	// And the other way: the static token does not take up a person's session.
	as := mcpClientVersion(t, e, "alice-token", "2025-11-25")
	body := `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`
	r := e.do("POST", "/mcp", body, "Authorization: Bearer static-secret", "Mcp-Session-Id: "+as.ID(),
		"Content-Type: application/json", "Accept: application/json, text/event-stream", "Mcp-Protocol-Version: 2025-11-25")
	if r.status != http.StatusForbidden {
		t.Errorf("the static token on alice's MCP session: %d %s, want 403", r.status, r)
	}
}
