package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/api"
)

// TestRequestsPerMinute: past Options.RequestsPerMinute a person gets 429 with
// Retry-After, in the error form of the route (the API's, OpenAI's at
// /v1/chat/completions, JSON-RPC's at /mcp), while another person is still served;
// the public routes are never limited. One request a minute: nothing refills while
// the test runs.
func TestRequestsPerMinute(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, gateway: true, opts: api.Options{Identify: testPeople, RequestsPerMinute: 1}})
	const alice = "Authorization: Bearer alice-token"
	e.do("GET", "/v1/servers", nil, alice).want(t, 200, `"clock"`)

	r := e.do("GET", "/v1/servers", nil, alice)
	r.want(t, 429)
	if code, msg, _ := r.errorOf(t); code != "rate_limited" || !strings.Contains(msg, "1 requests a minute") {
		t.Errorf("error %q %q", code, msg)
	}
	if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs < 1 || secs > 60 {
		t.Errorf("Retry-After %q, want whole seconds up to a minute", r.header.Get("Retry-After"))
	}

	r = e.do("POST", "/v1/chat/completions", map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "hi"}}}, alice)
	r.want(t, 429, `"code": "rate_limited"`, `"type": "invalid_request_error"`)
	if r.header.Get("Retry-After") == "" {
		t.Errorf("chat completions: no Retry-After")
	}

	r = e.do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, alice, "Content-Type: application/json", "Accept: application/json, text/event-stream")
	var rpc struct {
		JSONRPC string `json:"jsonrpc"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if r.status != http.StatusTooManyRequests || json.Unmarshal([]byte(r.body), &rpc) != nil || rpc.JSONRPC != "2.0" || !strings.Contains(rpc.Error.Message, "requests a minute") {
		t.Errorf("/mcp: %d %s, want 429 with a JSON-RPC error", r.status, r)
	}

	// Bob has a bucket of his own.
	e.do("GET", "/v1/servers", nil, "Authorization: Bearer bob-token").want(t, 200, `"clock"`)

	// The public routes answer alice whatever her bucket holds.
	for range 5 {
		e.do("GET", "/healthz", nil, alice).want(t, 200)
		e.do("GET", "/readyz", nil, alice).want(t, 200)
		e.do("GET", "/", nil, alice).want(t, 200)
	}
}

// TestRequestsPerMinuteMCP: an MCP client's session counts each of its HTTP
// requests; past the bound its call fails, and another person's client still works.
func TestRequestsPerMinuteMCP(t *testing.T) {
	t.Parallel()
	e := start(t, setup{gateway: true, opts: api.Options{Identify: testPeople, RequestsPerMinute: 100}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := mcpClient(t, e, "alice-token")
	// Use up alice's bucket over plain HTTP.
	for i := 0; ; i++ {
		if i > 100 {
			t.Fatal("no 429 after 100 requests of alice's")
		}
		if r := e.do("GET", "/v1/servers", nil, "Authorization: Bearer alice-token"); r.status == http.StatusTooManyRequests {
			break
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "convert_time", Arguments: map[string]any{"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}); err == nil {
		t.Errorf("alice's MCP call past her bound went through")
	}
	bob := mcpClient(t, e, "bob-token")
	if res, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "convert_time", Arguments: map[string]any{"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}); err != nil || res.IsError {
		t.Errorf("bob's MCP call: %v %+v", err, res)
	}
}
