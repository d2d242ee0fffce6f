package main

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestServeReplicas: two `serve` replicas on one PostgreSQL share their sessions. A
// session made and talked to on A continues on B (the model is sent A's history);
// while a turn runs on A, B answers 409 to a turn or a DELETE of that session (and
// shows the user's message already stored), and 200 once it is over. With PostgreSQL
// stopped /readyz is 503 naming the store's error, back to 200 when it is started
// again, and a turn works then. The DSN comes from the config's ${PG_DSN}: its
// password shows in no log and no probe.
func TestServeReplicas(t *testing.T) {
	t.Parallel()
	pg := testenv.OwnPostgres(t)
	const password = "pw-replicas-Qz7Rk2"
	dsn := pg.DSN(password)

	// "hold" keeps the model's answer until release: a turn that runs as long as the
	// test needs, with no timing involved.
	held := make(chan struct{}, 1)
	release := make(chan struct{})
	rules := fakellm.Rules()
	fake := fakellm.StartOpenAI(t, func(r fakellm.Request) fakellm.Reply {
		if last := r.Messages[len(r.Messages)-1]; last.Role == "user" && last.Text == "hold" {
			held <- struct{}{}
			<-release
			return fakellm.Reply{Text: "held"}
		}
		return rules(r)
	})
	var releaseOnce sync.Once
	releaseAll := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(releaseAll) // before the fake closes: it waits for its requests

	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	s.env["PG_DSN"] = dsn
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"clock": `+demoEntry(t, "clock")+`},
  "switchboard": {
    "model": {"provider": "openai", "name": "test-model", "baseURL": `+jsonString(fake.URL)+`},
    "sessions": {"store": "postgres", "dsn": "${PG_DSN}"}
  }
}`)
	a := startServe(t, s, cfg, "")
	b := startServe(t, s, cfg, "")
	for _, p := range []*serveProc{a, b} {
		if code, body := p.do(t, "GET", "/readyz", ""); code != 200 {
			t.Fatalf("/readyz of %s: %d %s", p.url, code, body)
		}
		if _, body := p.do(t, "GET", "/health", ""); !strings.Contains(body, `"store": "ok"`) {
			t.Errorf("/health of %s does not report the store ok: %s", p.url, body)
		}
	}

	// Made and talked to on A, continued on B.
	if code, body := a.do(t, "POST", "/v1/sessions", `{"id": "shared"}`); code != 201 {
		t.Fatalf("POST /v1/sessions on A: %d %s", code, body)
	}
	if code, body := a.do(t, "POST", "/v1/sessions/shared/messages", `{"content": "first words"}`); code != 200 || !strings.Contains(body, "You said: first words") {
		t.Fatalf("turn on A: %d %s", code, body)
	}
	if code, body := b.do(t, "POST", "/v1/sessions/shared/messages", `{"content": "second words"}`); code != 200 || !strings.Contains(body, "You said: second words") {
		t.Fatalf("turn on B: %d %s", code, body)
	}
	reqs := fake.Requests()
	if got := textsOf(reqs[len(reqs)-1]); len(got) != 3 || got[0] != "user: first words" ||
		!strings.HasPrefix(got[1], "assistant: You said: first words") || got[2] != "user: second words" {
		t.Errorf("B sent the model %q, want A's turn before its own", got)
	}

	// A turn held on A: B cannot take the session, nor delete it.
	type answer struct {
		code int
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", a.url+"/v1/sessions/shared/messages", strings.NewReader(`{"content": "hold"}`))
		req.Header.Set("Authorization", "Bearer "+a.token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		res.Body.Close()
		done <- answer{code: res.StatusCode}
	}()
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatalf("the held turn did not reach the model\n%s", a.stderr.String())
	}
	if code, body := b.do(t, "POST", "/v1/sessions/shared/messages", `{"content": "meanwhile"}`); code != 409 || !strings.Contains(body, `"busy"`) {
		t.Errorf("a turn on B while A's runs: %d %s, want 409 busy", code, body)
	}
	if code, body := b.do(t, "DELETE", "/v1/sessions/shared", ""); code != 409 {
		t.Errorf("DELETE on B while A's turn runs: %d %s, want 409", code, body)
	}
	if code, body := b.do(t, "GET", "/v1/sessions/shared", ""); code != 200 || !strings.Contains(body, `"hold"`) {
		t.Errorf("GET on B during A's turn: %d %s, want the user's message stored", code, body)
	}
	releaseAll()
	if got := <-done; got.err != nil || got.code != 200 {
		t.Fatalf("the held turn on A: %d %v", got.code, got.err)
	}
	if code, body := b.do(t, "POST", "/v1/sessions/shared/messages", `{"content": "after"}`); code != 200 || !strings.Contains(body, "You said: after") {
		t.Errorf("a turn on B after A's: %d %s", code, body)
	}

	// PostgreSQL away: not ready, saying why; back: ready, and turns work.
	pg.Stop()
	var body string
	testenv.WaitFor(t, "/readyz 503 with PostgreSQL stopped", 30*time.Second, func() bool {
		var code int
		code, body = a.do(t, "GET", "/readyz", "")
		return code == 503
	})
	if !strings.Contains(body, `"status": "not ready"`) || !strings.Contains(body, `"store": "session store postgres 127.0.0.1:`) {
		t.Errorf("/readyz with PostgreSQL stopped: %s", body)
	}
	if _, health := a.do(t, "GET", "/health", ""); !strings.Contains(health, `"store": "error"`) {
		t.Errorf("/health with PostgreSQL stopped: %s", health)
	}
	pg.Start()
	for _, p := range []*serveProc{a, b} {
		testenv.WaitFor(t, "/readyz 200 with PostgreSQL back", 30*time.Second, func() bool {
			code, _ := p.do(t, "GET", "/readyz", "")
			return code == 200
		})
	}
	if code, body := a.do(t, "POST", "/v1/sessions/shared/messages", `{"content": "back again"}`); code != 200 || !strings.Contains(body, "You said: back again") {
		t.Errorf("a turn on A with PostgreSQL back: %d %s", code, body)
	}

	for _, p := range []*serveProc{a, b} {
		if code := p.stop(t); code != exitOK {
			t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
		}
		if log := p.stderr.String(); strings.Contains(log, password) || strings.Contains(log, dsn) {
			t.Errorf("the log of %s shows the DSN's password", p.url)
		}
	}
	if strings.Contains(body, password) {
		t.Errorf("/readyz shows the DSN's password: %s", body)
	}
}

// textsOf is a request's conversation as "role: text" lines.
func textsOf(r fakellm.Request) []string {
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.Role+": "+m.Text)
	}
	return slices.Clip(out)
}
