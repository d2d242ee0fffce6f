package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestServeSignIn: serve behind a proxy (--public-url) signs in to a server that
// asks for it over its API: the authorization URL's redirect comes back to the public
// URL's /oauth/callback, which the proxy passes on to serve (its Host too, which serve
// takes on loopback as --public-url's); the server is then ready
// and its tools answer. A --public-url that is no URL a browser can reach is refused
// with exit 2.
func TestServeSignIn(t *testing.T) {
	t.Parallel()
	fa := fakeauth.Start(t, nil)
	s := newSandbox(t)
	r := s.run("serve", "--addr", "127.0.0.1:0", "--store", "memory", "--public-url", "switchboard.example.com")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, `--public-url "switchboard.example.com" is not a URL browsers can reach the service at`)

	cfg := s.writeConfig("mcp.json", `{"mcpServers": {"notes": {"type": "http", "url": "`+fa.MCPURL+`"}}}`)
	const public = "https://switchboard.example.com/sb"
	p := startServe(t, s, cfg, "", "--store", "memory", "--public-url", public+"/")
	testenv.WaitFor(t, "notes needing a sign-in", 30*time.Second, func() bool {
		_, body := p.do(t, "GET", "/v1/servers/notes", "")
		return strings.Contains(body, `"state": "needs_sign_in"`)
	})
	// The state's error names the ways serve offers, not only the command.
	_, body := p.do(t, "GET", "/v1/servers/notes", "")
	if want := `"error": "server notes needs a sign-in: an admin signs it in with the dashboard's Sign in button, or runs 'switchboard login notes' with the service's data directory"`; !strings.Contains(body, want) {
		t.Errorf("GET /v1/servers/notes: %s\nwant %s", body, want)
	}
	// The person's browser asks for the sign-in at the public URL (the dashboard's
	// fetch, through the proxy), and keeps the cookie that binds the sign-in to it.
	noFollow := &http.Client{Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	browser, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, p.url+"/v1/servers/notes/login", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "switchboard.example.com" // as a proxy that passes its Host on sends it
	req.Header.Set("Authorization", "Bearer "+p.token)
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var login struct {
		URL string `json:"url"`
	}
	if res.StatusCode != http.StatusOK || json.Unmarshal(answer, &login) != nil {
		t.Fatalf("POST /v1/servers/notes/login: %s %s", res.Status, answer)
	}
	loginAt, _ := url.Parse(public + "/v1/servers/notes/login")
	browser.SetCookies(loginAt, res.Cookies())
	au, err := url.Parse(login.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got := au.Query().Get("redirect_uri"); got != public+"/oauth/callback" {
		t.Errorf("redirect_uri %q, want the public URL's callback", got)
	}

	// The person signs in; the authorization server sends the browser to the public
	// URL, with the cookie, and the proxy there passes the request on to serve.
	res, err = noFollow.Get(login.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	back, ok := strings.CutPrefix(res.Header.Get("Location"), public)
	if !ok {
		t.Fatalf("the authorization server sends the browser to %q, want %s/…", res.Header.Get("Location"), public)
	}
	req, err = http.NewRequest(http.MethodGet, p.url+back, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "switchboard.example.com" // as a proxy that passes its Host on sends it
	callbackAt, _ := url.Parse(res.Header.Get("Location"))
	cookies := browser.Cookies(callbackAt) // what the browser sends there: Path and Secure fit
	if len(cookies) != 1 {
		t.Fatalf("the browser has %d cookies for the callback %s, want the sign-in's", len(cookies), callbackAt)
	}
	req.AddCookie(cookies[0])
	res, err = noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(page), "notes is ready with 3 tools") {
		t.Errorf("the callback's page: %s\n%s", res.Status, page)
	}
	if code, body := p.do(t, "POST", "/v1/tools/echo/call", `{"arguments": {"text": "through serve"}}`); code != 200 || !strings.Contains(body, "through serve") {
		t.Errorf("calling echo after the sign-in: %d %s", code, body)
	}
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0", code)
	}
	for _, tok := range fa.Tokens() {
		if strings.Contains(p.stderr.String(), tok) {
			t.Errorf("serve's log shows a token")
		}
	}
}
