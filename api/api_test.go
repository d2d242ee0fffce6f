package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestHealth: /healthz, /readyz and /health answer without a token; /health reports
// every server, the tool count and "degraded" while a server is not ready, and why
// only to a caller with the token; /readyz is 503 while a required server is not ready.
func TestHealth(t *testing.T) {
	t.Parallel()
	dead := testserver.Stdio(t, "dead", "--crash-at-start")
	dead.Required = false
	e := start(t, setup{servers: []config.Server{clockServer(t), dead}, opts: api.Options{Token: "tok-health"}})
	e.token = ""
	e.do("GET", "/healthz", nil).want(t, 200, `"alive"`)
	e.do("GET", "/readyz", nil).want(t, 200, `"ready"`)
	var h struct {
		Status   string `json:"status"`
		Version  string `json:"version"`
		MCPTools int    `json:"mcp_tools"`
		Servers  map[string]struct {
			State string `json:"state"`
			Tools int    `json:"tools"`
			Error string `json:"error"`
		} `json:"servers"`
	}
	for _, token := range []string{"", "tok-health"} {
		e.token = token
		r := e.do("GET", "/health", nil)
		r.want(t, 200)
		h.Servers = nil
		r.decode(t, &h)
		if h.Status != "degraded" || h.Version != "test" || h.MCPTools != 3 {
			t.Errorf("health (token %q) = %+v, want degraded, version test, 3 tools", token, h)
		}
		if c := h.Servers["clock"]; c.State != "ready" || c.Tools != 3 || c.Error != "" {
			t.Errorf("clock (token %q) = %+v", token, c)
		}
		// Why a server is not ready may name addresses and paths: not for anyone.
		if d := h.Servers["dead"]; d.State == "ready" || (d.Error == "") != (token == "") {
			t.Errorf("dead (token %q) = %+v, want not ready, with an error only with the token", token, d)
		}
	}

	// The same server required: not ready, so /readyz says so.
	dead.Required = true
	if err := e.hub.Replace(dead); err != nil {
		t.Fatal(err)
	}
	e.do("GET", "/readyz", nil, "Authorization: ").want(t, 503, `"waiting"`, `"dead"`)
}

// TestRequestID: every response carries X-Request-Id, the client's own when it sent
// one, and the request's log line has it.
func TestRequestID(t *testing.T) {
	t.Parallel()
	e := start(t, setup{})
	r := e.do("GET", "/v1/servers", nil, "X-Request-Id: my-request-42")
	if got := r.header.Get("X-Request-Id"); got != "my-request-42" {
		t.Errorf("X-Request-Id = %q, want the client's", got)
	}
	r = e.do("GET", "/v1/nothing-here", nil)
	r.want(t, 404)
	gen := r.header.Get("X-Request-Id")
	if len(gen) < 16 {
		t.Errorf("generated X-Request-Id = %q", gen)
	}
	if r2 := e.do("GET", "/healthz", nil); r2.header.Get("X-Request-Id") == gen || r2.header.Get("X-Request-Id") == "" {
		t.Errorf("second generated id %q (first %q)", r2.header.Get("X-Request-Id"), gen)
	}
	for _, id := range []string{"my-request-42", gen} {
		testenv.WaitFor(t, "the request's log line", 5*time.Second, func() bool {
			for line := range strings.Lines(e.logs.String()) {
				var rec map[string]any
				if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "http request" && rec["request_id"] == id {
					return rec["status"] != nil && rec["path"] != nil
				}
			}
			return false
		})
	}
}

