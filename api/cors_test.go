package api_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/api"
)

// TestGatewayCORS: the origin of --cors may use the gateway at /mcp and /sse as it
// uses the rest of the API: its preflight is answered, and its POSTs reach the
// gateway (they were 403, refused by the gateway's own cross-origin check); another
// origin is still refused. With "*", any origin may.
func TestGatewayCORS(t *testing.T) {
	t.Parallel()
	const app = "http://app.example"
	initialize := `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "browser", "version": "1"}}}`
	mcpHeaders := func(origin string) []string {
		return []string{"Content-Type: application/json", "Accept: application/json, text/event-stream",
			"Origin: " + origin, "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: cors"}
	}

	e := start(t, setup{gateway: true, opts: api.Options{CORSOrigin: app}})
	r := e.do("OPTIONS", "/mcp", nil, "Origin: "+app, "Access-Control-Request-Method: POST", "Access-Control-Request-Headers: content-type, mcp-protocol-version")
	if r.status != http.StatusNoContent || r.header.Get("Access-Control-Allow-Origin") != app {
		t.Errorf("preflight of /mcp: %d %v", r.status, r.header)
	}
	r = e.do("POST", "/mcp", initialize, mcpHeaders(app)...)
	r.want(t, http.StatusOK, `"serverInfo"`)
	if r.header.Get("Access-Control-Allow-Origin") != app || r.header.Get("Mcp-Session-Id") == "" {
		t.Errorf("POST /mcp from %s: headers %v", app, r.header)
	}
	e.do("POST", "/mcp", initialize, mcpHeaders("http://other.example")...).want(t, http.StatusForbidden)

	// Legacy SSE: the GET stream names the endpoint that the page POSTs its messages to.
	endpoint := sseEndpoint(t, e, app)
	e.do("POST", endpoint, initialize, mcpHeaders(app)...).want(t, http.StatusAccepted)
	e.do("POST", endpoint, initialize, mcpHeaders("http://other.example")...).want(t, http.StatusForbidden)

	anyOrigin := start(t, setup{gateway: true, opts: api.Options{CORSOrigin: "*"}})
	anyOrigin.do("POST", "/mcp", initialize, mcpHeaders("http://other.example")...).want(t, http.StatusOK, `"serverInfo"`)
}

// sseEndpoint opens GET /sse from origin and returns the path of the "endpoint"
// event. The stream stays open until the test ends.
func sseEndpoint(t *testing.T, e *env, origin string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Origin", origin)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET /sse: %v", err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /sse: %d", res.StatusCode)
	}
	rd := bufio.NewReader(res.Body)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("GET /sse: no endpoint event: %v", err)
		}
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			return strings.TrimPrefix(data, e.url)
		}
	}
}
