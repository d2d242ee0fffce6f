package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// startHost serves the API of a host.Host over servers, as switchboard serve does
// (its sign-ins kept under a data directory of the test's), on a free loopback port
// until the test ends.
func startHost(t *testing.T, servers []config.Server, opts api.Options) *env {
	t.Helper()
	logs := &testenv.Buffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := host.New(&config.Config{Source: "<test>", Servers: servers}, &host.Options{
		Logger: log, DataDir: t.TempDir(), Sessions: &config.SessionSettings{Store: "memory"}})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := h.Start(ctx, nil); err != nil {
		h.Close()
		t.Fatalf("host start: %v", err)
	}
	srv, err := h.API(ctx, &opts)
	if err != nil {
		h.Close()
		t.Fatalf("host.API: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, url: "http://" + ln.Addr().String(), hub: h.Hub(), srv: srv, logs: logs, token: opts.Token, done: make(chan error, 1)}
	go func() { e.done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		e.shutdown(5 * time.Second)
		h.Close()
		if t.Failed() {
			t.Logf("log:\n%s", logs)
		}
	})
	return e
}

// notesServer is the fake authorization server's protected MCP server as "notes".
func notesServer(srv *fakeauth.Server) config.Server {
	return config.Server{Name: "notes", Transport: config.HTTP, URL: srv.MCPURL}
}

// login starts the sign-in of a server over the API from the browser jar (see
// loginIn) and returns its authorization URL.
func (e *env) login(jar http.CookieJar, name string) string {
	e.t.Helper()
	u, _ := e.loginIn(jar, name)
	return u
}

// authorize is the person at the authorization server: it opens authURL, which
// approves at once, and returns where it sends the browser back (the redirect,
// with the code and state), without going there.
func authorize(t *testing.T, authURL string) string {
	t.Helper()
	noFollow := &http.Client{Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("the authorization server answered %s, want a redirect", res.Status)
	}
	return res.Header.Get("Location")
}

// visit is the person's browser at a page of the service: no token, as a browser
// coming back from an authorization server has none, and the cookies of jar (nil:
// none, a browser that asked for no sign-in).
func visit(t *testing.T, jar http.CookieJar, u string) response {
	t.Helper()
	res, err := (&http.Client{Transport: client.Transport, Jar: jar, Timeout: client.Timeout}).Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}

// TestSignInOverAPI: a server that needs a sign-in is needs_sign_in; POST
// /v1/servers/{name}/login answers the authorization URL (the same one while it
// waits), whose redirect comes back to the API's own /oauth/callback; the person's
// browser brought back there completes it, the page says so, and the server's
// tools appear, announced on /v1/events. The callback takes that answer once, with a
// token of the API's or without; no token or code appears in an answer, an event,
// the metrics or the log.
func TestSignInOverAPI(t *testing.T) {
	t.Parallel()
	fa := fakeauth.Start(t, nil)
	e := startHost(t, []config.Server{clockServer(t), notesServer(fa)}, api.Options{Token: "api-token"})
	e.do("GET", "/v1/servers/notes", nil).want(t, http.StatusOK, `"state": "needs_sign_in"`)
	events := e.watch()
	var eventData []string // every event read
	for _, ev := range events.until(t, "snapshot") {
		eventData = append(eventData, ev.data)
	}

	browser := newBrowser(t)
	authURL := e.login(browser, "notes")
	au, err := url.Parse(authURL)
	if err != nil || !strings.HasPrefix(authURL, fa.Issuer+"/authorize?") {
		t.Fatalf("url %q, want the authorization server's page", authURL)
	}
	if got := au.Query().Get("redirect_uri"); got != e.url+"/oauth/callback" {
		t.Errorf("redirect_uri %q, want the API's own %s/oauth/callback", got, e.url)
	}
	if again := e.login(browser, "notes"); again != authURL {
		t.Errorf("a second login while the first waits: %q, want the same URL", again)
	}
	if n := fa.Count(fakeauth.Register); n != 1 {
		t.Errorf("%d registrations, want 1", n)
	}
	var waiting struct {
		State  string `json:"state"`
		SignIn struct {
			State string `json:"state"`
		} `json:"signIn"`
	}
	e.do("GET", "/v1/servers/notes", nil).decode(t, &waiting)
	if waiting.State != "needs_sign_in" || waiting.SignIn.State != "waiting" {
		t.Errorf("while the person signs in: %+v, want needs_sign_in with signIn waiting", waiting)
	}
	waitServerEvent(t, events, &eventData, "notes", func(ev eventServer) bool { return ev.Change == "waiting for the sign-in" })

	// Somebody who knows no state gets nothing in; the sign-in still waits.
	forged := visit(t, browser, e.url+"/oauth/callback?state=forged&code=stolen")
	forged.want(t, http.StatusBadRequest, "No sign-in waits for this answer")
	if ct := forged.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("callback page Content-Type %q", ct)
	}

	back := authorize(t, authURL)
	if !strings.HasPrefix(back, e.url+"/oauth/callback?") {
		t.Fatalf("the authorization server sends the browser to %q, want the API's callback", back)
	}
	bu, _ := url.Parse(back)
	code := bu.Query().Get("code")
	page := visit(t, browser, back)
	page.want(t, http.StatusOK, "Signed in to notes", "notes is ready with 3 tools")
	if cc := page.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("callback page Cache-Control %q, want no-store", cc)
	}
	if rp := page.header.Get("Referrer-Policy"); rp != "no-referrer" {
		t.Errorf("callback page Referrer-Policy %q, want no-referrer", rp)
	}
	ready := waitServerEvent(t, events, &eventData, "notes", func(ev eventServer) bool { return ev.State == "ready" && ev.ToolsChanged })
	if ready.Tools != 3 {
		t.Errorf("notes ready with %d tools, want 3", ready.Tools)
	}
	e.do("GET", "/v1/tools", nil).want(t, http.StatusOK, `"name": "echo"`, `"server": "notes"`)
	e.do("POST", "/v1/tools/echo/call", map[string]any{"arguments": map[string]string{"text": "hi"}}).want(t, http.StatusOK, `"text": "hi"`)
	if st := e.do("GET", "/v1/servers/notes", nil); strings.Contains(st.body, `"signIn"`) {
		t.Errorf("a server signed in still shows a sign-in: %s", st.body)
	}

	// The answer is taken once: replayed, it reaches nothing.
	visit(t, browser, back).want(t, http.StatusBadRequest, "No sign-in waits for this answer")
	if n := fa.Count(fakeauth.TokenCode); n != 1 {
		t.Errorf("%d code exchanges, want 1", n)
	}
	if p := fa.Problems(); len(p) > 0 {
		t.Errorf("the authorization server saw protocol mistakes: %v", p)
	}

	secrets := append(fa.Tokens(), code)
	var seen []string
	for _, path := range []string{"/v1/servers", "/v1/servers/notes", "/v1/tools", "/metrics", "/health", "/v1/calls"} {
		seen = append(seen, e.do("GET", path, nil).body)
	}
	seen = append(seen, eventData...)
	seen = append(seen, e.logs.String(), page.body)
	for _, s := range secrets {
		for _, text := range seen {
			if strings.Contains(text, s) {
				t.Errorf("a token or code appears in an answer, an event or the log: %.200s", text)
			}
		}
	}
}

