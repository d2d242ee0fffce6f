package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/redact"
)

// auditOf has the hub of e log its audit into a buffer of its own (as serve's host
// does into the API's log), arguments included when asked.
func auditOf(e *env, arguments bool) *testenv.Buffer {
	buf := &testenv.Buffer{}
	e.hub.SetAudit(slog.New(slog.NewJSONHandler(buf, nil)), arguments)
	return buf
}

// auditLines decodes the "tool call" lines of buf.
func auditLines(t *testing.T, buf *testenv.Buffer) []map[string]any {
	t.Helper()
	return buf.LogLines(t, "tool call")
}

// wantLine fails unless line has every attribute of want.
func wantLine(t *testing.T, what string, line map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if line[k] != v {
			t.Errorf("%s: %s = %v, want %v (line %v)", what, k, line[k], v, line)
		}
	}
}

// mcpClient connects to e's gateway at /mcp with the bearer token tok.
func mcpClient(t *testing.T, e *env, tok string) *mcp.ClientSession {
	t.Helper()
	return mcpClientVersion(t, e, tok, "")
}

// mcpClientVersion is mcpClient asking for protocol version ("": the SDK's newest,
// 2026-07-28, which has no sessions).
func mcpClientVersion(t *testing.T, e *env, tok, version string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := mcp.NewClient(&mcp.Implementation{Name: "audit-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.url + "/mcp",
		HTTPClient: &http.Client{Transport: headerRT{"Bearer " + tok, tr}}, MaxRetries: -1}, sessionOptions(version))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func sessionOptions(version string) *mcp.ClientSessionOptions {
	if version == "" {
		return nil
	}
	return &mcp.ClientSessionOptions{ProtocolVersion: version}
}

// TestAuditPaths: a tool call on each path of the API is one audit line with the
// person who made it: POST /v1/tools/{name}/call (with its request id), a session's
// turn (with the session), a chat completion, and an MCP client's tools/call at
// /mcp through the API. The arguments are not in it by default. Another person
// cannot use an MCP session opened by someone else, so its calls are always its
// opener's.
func TestAuditPaths(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, gateway: true, opts: api.Options{Identify: testPeople}})
	audit := auditOf(e, false)
	const args = `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}`

	r := e.do("POST", "/v1/tools/convert_time/call", args, "Authorization: Bearer alice-token", "X-Request-Id: req-alice-1")
	r.want(t, 200, `"isError": false`)
	lines := auditLines(t, audit)
	if len(lines) != 1 {
		t.Fatalf("%d audit lines after one call:\n%s", len(lines), audit)
	}
	wantLine(t, "API call", lines[0], map[string]any{"msg": "tool call", "level": "INFO", "subject": "alice", "server": "clock",
		"tool": "convert_time", "original_name": "convert_time", "outcome": "ok", "request_id": "req-alice-1"})

	// A session's turn, bob's.
	var s struct {
		ID string `json:"id"`
	}
	r = e.do("POST", "/v1/sessions", nil, "Authorization: Bearer bob-token")
	r.want(t, 201)
	r.decode(t, &s)
	e.do("POST", "/v1/sessions/"+s.ID+"/messages", map[string]any{"content": convertCall}, "Authorization: Bearer bob-token").want(t, 200, "+09:00")
	lines = auditLines(t, audit)
	if len(lines) != 2 {
		t.Fatalf("%d audit lines after two calls:\n%s", len(lines), audit)
	}
	wantLine(t, "session turn", lines[1], map[string]any{"subject": "bob", "server": "clock", "tool": "convert_time", "outcome": "ok", "session": s.ID})
	if id, _ := lines[1]["request_id"].(string); id == "" {
		t.Errorf("session turn: no request id: %v", lines[1])
	}

	// A chat completion, carol's (an admin).
	oc := openAIClient(e, "carol-token")
	res, err := oc.Chat.Completions.New(chatCtx(t), openai.ChatCompletionNewParams{
		Model: "any", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(convertCall)},
	})
	if err != nil || !strings.Contains(res.Choices[0].Message.Content, "+09:00") {
		t.Fatalf("chat completion: %v %+v", err, res)
	}
	lines = auditLines(t, audit)
	if len(lines) != 3 {
		t.Fatalf("%d audit lines after three calls:\n%s", len(lines), audit)
	}
	wantLine(t, "chat completion", lines[2], map[string]any{"subject": "carol", "admin": true, "tool": "convert_time", "outcome": "ok"})

	// An MCP client at /mcp, alice's.
	cs := mcpClient(t, e, "alice-token")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cr, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "convert_time", Arguments: map[string]any{"time": "2026-01-02T03:04:05Z", "to": "Mars/Olympus_Mons"}})
	if err != nil || !cr.IsError {
		t.Fatalf("call through /mcp: %v %+v", err, cr)
	}
	lines = auditLines(t, audit)
	if len(lines) != 4 {
		t.Fatalf("%d audit lines after four calls:\n%s", len(lines), audit)
	}
	wantLine(t, "gateway call", lines[3], map[string]any{"subject": "alice", "server": "clock", "tool": "convert_time", "outcome": "error"})

	// Bob cannot call on alice's MCP session (a 2025-11-25 one: 2026-07-28 has none).
	older := mcpClientVersion(t, e, "alice-token", "2025-11-25")
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"convert_time","arguments":{"time":"2026-01-02T03:04:05Z","to":"Asia/Tokyo"}}}`
	r = e.do("POST", "/mcp", body, "Authorization: Bearer bob-token", "Mcp-Session-Id: "+older.ID(),
		"Content-Type: application/json", "Accept: application/json, text/event-stream", "Mcp-Protocol-Version: 2025-11-25")
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "session user mismatch") {
		t.Errorf("bob on alice's MCP session: %d %s, want 403 session user mismatch", r.status, r)
	}
	if n := len(auditLines(t, audit)); n != 4 {
		t.Errorf("%d audit lines after bob's refused call, want still 4:\n%s", n, audit)
	}

	for i, l := range auditLines(t, audit) {
		if _, ok := l["arguments"]; ok {
			t.Errorf("line %d: arguments logged though not asked for: %v", i, l)
		}
		if _, ok := l["duration_ms"].(float64); !ok {
			t.Errorf("line %d: no duration_ms: %v", i, l)
		}
	}
}

// TestAuditArguments: asked for, a call's arguments are in its audit line, with the
// secrets the hub's redactor knows masked.
func TestAuditArguments(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{Identify: testPeople}})
	const secret = "zone-secret-Qm41x"
	e.hub.Redactor().Add(secret)
	audit := auditOf(e, true)
	e.do("POST", "/v1/tools/convert_time/call", `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "`+secret+`"}}`,
		"Authorization: Bearer alice-token").want(t, 200, `"isError": true`)
	lines := auditLines(t, audit)
	if len(lines) != 1 {
		t.Fatalf("%d audit lines after one call:\n%s", len(lines), audit)
	}
	wantLine(t, "call", lines[0], map[string]any{"subject": "alice", "outcome": "error",
		"arguments": `{"time": "2026-01-02T03:04:05Z", "to": "` + redact.Mask + `"}`}) // as sent, masked
	if strings.Contains(audit.String(), secret) || strings.Contains(e.logs.String(), secret) {
		t.Errorf("a log shows the secret:\n%s\n%s", audit, e.logs)
	}
}

// TestMetricsWithoutSubjects: the metrics never name who made a call or a request.
func TestMetricsWithoutSubjects(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{Identify: testPeople}})
	for _, tok := range []string{"alice-token", "bob-token"} {
		e.do("POST", "/v1/tools/convert_time/call", `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}`,
			"Authorization: Bearer "+tok).want(t, 200, `"isError": false`)
		e.do("GET", "/v1/servers", nil, "Authorization: Bearer "+tok).want(t, 200)
	}
	r := e.do("GET", "/metrics", nil, "Authorization: Bearer carol-token")
	r.want(t, 200, `switchboard_tool_calls_total{outcome="ok",server="clock",tool="convert_time"} 2`)
	for _, subject := range []string{"alice", "bob"} {
		if strings.Contains(r.body, subject) {
			t.Errorf("the metrics name %q:\n%s", subject, r.body)
		}
	}
}

// TestAuditRefused: a call the API refuses before it reaches a server (an unknown
// tool: 404; arguments nested too deep: 400) still leaves its audit line, outcome
// refused, with the person who made it.
func TestAuditRefused(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{Identify: testPeople}})
	audit := auditOf(e, false)
	e.do("POST", "/v1/tools/no_such_tool/call", `{"arguments": {}}`, "Authorization: Bearer alice-token").want(t, 404, "unknown_tool")
	deep := `{"arguments": {"a": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`
	e.do("POST", "/v1/tools/convert_time/call", deep, "Authorization: Bearer bob-token").want(t, 400, "bad_request")
	lines := auditLines(t, audit)
	if len(lines) != 2 {
		t.Fatalf("%d audit lines after two refused calls, want 2:\n%s", len(lines), audit)
	}
	wantLine(t, "unknown tool", lines[0], map[string]any{"subject": "alice", "tool": "no_such_tool", "outcome": "refused"})
	wantLine(t, "too deep", lines[1], map[string]any{"subject": "bob", "tool": "convert_time", "outcome": "refused"})
}
