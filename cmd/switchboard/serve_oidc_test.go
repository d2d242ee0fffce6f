package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/fakeidp"
)

func startIdP(t *testing.T, opts *fakeidp.Options) *fakeidp.Provider {
	t.Helper()
	idp, err := fakeidp.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idp.Close() })
	return idp
}

// ask sends GET path with "Authorization: Bearer token" (none when ""), and returns
// the status, the WWW-Authenticate header and the body.
func (p *serveProc) ask(t *testing.T, path, token string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("GET", p.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Minute}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, p.stderr.String())
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("WWW-Authenticate"), string(b)
}

// TestServeOIDC: serve --oidc-issuer --oidc-audience takes the provider's tokens and
// no others (401 saying why, with the resource metadata's URL, never the token),
// /v1/me names the person, the static token is an admin, the probes and the
// resource metadata need nothing; the tokens never show in the log.
func TestServeOIDC(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	s := newSandbox(t)
	p := startServe(t, s, "", "tok-static-Oo3", "--store", "memory", "--oidc-issuer", idp.Issuer, "--oidc-audience", "switchboard")

	alice := idp.Mint(map[string]any{"sub": "alice", "name": "Alice"})
	expired := idp.Mint(map[string]any{"exp": time.Now().Add(-time.Hour).Unix()})
	wrongAud := idp.Mint(map[string]any{"aud": "another-service"})
	challenge := `Bearer resource_metadata="` + p.url + `/.well-known/oauth-protected-resource"`
	for _, c := range []struct {
		name, path, token string
		status            int
		says              string
	}{
		{"no token", "/v1/me", "", 401, "no bearer token"},
		{"expired", "/v1/servers", expired, 401, "expired"},
		{"wrong audience", "/v1/me", wrongAud, 401, "another service"},
		{"forged", "/v1/me", idp.Forge(map[string]any{"sub": "alice"}), 401, "does not publish"},
		{"alice", "/v1/me", alice, 200, `"subject": "alice"`},
		{"alice's servers", "/v1/servers", alice, 200, `"clock"`},
		{"static token", "/v1/me", "tok-static-Oo3", 200, `"admin": true`},
		{"probe", "/healthz", "", 200, ""},
		{"resource metadata", "/.well-known/oauth-protected-resource", "", 200, `"authorization_servers": [` + "\n" + `    "` + idp.Issuer + `"`},
	} {
		code, www, body := p.ask(t, c.path, c.token)
		if code != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s: GET %s = %d %s, want %d saying %q", c.name, c.path, code, body, c.status, c.says)
		}
		if code == 401 && www != challenge {
			t.Errorf("%s: WWW-Authenticate = %q, want %q", c.name, www, challenge)
		}
		if c.token != "" && code == 401 && strings.Contains(body, c.token) {
			t.Errorf("%s: the 401 quotes the token", c.name)
		}
	}
	_, _, body := p.ask(t, "/v1/me", alice)
	var me struct {
		Subject, Name string
		Admin         bool
	}
	decodeJSON(t, body, &me)
	if me.Subject != "alice" || me.Name != "Alice" || me.Admin {
		t.Errorf("/v1/me = %s", body)
	}
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), idp.Issuer) {
		t.Errorf("the log does not name the issuer:\n%s", p.stderr.String())
	}
	for _, tok := range []string{alice, expired, wrongAud, "tok-static-Oo3"} {
		if strings.Contains(p.stderr.String(), tok) {
			t.Errorf("the log shows a token")
		}
	}
}

// TestServeOIDCConfig: the config's "serve": {"auth"} alone sets the provider up,
// with its admins and admin claim; with it, serve listens beyond loopback without a
// token.
func TestServeOIDCConfig(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	s := newSandbox(t)
	auth, err := json.Marshal(map[string]any{"issuer": idp.Issuer, "audience": "switchboard", "admins": []string{"root"}, "adminClaim": "groups=sb-admins"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {"clock": `+demoEntry(t, "clock")+`}, "switchboard": {"serve": {"auth": `+string(auth)+`}}}`)
	p := startServe(t, s, cfg, "", "--store", "memory")
	for _, c := range []struct {
		claims map[string]any
		admin  bool
	}{
		{map[string]any{"sub": "root"}, true},
		{map[string]any{"sub": "erin", "groups": []string{"staff", "sb-admins"}}, true},
		{map[string]any{"sub": "bob", "groups": []string{"staff"}}, false},
	} {
		code, _, body := p.ask(t, "/v1/me", idp.Mint(c.claims))
		var me struct{ Admin bool }
		if code != 200 {
			t.Fatalf("/v1/me of %v: %d %s", c.claims, code, body)
		}
		decodeJSON(t, body, &me)
		if me.Admin != c.admin {
			t.Errorf("/v1/me of %v = %s, want admin %v", c.claims, body, c.admin)
		}
	}
	if code, _, _ := p.ask(t, "/v1/me", ""); code != 401 {
		t.Errorf("/v1/me without a token: %d, want 401", code)
	}
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}

	// Beyond loopback, the provider is enough (no token).
	wide := startServe(t, s, cfg, "", "--store", "memory", "--addr", "0.0.0.0:0")
	if code := wide.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, wide.stderr.String())
	}
}

// TestServeOIDCUsage: one of the two flags alone, or an issuer that is not a URL a
// provider can have, is exit 2; a provider that cannot be reached is exit 1 naming
// its issuer, before serve listens.
func TestServeOIDCUsage(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--store", "memory", "--oidc-issuer", "https://login.example.com"}, "--oidc-issuer and --oidc-audience go together"},
		{[]string{"serve", "--store", "memory", "--oidc-audience", "switchboard"}, "--oidc-issuer and --oidc-audience go together"},
		{[]string{"serve", "--store", "memory", "--oidc-issuer", "http://login.example.com", "--oidc-audience", "switchboard"}, "--oidc-issuer: want an https URL"},
	} {
		r := s.run(c.args...)
		r.wantCode(t, exitUsage)
		r.wantStderr(t, c.want)
	}
	gone := startIdP(t, nil)
	issuer := gone.Issuer
	gone.Close()
	r := s.run("serve", "--addr", "127.0.0.1:0", "--store", "memory", "--oidc-issuer", issuer, "--oidc-audience", "switchboard")
	r.wantCode(t, exitFailed)
	r.wantStderr(t, "the OpenID provider "+issuer)
	if strings.Contains(r.stderr, `"serving"`) || strings.Contains(r.stderr, "msg=serving") {
		t.Errorf("serve served without its provider:\n%s", r.stderr)
	}
}