// TestToken: with a token, every endpoint but the probes wants it (401 without or with
// another), compared in full, its scheme in any case; the token never shows in the log.
func TestToken(t *testing.T) {
	t.Parallel()
	const token = "tok-Zq8Rr3Ss9"
	e := start(t, setup{opts: api.Options{Token: token}})
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + token + "x", "Bearer " + token[:len(token)-1], token} {
		r := e.do("GET", "/v1/tools", nil, "Authorization: "+auth)
		r.want(t, 401)
		if code, _, _ := r.errorOf(t); code != "unauthorized" {
			t.Errorf("Authorization %q: code %s", auth, code)
		}
		if r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("401 without WWW-Authenticate")
		}
	}
	e.do("GET", "/v1/tools", nil).want(t, 200, "current_time")
	// The scheme in any case (RFC 7235), and more than one space after it.
	for _, auth := range []string{"bearer " + token, "BEARER " + token, "bEaReR " + token, "Bearer   " + token} {
		e.do("GET", "/v1/tools", nil, "Authorization: "+auth).want(t, 200, "current_time")
	}
	for _, auth := range []string{"Basic " + token, "Bearer" + token, "Bearer"} {
		e.do("GET", "/v1/tools", nil, "Authorization: "+auth).want(t, 401)
	}
	e.do("POST", "/v1/tools/current_time/call", `{"arguments": {"zone": "UTC"}}`, "Authorization: ").want(t, 401)
	if strings.Contains(e.logs.String(), token) {
		t.Errorf("the log shows the token")
	}
}

// TestHostAndOrigin: a loopback listener refuses a Host that is not loopback (DNS
// rebinding) and cross-origin POSTs; CORS headers come only for the configured origin,
// which may also POST and gets its preflight answered.
func TestHostAndOrigin(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{CORSOrigin: "http://app.example"}})
	e.do("GET", "/v1/servers", nil, "Host: evil.example:7300").want(t, 403, "Host")
	e.do("GET", "/healthz", nil, "Host: evil.example").want(t, 403)
	e.do("GET", "/healthz", nil, "Host: localhost:7300").want(t, 200)

	r := e.do("GET", "/v1/servers", nil, "Origin: http://other.example")
	if r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS headers for another origin")
	}
	e.do("POST", "/v1/tools/current_time/call", `{}`, "Origin: http://other.example", "Sec-Fetch-Site: cross-site").want(t, 403)

	r = e.do("GET", "/v1/servers", nil, "Origin: http://app.example")
	if r.header.Get("Access-Control-Allow-Origin") != "http://app.example" {
		t.Errorf("no CORS headers for the configured origin: %v", r.header)
	}
	r = e.do("OPTIONS", "/v1/tools/current_time/call", nil, "Origin: http://app.example", "Access-Control-Request-Method: POST", "Access-Control-Request-Headers: authorization, content-type")
	if r.status != 204 || !strings.Contains(r.header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight: %d %v", r.status, r.header)
	}
	// An Anthropic client in a browser sends its key and version in headers of its own.
	r = e.do("OPTIONS", "/v1/messages", nil, "Origin: http://app.example", "Access-Control-Request-Method: POST", "Access-Control-Request-Headers: x-api-key, anthropic-version, content-type")
	if allow := r.header.Get("Access-Control-Allow-Headers"); r.status != 204 || !strings.Contains(allow, "X-Api-Key") || !strings.Contains(allow, "Anthropic-Version") {
		t.Errorf("preflight of /v1/messages: %d %v", r.status, r.header)
	}
	e.do("POST", "/v1/tools/current_time/call", `{"arguments": {"zone": "UTC"}}`, "Origin: http://app.example", "Sec-Fetch-Site: cross-site").want(t, 200, "UTC")

	// No --cors: no CORS headers at all.
	e2 := start(t, setup{})
	r = e2.do("GET", "/v1/servers", nil, "Origin: http://app.example")
	if r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS headers without a configured origin")
	}
}