// waitServerEvent reads the events until a "server" event of name for which ok holds,
// adding the data of every event read to seen.
func waitServerEvent(t *testing.T, s *stream, seen *[]string, name string, ok func(eventServer) bool) eventServer {
	t.Helper()
	for {
		evs := s.until(t, "server")
		for _, ev := range evs {
			*seen = append(*seen, ev.data)
		}
		last := evs[len(evs)-1]
		var srv eventServer
		if err := json.Unmarshal([]byte(last.data), &srv); err != nil {
			t.Fatalf("server event %s: %v", last.data, err)
		}
		if srv.Name == name && ok(srv) {
			return srv
		}
	}
}

// TestSignInRefused: the sign-in's answer, when it is a refusal (or says anything at
// all), is shown escaped, and the server stays needs_sign_in with the sign-in
// failed, announced on /v1/events; a sign-in nobody completes ends at
// Options.SignInTimeout the same way; a query that is no authorization answer, for
// a sign-in that waits, reaches nothing.
func TestSignInRefused(t *testing.T) {
	t.Parallel()
	fa := fakeauth.Start(t, nil)
	e := startHost(t, []config.Server{notesServer(fa)}, api.Options{SignInTimeout: 2 * time.Second})
	events := e.watch()
	var eventData []string

	browser := newBrowser(t)
	au, _ := url.Parse(e.login(browser, "notes"))
	state := au.Query().Get("state")
	visit(t, browser, e.url+"/oauth/callback?state="+url.QueryEscape(state)).want(t, http.StatusBadRequest, "No sign-in waits")
	answer := url.Values{"state": {state}, "error": {"access_denied"}, "error_description": {`<script>alert("x")</script>`}}
	page := visit(t, browser, e.url+"/oauth/callback?"+answer.Encode())
	page.want(t, http.StatusOK, "The sign-in to notes did not succeed", "access_denied")
	// The description is the authorization server's free text: the log has it, the
	// page does not, escaped or not (issue 32).
	if strings.Contains(page.body, "script") || !strings.Contains(e.logs.String(), `<script>alert(\"x\")</script>`) {
		t.Errorf("the page quotes the authorization server's description, or the log lacks it:\n%s", page.body)
	}
	failed := waitServerEvent(t, events, &eventData, "notes", func(ev eventServer) bool { return strings.HasPrefix(ev.Change, "sign-in failed") })
	if failed.State != "needs_sign_in" {
		t.Errorf("after a refused sign-in: %s, want needs_sign_in", failed.State)
	}
	var st struct {
		SignIn struct {
			State string `json:"state"`
			Error string `json:"error"`
		} `json:"signIn"`
	}
	e.do("GET", "/v1/servers/notes", nil).decode(t, &st)
	if st.SignIn.State != "failed" || !strings.Contains(st.SignIn.Error, "access_denied") {
		t.Errorf("signIn %+v, want failed with the authorization server's error", st.SignIn)
	}

	// Nobody comes back: the sign-in gives up, and says so.
	next := e.login(browser, "notes")
	if next == au.String() {
		t.Errorf("a new sign-in has the URL of the one that failed")
	}
	waitServerEvent(t, events, &eventData, "notes", func(ev eventServer) bool { return ev.Change == "waiting for the sign-in" })
	timedOut := waitServerEvent(t, events, &eventData, "notes", func(ev eventServer) bool { return strings.HasPrefix(ev.Change, "sign-in failed") })
	if !strings.Contains(timedOut.Change, "no answer from the browser within 2s") {
		t.Errorf("a sign-in nobody completed: %q, want it to say it timed out", timedOut.Change)
	}
	visit(t, browser, authorize(t, next)).want(t, http.StatusBadRequest, "No sign-in waits")
	if n := fa.Count(fakeauth.TokenCode); n != 0 {
		t.Errorf("%d code exchanges, want none", n)
	}
}

