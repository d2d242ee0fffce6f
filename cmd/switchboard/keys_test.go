package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// toolsOf is the sorted names of the tools tok sees: GET /v1/tools, or an MCP
// tools/list (stateless, at the 2026-07-28 revision) at an /mcp path.
func toolsOf(t *testing.T, p *serveProc, tok, path string) []string {
	t.Helper()
	var names []string
	if path == "/v1/tools" {
		code, body := p.as(t, tok, "GET", path, "")
		var tools []apiwire.ToolInfo
		if code != 200 || json.Unmarshal([]byte(body), &tools) != nil {
			t.Fatalf("GET /v1/tools: %d %s", code, body)
		}
		for _, tl := range tools {
			names = append(names, tl.Name)
		}
	} else {
		code, body := mcpList(t, p, tok, path)
		var res struct {
			Result struct {
				Tools []struct{ Name string } `json:"tools"`
			} `json:"result"`
		}
		if code != 200 || json.Unmarshal([]byte(body), &res) != nil {
			t.Fatalf("tools/list at %s: %d %s", path, code, body)
		}
		for _, tl := range res.Result.Tools {
			names = append(names, tl.Name)
		}
	}
	sort.Strings(names)
	return names
}

// mcpList connects an MCP client (the Go SDK's, at its newest revision) to the
// gateway at path with tok and lists the tools: 200 and the tools' JSON, or the
// status the connection was refused with (403 outside the caller's profiles).
func mcpList(t *testing.T, p *serveProc, tok, path string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "keys-test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: p.url + path, HTTPClient: &http.Client{Transport: authorization{"Bearer " + tok, tr}}, MaxRetries: -1,
	}, nil)
	if err == nil {
		defer cs.Close()
		var res *mcp.ListToolsResult
		if res, err = cs.ListTools(ctx, nil); err == nil {
			b, _ := json.Marshal(map[string]any{"result": res})
			return 200, string(b)
		}
	}
	if strings.Contains(err.Error(), "Forbidden") || strings.Contains(err.Error(), "403") {
		return 403, err.Error()
	}
	t.Fatalf("tools/list at %s: %v", path, err)
	return 0, ""
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

// TestServeKeys: profiles and application keys on one `serve` with an identity
// provider and its static token, kept in its SQLite store. Two people in different
// groups and a key each see and call exactly their profiles' tools through the API,
// /mcp and /mcp/{profile}; the admin makes the key (a person of the provider who is
// no admin gets 403) and lists it without its secret, and the key calls as itself
// ("key:<id>", not an admin). The key survives a restart, its last use listed; once
// revoked it is refused on its very next request. The key shows in no log line.
func TestServeKeys(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	s := newSandbox(t)
	const static = "tok-static-Kq4"
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"clock": `+demoEntry(t, "clock")+`, "notes": `+demoEntry(t, "notes")+`},
  "switchboard": {"profiles": {
    "ci":    {"servers": ["clock"], "tools": {"allow": ["convert_time"]}},
    "time":  {"servers": ["clock"], "groups": ["timekeepers"]},
    "notes": {"servers": ["notes"], "tools": {"deny": ["delete_*"]}, "groups": ["writers"]}
  }}
}`)
	args := []string{"--oidc-issuer", idp.Issuer, "--oidc-audience", "switchboard"} // the default store: SQLite in the data directory
	p := startServe(t, s, cfg, static, args...)
	p.waitHealthy(t)
	alice := idp.Mint(map[string]any{"sub": "alice", "name": "Alice", "groups": []string{"timekeepers"}})
	bob := idp.Mint(map[string]any{"sub": "bob", "groups": []string{"writers"}})

	if code, body := p.as(t, alice, "POST", "/v1/keys", `{"name": "mine", "profiles": ["ci"]}`); code != 403 {
		t.Errorf("alice's POST /v1/keys: %d %s, want 403", code, body)
	}
	if code, body := p.as(t, alice, "GET", "/v1/keys", ""); code != 403 {
		t.Errorf("alice's GET /v1/keys: %d %s, want 403", code, body)
	}
	if code, body := p.do(t, "POST", "/v1/keys", `{"name": "x", "profiles": ["nope"]}`); code != 400 || !strings.Contains(body, `no profile \"nope\"`) {
		t.Errorf("a key of a profile the config lacks: %d %s, want 400", code, body)
	}
	k := makeKey(t, p, `{"name": "ci-bot", "profiles": ["ci"]}`)
	secret := strings.TrimPrefix(k.Secret, apiwire.KeyPrefix+k.ID+"_")
	if code, body := p.do(t, "GET", "/v1/keys", ""); code != 200 || !strings.Contains(body, `"name": "ci-bot"`) || strings.Contains(body, secret) {
		t.Errorf("GET /v1/keys: %d %s", code, body)
	}
	if code, body := p.as(t, k.Secret, "GET", "/v1/me", ""); code != 200 || !strings.Contains(body, `"subject": "key:`+k.ID+`"`) || !strings.Contains(body, `"admin": false`) {
		t.Errorf("GET /v1/me with the key: %d %s", code, body)
	}

	// Each sees exactly their profiles' tools, through the API and /mcp.
	clockTools := []string{"add_duration", "convert_time", "current_time"}
	notesTools := []string{"get_note", "list_notes", "put_note", "search_notes"}
	for _, c := range []struct {
		who, tok string
		want     []string
	}{{"alice", alice, clockTools}, {"bob", bob, notesTools}, {"the key", k.Secret, []string{"convert_time"}}} {
		if got := toolsOf(t, p, c.tok, "/v1/tools"); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: GET /v1/tools = %v, want %v", c.who, got, c.want)
		}
		if got := toolsOf(t, p, c.tok, "/mcp"); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: /mcp tools/list = %v, want %v", c.who, got, c.want)
		}
	}
	if got := toolsOf(t, p, alice, "/mcp/time"); strings.Join(got, " ") != strings.Join(clockTools, " ") {
		t.Errorf("alice: /mcp/time tools/list = %v", got)
	}
	for _, c := range []struct{ who, tok, path string }{{"alice", alice, "/mcp/notes"}, {"the key", k.Secret, "/mcp/time"}} {
		if code, body := mcpList(t, p, c.tok, c.path); code != 403 {
			t.Errorf("%s at %s: %d %s, want 403", c.who, c.path, code, body)
		}
	}
	convert := `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}`
	if code, body := p.as(t, k.Secret, "POST", "/v1/tools/convert_time/call", convert); code != 200 || !strings.Contains(body, "+09:00") {
		t.Errorf("the key's call of convert_time: %d %s", code, body)
	}
	for _, c := range []struct{ who, tok, tool string }{{"the key", k.Secret, "current_time"}, {"bob", bob, "convert_time"}, {"alice", alice, "list_notes"}} {
		if code, body := p.as(t, c.tok, "POST", "/v1/tools/"+c.tool+"/call", `{"arguments": {}}`); code != 404 {
			t.Errorf("%s's call of %s, outside their profiles: %d %s, want 404", c.who, c.tool, code, body)
		}
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
  "switchboard": {"sessions": {"store": "postgres", "dsn": "${PG_DSN}"}, "profiles": {"ci": {"servers": ["clock"]}}}
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
