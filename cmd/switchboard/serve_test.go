package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// serveProc is a running `switchboard serve`.
type serveProc struct {
	*gatewayProc
	url   string
	token string
}

// startServe starts `switchboard --log-format json [--config cfg] serve --addr
// 127.0.0.1:0 ARGS` in s and waits for its "serving" log line, which gives its URL.
// Without a token (and a provider), the token that serve made is taken as a person
// takes it: from the dashboard's URL that it prints on stderr.
func startServe(t *testing.T, s *sandbox, cfg, token string, args ...string) *serveProc {
	t.Helper()
	all := []string{"--log-format", "json"}
	if cfg != "" {
		all = append(all, "--config", cfg)
	}
	all = append(all, "serve", "--addr", "127.0.0.1:0")
	if token != "" {
		all = append(all, "--token", token)
	}
	cmd, marker := s.command(context.Background(), append(all, args...)...)
	p := &serveProc{gatewayProc: startProc(t, cmd, marker), token: token}
	testenv.WaitFor(t, `serve's "serving" log line`, 30*time.Second, func() bool {
		select {
		case <-p.exited:
			t.Fatalf("switchboard serve exited before serving: %v\n%s", cmd.ProcessState, p.stderr.String())
		default:
		}
		for line := range strings.Lines(p.stderr.String()) {
			var rec struct {
				Msg string `json:"msg"`
				URL string `json:"url"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "serving" {
				p.url = rec.URL
				return true
			}
		}
		return false
	})
	if p.token == "" {
		p.token = dashboardToken(p.stderr.String())
	}
	return p
}

// dashboardToken is the token of the dashboard's URL that serve prints when it made
// its own token, or "".
func dashboardToken(stderr string) string {
	_, after, ok := strings.Cut(stderr, "/#token=")
	if !ok {
		return ""
	}
	tok, _, _ := strings.Cut(after, " ")
	return tok
}

// do sends one request with the token and returns the status and body.
func (p *serveProc) do(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, p.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Minute}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", method, path, err, p.stderr.String())
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// waitHealthy waits for /health to say every server is ready: the HTTP API answers
// while the servers start.
func (p *serveProc) waitHealthy(t *testing.T) {
	t.Helper()
	testenv.WaitFor(t, "every server ready", 30*time.Second, func() bool {
		_, body := p.do(t, "GET", "/health", "")
		return strings.Contains(body, `"status": "ok"`)
	})
}

// stop sends SIGTERM and returns the exit code once it and all its children are gone.
func (p *serveProc) stop(t *testing.T) int {
	t.Helper()
	return (&httpGateway{gatewayProc: p.gatewayProc}).stop(t)
}

// TestServeDemo: with no config, serve runs the demo servers: /healthz answers, /health
// lists both servers ready, a turn is 503 saying how to configure a model; SIGTERM ends
// it with exit 0 and no child left.
func TestServeDemo(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	p := startServe(t, s, "", "", "--store", "memory")
	if code, body := p.do(t, "GET", "/healthz", ""); code != 200 {
		t.Fatalf("/healthz: %d %s", code, body)
	}
	p.waitHealthy(t)
	if _, body := p.do(t, "GET", "/health", ""); !strings.Contains(body, `"clock"`) || !strings.Contains(body, `"notes"`) {
		t.Errorf("/health does not list both demo servers: %s", body)
	}
	code, body := p.do(t, "POST", "/v1/sessions", "")
	if code != 201 {
		t.Fatalf("POST /v1/sessions: %d %s", code, body)
	}
	var sess struct{ ID string }
	decodeJSON(t, body, &sess)
	code, body = p.do(t, "POST", "/v1/sessions/"+sess.ID+"/messages", `{"content": "hi"}`)
	if code != 503 || !strings.Contains(body, "no model configured") || !strings.Contains(body, "--model") {
		t.Errorf("a turn without a model: %d %s", code, body)
	}
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}
}

// TestServe: with a token and a model, the catalog in OpenAI's format is byte for
// byte what `switchboard tools --format openai` prints, a turn runs a tool on a real
// server, the probes and /health need no token but the rest does, and the token never shows in
// the log. SIGTERM: exit 0, no child left.
func TestServe(t *testing.T) {
	t.Parallel()
	const token = "tok-serve-Uu7Vv1"
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := chatConfig(t, s, "openai", fake.URL)
	p := startServe(t, s, cfg, token, "--data-dir", t.TempDir())

	bare := &serveProc{gatewayProc: p.gatewayProc, url: p.url}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/health": 200, "/v1/tools": 401} {
		if code, body := bare.do(t, "GET", path, ""); code != want {
			t.Errorf("GET %s without the token: %d, want %d: %s", path, code, want, body)
		}
	}
	p.waitHealthy(t)
	code, body := p.do(t, "GET", "/v1/tools?format=openai", "")
	r := s.run("--config", cfg, "tools", "--format", "openai")
	r.wantCode(t, exitOK)
	if code != 200 || body != r.stdout {
		t.Errorf("GET /v1/tools?format=openai (%d) differs from switchboard tools --format openai:\n%s\n---\n%s", code, body, r.stdout)
	}

	code, body = p.do(t, "POST", "/v1/sessions", `{"id": "cli-test"}`)
	if code != 201 {
		t.Fatalf("POST /v1/sessions: %d %s", code, body)
	}
	code, body = p.do(t, "POST", "/v1/sessions/cli-test/messages", `{"content": "call convert_time {\"time\": \"2026-01-02T03:04:05Z\", \"to\": \"Asia/Tokyo\"}"}`)
	if code != 200 || !strings.Contains(body, "convert_time: 2026-01-02T12:04:05+09:00") {
		t.Errorf("turn: %d %s", code, body)
	}
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}
	for _, secret := range []string{token, testKey} {
		if strings.Contains(p.stderr.String(), secret) {
			t.Errorf("the log shows a secret %q", secret[:8])
		}
	}
}

// TestServeUsage: beyond loopback without a token, an address that cannot be listened
// on, or a bad --cors is refused with exit 2 before any server starts.
func TestServeUsage(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--addr", "0.0.0.0:0"}, "--addr 0.0.0.0:0 is not a loopback address: set a bearer token in $SWITCHBOARD_TOKEN (or --token)"},
		{[]string{"serve", "--listen", "0.0.0.0:0"}, "--addr 0.0.0.0:0 is not a loopback address"}, // --listen as for mcp
		{[]string{"serve", "--addr", "127.0.0.1"}, "--addr 127.0.0.1: "},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--store", "memory", "--cors", "not an origin"}, "--cors not an origin"},
		{[]string{"serve", "--watch", "-1s"}, "--watch -1s: must be 0"},
	} {
		r := s.run(c.args...)
		r.wantCode(t, exitUsage)
		r.wantStderr(t, c.want)
	}
	// A token from the environment is enough to listen everywhere.
	s.env[tokenEnv] = "tok-env-Ww2"
	p := startServe(t, s, "", "", "--addr", "0.0.0.0:0", "--store", "memory")
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}
}

// TestServeDeferred: serve's turns run in deferred mode as configured: the model is
// shown the search tools, a search loads what it finds into the session (GET shows
// it).
func TestServeDeferred(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := chatConfig(t, s, "openai", fake.URL)
	p := startServe(t, s, cfg, "", "--store", "memory", "--deferred", "always")
	p.waitHealthy(t)
	if code, body := p.do(t, "POST", "/v1/sessions", `{"id": "d"}`); code != 201 {
		t.Fatalf("POST /v1/sessions: %d %s", code, body)
	}
	code, body := p.do(t, "POST", "/v1/sessions/d/messages", `{"content": "call tool_search {\"query\": \"time in another zone\"}"}`)
	if code != 200 || !strings.Contains(body, "convert_time (server clock)") {
		t.Fatalf("a search turn: %d %s", code, body)
	}
	if got := toolNamesOf(fake.Requests()[0]); !slices.Equal(got, []string{"tool_search", "tool_search_regex"}) {
		t.Errorf("the model was shown %v, want the search tools", got)
	}
	_, body = p.do(t, "GET", "/v1/sessions/d", "")
	var sess struct{ Loaded []string }
	decodeJSON(t, body, &sess)
	if !slices.Contains(sess.Loaded, "convert_time") {
		t.Errorf("session's loaded tools %v, want convert_time among them", sess.Loaded)
	}
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}
}

func toolNamesOf(r fakellm.Request) []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}
