package api_test

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"path/filepath"
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

// TestWildcardCORSServerEdits: --cors "*" lets a page of any origin call tools, never
// change the servers (a stdio server is a command the service runs), read their
// config or log, restart one or sign in, even with the token: each is 403 with
// nothing done, and no preflight or answer lets the page read it. The service's own
// page, with the token, still adds a server.
func TestWildcardCORSServerEdits(t *testing.T) {
	t.Parallel()
	const token = "tok-cors-Qq4"
	e, path := startFileHost(t, api.Options{Token: token, CORSOrigin: "*"})
	before := fileText(t, path)
	page := []string{"Origin: http://evil.example", "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: cors", "Content-Type: application/json"}
	marker := filepath.Join(t.TempDir(), "pwned")
	add := `{"name": "pwned", "command": "sh", "args": ["-c", "touch ` + marker + `"]}`

	// What "*" covers: the catalog, from any page, readable there.
	r := e.do("GET", "/v1/tools", nil, page...)
	r.want(t, http.StatusOK, `"current_time"`)
	if r.header.Get("Access-Control-Allow-Origin") != "http://evil.example" {
		t.Errorf("GET /v1/tools from another origin under *: headers %v", r.header)
	}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/servers", add},
		{"PATCH", "/v1/servers/clock", `{"command": "sh"}`},
		{"DELETE", "/v1/servers/clock", ""},
		{"GET", "/v1/servers/clock/config", ""},
		{"GET", "/v1/servers/clock/log", ""},
		{"POST", "/v1/servers/clock/restart", ""},
		{"POST", "/v1/servers/clock/login", ""},
	} {
		var body any
		if c.body != "" {
			body = c.body
		}
		r := e.do(c.method, c.path, body, page...)
		r.want(t, http.StatusForbidden, "only the service's own pages")
		if acao := r.header.Get("Access-Control-Allow-Origin"); acao != "" {
			t.Errorf("%s %s from another origin: Access-Control-Allow-Origin %q", c.method, c.path, acao)
		}
		pre := e.do("OPTIONS", c.path, nil, "Origin: http://evil.example", "Access-Control-Request-Method: "+c.method,
			"Access-Control-Request-Headers: authorization, content-type")
		if acao := pre.header.Get("Access-Control-Allow-Origin"); acao != "" {
			t.Errorf("the preflight of %s %s from another origin is allowed: %d %v", c.method, c.path, pre.status, pre.header)
		}
	}
	if got := fileText(t, path); got != before {
		t.Errorf("the config file changed:\n%s", got)
	}
	if st := e.serverState("pwned"); st != "" || e.serverState("clock") != "ready" {
		t.Errorf("after the page's requests: pwned %q, clock %q; want none and ready", st, e.serverState("clock"))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the page's server ran")
	}

	// The service's own page (same origin) with the token may.
	own := []string{"Origin: " + e.url, "Sec-Fetch-Site: same-origin", "Sec-Fetch-Mode: cors", "Content-Type: application/json"}
	e.do("GET", "/v1/servers/clock/config", nil, own...).want(t, http.StatusOK, `"command"`)
	e.do("POST", "/v1/servers", `{"name": "clock2", "command": "sh", "args": ["-c", "exit 0"], "disabled": true}`, own...).want(t, http.StatusCreated, `"saved": true`)
	if !strings.Contains(fileText(t, path), `"clock2"`) {
		t.Errorf("the own page's server is not in the file:\n%s", fileText(t, path))
	}
}
