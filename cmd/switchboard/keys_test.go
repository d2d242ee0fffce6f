package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// as sends one request to p with the bearer token tok ("": none) and returns the
// status and the body.
func (p *serveProc) as(t *testing.T, tok, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, p.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
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

// makeKey makes an application key on p with its static token.
func makeKey(t *testing.T, p *serveProc, body string) apiwire.NewKey {
	t.Helper()
	code, out := p.do(t, "POST", "/v1/keys", body)
	if code != 201 {
		t.Fatalf("POST /v1/keys %s: %d %s", body, code, out)
	}
	var k apiwire.NewKey
	if err := json.Unmarshal([]byte(out), &k); err != nil || !strings.HasPrefix(k.Secret, apiwire.KeyPrefix) {
		t.Fatalf("POST /v1/keys answered %s (%v)", out, err)
	}
	return k
}

// TestServeKeys: application keys on one `serve` with an identity provider and its
// static token, kept in its SQLite store: the admin makes a key (a person of the
// provider who is no admin gets 403), lists it without its secret, and the key
// calls as itself ("key:<id>", not an admin). The key survives a restart, its last
// use listed; once revoked it is refused on its very next request. The key shows in
// no log line.
func TestServeKeys(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	s := newSandbox(t)
	const static = "tok-static-Kq4"
	args := []string{"--oidc-issuer", idp.Issuer, "--oidc-audience", "switchboard"} // the default store: SQLite in the data directory
	p := startServe(t, s, "", static, args...)
	p.waitHealthy(t)
	alice := idp.Mint(map[string]any{"sub": "alice", "name": "Alice"})

	if code, body := p.as(t, alice, "POST", "/v1/keys", `{"name": "mine", "profiles": ["ci"]}`); code != 403 {
		t.Errorf("alice's POST /v1/keys: %d %s, want 403", code, body)
	}
	if code, body := p.as(t, alice, "GET", "/v1/keys", ""); code != 403 {
		t.Errorf("alice's GET /v1/keys: %d %s, want 403", code, body)
	}
	k := makeKey(t, p, `{"name": "ci-bot", "profiles": ["ci"]}`)
	secret := strings.TrimPrefix(k.Secret, apiwire.KeyPrefix+k.ID+"_")
	if code, body := p.do(t, "GET", "/v1/keys", ""); code != 200 || !strings.Contains(body, `"name": "ci-bot"`) || strings.Contains(body, secret) {
		t.Errorf("GET /v1/keys: %d %s", code, body)
	}
	if code, body := p.as(t, k.Secret, "GET", "/v1/me", ""); code != 200 || !strings.Contains(body, `"subject": "key:`+k.ID+`"`) || !strings.Contains(body, `"admin": false`) {
		t.Errorf("GET /v1/me with the key: %d %s", code, body)
	}
	if code, body := p.as(t, k.Secret, "GET", "/v1/tools", ""); code != 200 || !strings.Contains(body, `"current_time"`) {
		t.Errorf("GET /v1/tools with the key: %d %s", code, body)
	}
	if code := p.stop(t); code != 0 {
		t.Fatalf("serve exited %d\n%s", code, p.stderr.String())
	}
	logs := p.stderr.String()

	// Kept across a restart.
	p = startServe(t, s, "", static, args...)
	if code, body := p.as(t, k.Secret, "GET", "/v1/me", ""); code != 200 || !strings.Contains(body, `"keyId": "`+k.ID+`"`) {
		t.Fatalf("the key after a restart: %d %s", code, body)
	}
	if code, body := p.do(t, "GET", "/v1/keys", ""); code != 200 || !strings.Contains(body, `"id": "`+k.ID+`"`) || !strings.Contains(body, `"lastUsed": `) {
		t.Errorf("GET /v1/keys after a restart: %d %s, want the key with its last use", code, body)
	}
	if code, body := p.do(t, "DELETE", "/v1/keys/"+k.ID, ""); code != 204 {
		t.Fatalf("DELETE /v1/keys/%s: %d %s", k.ID, code, body)
	}
	if code, body := p.as(t, k.Secret, "GET", "/v1/tools", ""); code != 401 || !strings.Contains(body, "unknown or revoked application key") {
		t.Errorf("the revoked key's next request: %d %s, want 401", code, body)
	}
	p.stop(t)
	if logs += p.stderr.String(); strings.Contains(logs, secret) {
		t.Errorf("a log line shows the key")
	}
}

// TestServeReplicasKeys: two `serve` replicas on one PostgreSQL share their
// application keys: a key made on A calls on B, B lists it, and revoked on B it is
// refused on A at its next request (nothing cached).
func TestServeReplicasKeys(t *testing.T) {
	t.Parallel()
	pg := testenv.OwnPostgres(t)
	s := newSandbox(t)
	s.env["PG_DSN"] = pg.DSN("pw-keys-Lm3")
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"clock": `+demoEntry(t, "clock")+`},
  "switchboard": {"sessions": {"store": "postgres", "dsn": "${PG_DSN}"}}
}`)
	const static = "tok-static-Rp8"
	a := startServe(t, s, cfg, static)
	b := startServe(t, s, cfg, static)
	a.waitHealthy(t)

	k := makeKey(t, a, `{"name": "shared-bot", "profiles": ["ci"], "expiresIn": "1d"}`)
	if code, body := b.as(t, k.Secret, "GET", "/v1/me", ""); code != 200 || !strings.Contains(body, `"subject": "key:`+k.ID+`"`) {
		t.Fatalf("A's key on B: %d %s", code, body)
	}
	if code, body := b.do(t, "GET", "/v1/keys", ""); code != 200 || !strings.Contains(body, `"name": "shared-bot"`) {
		t.Errorf("B's GET /v1/keys: %d %s, want A's key", code, body)
	}
	if code, body := a.as(t, k.Secret, "GET", "/v1/tools", ""); code != 200 {
		t.Fatalf("the key on A: %d %s", code, body)
	}
	if code, body := b.do(t, "DELETE", "/v1/keys/"+k.ID, ""); code != 204 {
		t.Fatalf("DELETE on B: %d %s", code, body)
	}
	for name, p := range map[string]*serveProc{"A": a, "B": b} {
		if code, body := p.as(t, k.Secret, "GET", "/v1/tools", ""); code != 401 || !strings.Contains(body, "unknown or revoked application key") {
			t.Errorf("the key revoked on B, on %s: %d %s, want 401", name, code, body)
		}
	}
}
