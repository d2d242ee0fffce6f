//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestServeAuditAndLimits: the API host.API assembles takes "serve.audit" and
// "serve.limits" from the config: each call is an audit line, with its arguments
// when asked for, and a second request in a minute, past a bound of one, is 429.
func TestServeAuditAndLimits(t *testing.T) {
	logs := &testenv.Buffer{}
	cfg := &config.Config{Servers: []config.Server{testserver.Stdio(t, "ts")}}
	cfg.Settings.Serve.Audit.Arguments = true
	cfg.Settings.Serve.Limits.RequestsPerMinute = 1
	h := host.New(cfg, &host.Options{
		Logger:   slog.New(slog.NewJSONHandler(logs, nil)),
		Sessions: &config.SessionSettings{Store: "memory"},
	})
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	srv, err := h.API(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := serveAPI(t, srv)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	call := func() (int, string) {
		res, err := client.Post(base+"/v1/tools/echo/call", "application/json", strings.NewReader(`{"arguments": {"text": "audited"}}`))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		_, _ = io.Copy(io.Discard, res.Body)
		return res.StatusCode, res.Header.Get("Retry-After")
	}
	if code, _ := call(); code != http.StatusOK {
		t.Fatalf("first call: %d", code)
	}
	if code, retry := call(); code != http.StatusTooManyRequests || retry == "" {
		t.Errorf("second call in a minute: %d, Retry-After %q; want 429 with it", code, retry)
	}
	var line map[string]any
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `"msg":"tool call"`) {
			if line != nil {
				t.Errorf("a second audit line: %s", l)
			}
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatal(err)
			}
		}
	}
	if line == nil || line["tool"] != "echo" || line["outcome"] != "ok" || line["arguments"] != `{"text": "audited"}` {
		t.Errorf("audit line %v, want echo's with its arguments\n%s", line, logs)
	}
}