// TestServers: the list and one server (state, transport, tools, restarts, stderr
// tail), 404 for an unknown one, and a restart that brings a new process.
func TestServers(t *testing.T) {
	t.Parallel()
	ts := testserver.Stdio(t, "ts")
	e := start(t, setup{servers: []config.Server{clockServer(t), ts}})
	e.do("POST", "/v1/tools/stderr/call", `{"arguments": {"text": "a line on stderr"}}`).want(t, 200)
	var list struct {
		Servers []struct {
			Name      string   `json:"name"`
			State     string   `json:"state"`
			Transport string   `json:"transport"`
			Tools     int      `json:"tools"`
			Restarts  int      `json:"restarts"`
			Stderr    []string `json:"stderr"`
		} `json:"servers"`
	}
	e.do("GET", "/v1/servers", nil).decode(t, &list)
	if len(list.Servers) != 2 || list.Servers[0].Name != "clock" || list.Servers[1].Name != "ts" {
		t.Fatalf("servers = %+v", list.Servers)
	}
	if c := list.Servers[0]; c.State != "ready" || c.Transport != "stdio" || c.Tools != 3 {
		t.Errorf("clock = %+v", c)
	}
	testenv.WaitFor(t, "the stderr line in the server's status", 10*time.Second, func() bool {
		return strings.Contains(e.do("GET", "/v1/servers/ts", nil).body, "a line on stderr")
	})
	r := e.do("GET", "/v1/servers/clok", nil)
	r.want(t, 404)
	if code, msg, names := r.errorOf(t); code != "not_found" || !strings.Contains(msg, `"clok"`) || !slices.Contains(names, "clock") {
		t.Errorf("unknown server: %s %s %v", code, msg, names)
	}
	e.do("POST", "/v1/servers/clok/restart", nil).want(t, 404)

	pid := callText(t, e, "pid", `{}`)
	e.do("POST", "/v1/servers/ts/restart", nil).want(t, 202, `"name": "ts"`)
	testenv.WaitFor(t, "ts ready again", 15*time.Second, func() bool {
		return strings.Contains(e.do("GET", "/v1/servers/ts", nil).body, `"state": "ready"`)
	})
	if again := callText(t, e, "pid", `{}`); again == pid {
		t.Errorf("the same pid %s after a restart", pid)
	}
}

// callText calls a tool that must succeed and returns its text.
func callText(t *testing.T, e *env, name, body string) string {
	t.Helper()
	var res struct {
		Text    string `json:"text"`
		IsError bool   `json:"isError"`
	}
	r := e.do("POST", "/v1/tools/"+name+"/call", body)
	r.want(t, 200)
	r.decode(t, &res)
	if res.IsError {
		t.Fatalf("%s failed: %s", name, res.Text)
	}
	return res.Text
}

