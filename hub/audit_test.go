//go:build unix

package hub_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/redact"
)

// auditLines are the "tool call" lines of a JSON log, decoded.
func auditLines(t *testing.T, logs *testenv.Buffer) []map[string]any {
	t.Helper()
	return logs.LogLines(t, "tool call")
}

// TestAudit: with SetAudit every call through the hub is one "tool call" line with
// its caller's subject, the server, both names of the tool, its duration and
// outcome, the attributes of WithAuditAttrs; the arguments only when asked for, with
// the config's secrets masked and a long one cut.
func TestAudit(t *testing.T) {
	t.Parallel()
	const secret = "vault-key-Hu72pQe"
	srv := testserver.Stdio(t, "vault")
	srv.Env = map[string]string{"VAULT_KEY": secret}
	h, _ := startHub(t, cfgOf(srv), nil)

	logs := &testenv.Buffer{}
	h.SetAudit(slog.New(slog.NewJSONHandler(logs, nil)), false)
	alice := identity.NewContext(context.Background(), identity.Person{Subject: "alice"})
	ctx, cancel := context.WithTimeout(hub.WithAuditAttrs(alice, slog.String("request_id", "r-1")), 30*time.Second)
	defer cancel()
	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	calls := []struct {
		ctx  context.Context
		name string
		args string
	}{
		{ctx, "echo", `{"text":"` + secret + `"}`},
		{ctx, "fail", `{"text":"no"}`},
		{ctx, "nope", `{}`},
		{ctx, "echo", string(deepArgs(65))},
		{cancelled, "sleep", `{"ms":10000}`},
		{context.Background(), "echo", `{"text":"anonymous"}`},
	}
	for _, c := range calls {
		if _, err := h.Call(c.ctx, c.name, json.RawMessage(c.args)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	lines := auditLines(t, logs)
	if len(lines) != len(calls) {
		t.Fatalf("%d audit lines for %d calls:\n%s", len(lines), len(calls), logs)
	}
	want := []map[string]any{
		{"subject": "alice", "server": "vault", "tool": "echo", "original_name": "echo", "outcome": "ok", "request_id": "r-1", "level": "INFO"},
		{"subject": "alice", "server": "vault", "tool": "fail", "outcome": "error"},
		{"subject": "alice", "tool": "nope", "outcome": "refused"},
		{"subject": "alice", "server": "vault", "tool": "echo", "outcome": "refused"},
		{"server": "vault", "tool": "sleep", "outcome": "cancelled"},
		{"server": "vault", "tool": "echo", "outcome": "ok"},
	}
	for i, w := range want {
		for k, v := range w {
			if lines[i][k] != v {
				t.Errorf("line %d: %s = %v, want %v: %v", i, k, lines[i][k], v, lines[i])
			}
		}
		if _, ok := lines[i]["duration_ms"].(float64); !ok {
			t.Errorf("line %d: no duration_ms: %v", i, lines[i])
		}
		if _, ok := lines[i]["arguments"]; ok {
			t.Errorf("line %d: arguments logged though not asked for: %v", i, lines[i])
		}
	}
	for _, i := range []int{4, 5} {
		if _, ok := lines[i]["subject"]; ok {
			t.Errorf("line %d: a subject without a person: %v", i, lines[i])
		}
	}
	if _, ok := lines[2]["server"]; ok {
		t.Errorf("an unknown tool's line names a server: %v", lines[2])
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the audit shows the secret:\n%s", logs)
	}

	// Arguments asked for: there, masked, and cut when long.
	logs = &testenv.Buffer{}
	h.SetAudit(slog.New(slog.NewJSONHandler(logs, nil)), true)
	long := strings.Repeat("x", 3*hub.MaxAuditArguments)
	for _, args := range []string{`{"text":"the key is ` + secret + `"}`, `{"text":"` + long + `"}`} {
		if _, err := h.Call(ctx, "echo", json.RawMessage(args)); err != nil {
			t.Fatal(err)
		}
	}
	lines = auditLines(t, logs)
	if len(lines) != 2 {
		t.Fatalf("%d audit lines for 2 calls:\n%s", len(lines), logs)
	}
	if got := lines[0]["arguments"]; got != `{"text":"the key is `+redact.Mask+`"}` {
		t.Errorf("arguments %v, want them with the secret masked", got)
	}
	if got, _ := lines[1]["arguments"].(string); len(got) > hub.MaxAuditArguments+16 || !strings.HasPrefix(got, `{"text":"xxx`) {
		t.Errorf("long arguments logged as %d bytes, want them cut at %d", len(got), hub.MaxAuditArguments)
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the audit shows the secret:\n%s", logs)
	}

	// Stopped: no more lines.
	h.SetAudit(nil, false)
	if _, err := h.Call(ctx, "echo", json.RawMessage(`{"text":"quiet"}`)); err != nil {
		t.Fatal(err)
	}
	if n := len(auditLines(t, logs)); n != 2 {
		t.Errorf("%d audit lines after SetAudit(nil), want still 2", n)
	}
}