// TestSignInErrors: what the login endpoint refuses, and why; the callback at
// Options.PublicURL, whose host is taken on a loopback listener; a sign-in still
// waiting when the API shuts down ends with it.
func TestSignInErrors(t *testing.T) {
	t.Parallel()
	fa := fakeauth.Start(t, nil)
	exact := notesServer(fa)
	exact.Name, exact.OAuth = "exact", &config.OAuth{RedirectURI: "http://127.0.0.1:1/callback"}
	e := startHost(t, []config.Server{clockServer(t), notesServer(fa), exact}, api.Options{PublicURL: "https://switchboard.example.com/sb/"})

	r := e.do("POST", "/v1/servers/nope/login", nil)
	r.want(t, http.StatusNotFound)
	if code, _, sugg := r.errorOf(t); code != "not_found" || len(sugg) != 3 {
		t.Errorf("unknown server: %s, suggestions %v", code, sugg)
	}
	r = e.do("POST", "/v1/servers/clock/login", nil)
	r.want(t, http.StatusConflict)
	if code, msg, _ := r.errorOf(t); code != "no_sign_in" || !strings.Contains(msg, "server clock takes no sign-in") {
		t.Errorf("a stdio server: %s %q", code, msg)
	}
	r = e.do("POST", "/v1/servers/exact/login", nil)
	r.want(t, http.StatusBadGateway)
	if code, msg, _ := r.errorOf(t); code != "sign_in_failed" || !strings.Contains(msg, "http://127.0.0.1:1/callback") ||
		!strings.Contains(msg, "https://switchboard.example.com/sb/oauth/callback") {
		t.Errorf("a server whose config demands another redirect URI: %s %q, want both URIs named", code, msg)
	}

	// Behind a proxy: the callback is at the public URL. Nobody comes back to it
	// here: the sign-in still waits when the test ends, and Shutdown ends it.
	authURL, r := e.loginIn(newBrowser(t), "notes")
	au, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	if got := au.Query().Get("redirect_uri"); got != "https://switchboard.example.com/sb/oauth/callback" {
		t.Errorf("redirect_uri %q, want the public URL's callback", got)
	}
	// The browser sees the callback under the proxy's path, over https.
	if c := signInCookie(t, r); c.Path != "/sb/oauth/callback" || !c.Secure || !c.HttpOnly {
		t.Errorf("the sign-in's cookie %q, want Path=/sb/oauth/callback, Secure and HttpOnly", c.String())
	}

	// A proxy on the machine that passes the public host on is let in on loopback;
	// another host is still refused (DNS rebinding).
	e.do("GET", "/v1/servers", nil, "Host: switchboard.example.com").want(t, http.StatusOK)
	e.do("GET", "/v1/servers", nil, "Host: elsewhere.example.com").want(t, http.StatusForbidden, `"forbidden"`)

	if _, err := api.New(e.hub, &api.Options{PublicURL: "switchboard.example.com"}); err == nil || !strings.Contains(err.Error(), "PublicURL") {
		t.Errorf("api.New with a PublicURL without a scheme: %v, want an error naming it", err)
	}

	// Without Options.SignIn nobody signs in through the API.
	plain := start(t, setup{servers: []config.Server{notesServer(fa)}})
	plain.do("POST", "/v1/servers/notes/login", nil).want(t, http.StatusNotImplemented, `"not_supported"`)
}