// TestTools: the catalog in each format, a call's result with its parts, a tool's
// failure (200, isError), an unknown tool (404 with suggestions), and the request
// errors: malformed JSON with its offset, wrong types, unknown fields, arguments that
// are not an object, a body over the limit.
func TestTools(t *testing.T) {
	t.Parallel()
	e := start(t, setup{servers: []config.Server{clockServer(t), testserver.Stdio(t, "ts")}, opts: api.Options{MaxRequestBytes: 1 << 10}})
	var plain []apiwire.ToolInfo
	e.do("GET", "/v1/tools", nil).decode(t, &plain)
	if len(plain) != 3+len(tsTools) || plain[0].Server != "clock" || len(plain[0].InputSchema) == 0 {
		t.Errorf("GET /v1/tools = %d tools: %+v", len(plain), plain[:1])
	}
	for format, key := range map[string]string{"mcp": `"inputSchema"`, "openai": `"function"`, "openai-responses": `"parameters"`, "anthropic": `"input_schema"`} {
		e.do("GET", "/v1/tools?format="+format, nil).want(t, 200, key, "convert_time")
	}
	e.do("GET", "/v1/tools?format=openai&strict=1", nil).want(t, 200, `"strict": true`)
	e.do("GET", "/v1/tools?format=gemini", nil).want(t, 400, "format")
	e.do("GET", "/v1/tools?format=anthropic&strict=1", nil).want(t, 400, "strict")

	var res struct {
		Text              string            `json:"text"`
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	r := e.do("POST", "/v1/tools/convert_time/call", `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}`)
	r.want(t, 200)
	r.decode(t, &res)
	if !strings.Contains(res.Text, "2026-01-02T12:04:05+09:00") || len(res.Content) == 0 || res.IsError {
		t.Errorf("convert_time = %s", r)
	}
	r = e.do("POST", "/v1/tools/fail/call", nil) // no body: no arguments
	r.want(t, 200, `"isError": true`, "failure requested")

	r = e.do("POST", "/v1/tools/convert_tim/call", `{}`)
	r.want(t, 404)
	if code, msg, sugg := r.errorOf(t); code != "unknown_tool" || !strings.Contains(msg, "convert_tim") || !slices.Contains(sugg, "convert_time") {
		t.Errorf("unknown tool: %s %q %v", code, msg, sugg)
	}

	for _, c := range []struct{ body, want string }{
		{`{"arguments": {"zone": "UTC"`, "offset 28: unexpected end"},
		{`{"arguments": {"zone": "UTC"}} x`, "offset 31: data after the object"},
		{`{"arguments": {"zone": 'UTC'}}`, "offset 23: invalid character '\\''"},
		{`{"arguments": [1]}`, `"arguments" must be a JSON object`},
		{`{"args": {}}`, `unknown field "args"`},
		{`[1, 2]`, "want an object"},
		// Refused before any server sees it: a stdio server dies on 1,000 levels.
		{`{"arguments": {"zone": ` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}}`, "arguments nested deeper than 64 levels"},
	} {
		r := e.do("POST", "/v1/tools/current_time/call", c.body)
		r.want(t, 400)
		if _, msg, _ := r.errorOf(t); !strings.Contains(msg, c.want) {
			t.Errorf("body %s: message %q, want %q in it", c.body, msg, c.want)
		}
	}
	big := `{"arguments": {"text": "` + strings.Repeat("x", 2<<10) + `"}}`
	r = e.do("POST", "/v1/tools/echo/call", big)
	r.want(t, 413)
	if code, msg, _ := r.errorOf(t); code != "too_large" || !strings.Contains(msg, "1024 bytes") {
		t.Errorf("413: %s %s", code, msg)
	}
}

// tsTools are the testserver's tools (see internal/testserver).
var tsTools = []string{"echo", "add", "sleep", "fail", "big", "log", "pid", "add_tool", "add_tool_later", "remove_tool", "crash", "stderr"}

// TestSearch: ranked and regex searches over the catalog, kept up to date as servers
// come and go, and 400 for what the search tools refuse.
func TestSearch(t *testing.T) {
	t.Parallel()
	e := start(t, setup{})
	var found struct {
		Results []struct {
			Name   string  `json:"name"`
			Server string  `json:"server"`
			Score  float64 `json:"score"`
		} `json:"results"`
	}
	e.do("GET", "/v1/search?q=convert+a+time+to+another+zone&limit=1", nil).decode(t, &found)
	if len(found.Results) != 1 || found.Results[0].Name != "convert_time" || found.Results[0].Server != "clock" {
		t.Errorf("search = %+v", found.Results)
	}
	found.Results = nil
	e.do("GET", "/v1/search?q=^add_&regex=1", nil).decode(t, &found)
	if len(found.Results) != 1 || found.Results[0].Name != "add_duration" {
		t.Errorf("regex search = %+v", found.Results)
	}
	e.do("GET", "/v1/search?q=(&regex=1", nil).want(t, 400)
	e.do("GET", "/v1/search?q=time&limit=many", nil).want(t, 400, "limit")
	// limit is 1 to 50, as documented: 0 is not quietly the default.
	for _, l := range []string{"0", "-1", "51"} {
		e.do("GET", "/v1/search?q=time&limit="+l, nil).want(t, 400, "limit="+l, "from 1 to 50")
		e.do("GET", "/v1/search?q=time&regex=1&limit="+l, nil).want(t, 400, "limit="+l, "from 1 to 50")
	}
	e.do("GET", "/v1/search?q=time&limit=50", nil).want(t, 200, "current_time")
	e.do("GET", "/v1/search?q=time&regex=maybe", nil).want(t, 400, "regex")
	e.do("GET", "/v1/search", nil).want(t, 400)

	// A server added later is found: the index follows the catalog.
	if err := e.hub.Add(testserver.Stdio(t, "ts", "--tools", "frobnicate_widget")); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "the new tool in search results", 15*time.Second, func() bool {
		return strings.Contains(e.do("GET", "/v1/search?q=frobnicate+widget", nil).body, "frobnicate_widget")
	})
}

// TestNotFoundRoute: an unknown path is a JSON 404.
func TestNotFoundRoute(t *testing.T) {
	t.Parallel()
	e := start(t, setup{})
	r := e.do("GET", "/v2/whatever", nil)
	r.want(t, 404)
	if code, _, _ := r.errorOf(t); code != "not_found" {
		t.Errorf("code %s", code)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	_ = http.StatusOK
}