// The dashboard in a real browser: a server that needs a sign-in shows a Sign in
// button; clicking it opens the authorization server's page in a tab of its own,
// which (the fake server approving at once, as a person who clicks "Allow") comes
// back to /oauth/callback and says the sign-in is done; the dashboard shows the
// server ready and its tools, live.
func TestDashboardSignIn(t *testing.T) {
	ctx := browser(t)
	fa := fakeauth.Start(t, nil)
	e := startHost(t, []config.Server{clockServer(t), notesServer(fa)}, api.Options{})
	notes := `document.querySelector('article.server[data-server="notes"]')`
	do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
	waitJS(t, ctx, "notes needing a sign-in", notes+` && `+notes+`.dataset.state === "needs_sign_in"`)
	if hidden := eval[bool](t, ctx, notes+`.querySelector('button[aria-label="Sign in to notes"]').hidden`); hidden {
		t.Fatalf("no Sign in button on a server that needs a sign-in")
	}
	if shown := eval[bool](t, ctx, `!document.querySelector('article.server[data-server="clock"] button[aria-label="Sign in to clock"]').hidden`); shown {
		t.Errorf("a Sign in button on a ready stdio server")
	}
	waitJS(t, ctx, "the clock's tools listed", `document.querySelectorAll("#tools button").length === 3`)
	screenshot(t, ctx, "needs-sign-in")

	opened := chromedp.WaitNewTarget(ctx, func(*target.Info) bool { return true })
	do(t, ctx, "clicking Sign in", chromedp.Click(chromedp.CSS(`button[aria-label="Sign in to notes"]`)))
	var id target.ID
	select {
	case id = <-opened:
	case <-time.After(20 * time.Second):
		screenshot(t, ctx, "no-tab")
		t.Fatal("clicking Sign in opened no tab")
	}
	waitJS(t, ctx, "notes ready", notes+`.dataset.state === "ready"`)
	waitJS(t, ctx, "the notes' tools listed", `document.querySelectorAll("#tools button").length === 6 && !!document.querySelector('#tools button[data-tool="echo"]')`)
	tab, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(id))
	defer cancel()
	// The tab is attached to once it has come back: attached while it goes from
	// one site to the next, chromedp loses track of its page.
	said, err := chromedp.Run(tab, chromedp.Poll[string](`location.pathname === "/oauth/callback" && document.getElementById("outcome") &&
		document.getElementById("outcome").textContent + " / " + document.getElementById("detail").textContent`,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("the callback's page: %v", err)
	}
	if said != "Signed in to notes / notes is ready with 3 tools. You can close this tab." {
		t.Errorf("the callback's page says %q", said)
	}
	screenshot(t, tab, "callback")
	if hidden := eval[bool](t, ctx, notes+`.querySelector('button[aria-label="Sign in to notes"]').hidden && `+notes+`.querySelector(".sign-in-note").hidden`); !hidden {
		t.Errorf("the Sign in button or the sign-in's note still shows on a ready server")
	}
	if hist := eval[string](t, ctx, notes+`.querySelector(".history").textContent`); !strings.Contains(hist, "waiting for the sign-in") || !strings.Contains(hist, "ready") {
		t.Errorf("notes' history %q, want the sign-in and the ready state", hist)
	}
	screenshot(t, ctx, "signed-in")
	for _, tok := range fa.Tokens() {
		if strings.Contains(e.logs.String(), tok) {
			t.Errorf("a token is in the log")
		}
	}
}
