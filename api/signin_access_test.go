package api_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
)

// newBrowser is a person's browser: the cookies services set in it.
func newBrowser(t *testing.T) http.CookieJar {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return jar
}

// loginIn starts the sign-in of the server name over the API from the browser jar
// (as the dashboard's fetch does, with headers, e.g. a person's token): the cookies
// the answer sets are kept in jar as a browser keeps them. It returns the
// authorization URL and the answer.
func (e *env) loginIn(jar http.CookieJar, name string, headers ...string) (string, response) {
	e.t.Helper()
	path := "/v1/servers/" + name + "/login"
	r := e.do("POST", path, nil, headers...)
	r.want(e.t, http.StatusOK)
	var got struct {
		URL string `json:"url"`
	}
	r.decode(e.t, &got)
	if got.URL == "" {
		e.t.Fatalf("POST %s: no url", path)
	}
	u, _ := url.Parse(e.url + path)
	jar.SetCookies(u, (&http.Response{Header: r.header}).Cookies())
	return got.URL, r
}

// signInCookie is the sign-in's cookie an answer sets, failing the test without one.
func signInCookie(t *testing.T, r response) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if strings.HasPrefix(c.Name, "switchboard-signin-") {
			return c
		}
	}
	t.Fatalf("the answer sets no sign-in cookie: %v", r.header.Values("Set-Cookie"))
	return nil
}

// TestSignInBoundToBrowser (issue 32, item 1): bob starts his own sign-in to a
// perUser server and has alice open its link; alice approves at the authorization
// server, and her browser, which holds no cookie of that sign-in, brings the answer
// back: the callback refuses it with a page that says why, exchanges no code, and
// signs nobody in. The sign-in is still bob's to finish: his own browser, with the
// cookie the login's answer set (HttpOnly, SameSite=Lax, scoped to the callback),
// completes it, his calls run as bob, and the cookie is cleared.
func TestSignInBoundToBrowser(t *testing.T) {
	t.Parallel()
	fa := fakeauth.Start(t, &fakeauth.Options{People: true})
	notes := notesServer(fa)
	notes.OAuth = &config.OAuth{PerUser: true}
	e := startHost(t, []config.Server{notes}, api.Options{Identify: testPeople})
	bobs, alices := newBrowser(t), newBrowser(t)
	call := func(who string) response {
		t.Helper()
		return e.do("POST", "/v1/tools/person/call", map[string]any{"arguments": map[string]any{}}, as(who+"-token"))
	}

	authURL, r := e.loginIn(bobs, "notes", as("bob-token"))
	c := signInCookie(t, r)
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/oauth/callback" || c.MaxAge <= 0 || c.Secure || len(c.Value) < 32 {
		t.Errorf("the sign-in's cookie %q, want HttpOnly, SameSite=Lax, Path=/oauth/callback, a Max-Age, not Secure over http, a long random value", c.String())
	}

	// alice's browser brings back the answer to bob's sign-in: refused, and why.
	page, err := fakeauth.Visit(t.Context(), alices, authURL, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if page.Status != http.StatusForbidden || !strings.Contains(page.Body, "This browser did not start the sign-in to notes") ||
		!strings.Contains(page.Body, "Nothing was signed in") {
		t.Fatalf("alice's browser at bob's sign-in's callback: %d\n%s", page.Status, page.Body)
	}
	if !strings.HasPrefix(page.URL, e.url+"/oauth/callback?") {
		t.Errorf("alice's visit ended at %s, want the callback", page.URL)
	}
	if n := fa.Count(fakeauth.TokenCode); n != 0 {
		t.Errorf("%d code exchanges after the refused answer, want none", n)
	}
	for _, who := range []string{"bob", "alice"} {
		// Nobody is signed in: the tool is not even known (404), or says to sign in.
		if r := call(who); strings.Contains(r.body, "person: alice") || (r.status == http.StatusOK && !strings.Contains(r.body, `"isError": true`)) {
			t.Fatalf("%s's call ran with alice's account: %d %s", who, r.status, r.body)
		}
		e.do("GET", "/v1/servers/notes", nil, as(who+"-token")).want(t, http.StatusOK, `"signedIn": false`)
	}
	if !strings.Contains(e.logs.String(), "a browser that did not start the sign-in") {
		t.Errorf("the refusal is not in the log")
	}

	// bob's own browser finishes the sign-in, which still waited for him.
	page, err = fakeauth.Visit(t.Context(), bobs, authURL, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "Signed in to notes") {
		t.Fatalf("bob's browser at his sign-in's callback: %d\n%s", page.Status, page.Body)
	}
	call("bob").want(t, http.StatusOK, `"text": "person: bob"`)
	call("alice").want(t, http.StatusOK, `"isError": true`, "needs your sign-in")
	cb, _ := url.Parse(e.url + "/oauth/callback")
	for _, c := range bobs.Cookies(cb) {
		if strings.HasPrefix(c.Name, "switchboard-signin-") {
			t.Errorf("the sign-in's cookie %s outlives the callback", c.Name)
		}
	}
}

// TestSignInBrowsers: a browser may have several sign-ins under way, of two servers,
// each with a cookie of its own, and completes them in any order; a browser that did
// not ask for one (curl asked, and the URL was opened in a browser) is refused with
// a page that says how to sign in instead, and the sign-in waits on. Without
// identities, as ever.
func TestSignInBrowsers(t *testing.T) {
	t.Parallel()
	fa, fb := fakeauth.Start(t, nil), fakeauth.Start(t, nil)
	other := notesServer(fb)
	other.Name = "other"
	e := startHost(t, []config.Server{notesServer(fa), other}, api.Options{})
	jar := newBrowser(t)
	notesURL, r1 := e.loginIn(jar, "notes")
	otherURL, r2 := e.loginIn(jar, "other")
	if c1, c2 := signInCookie(t, r1), signInCookie(t, r2); c1.Name == c2.Name {
		t.Fatalf("two sign-ins set the one cookie %s: the second clobbers the first", c1.Name)
	}

	// curl asked for the sign-in of notes; its URL opened in a browser is refused.
	page, err := fakeauth.Visit(t.Context(), newBrowser(t), notesURL, "")
	if err != nil {
		t.Fatal(err)
	}
	if page.Status != http.StatusForbidden || !strings.Contains(page.Body, "Sign in button") {
		t.Fatalf("a browser that did not ask for the sign-in: %d\n%s", page.Status, page.Body)
	}

	for _, s := range []struct{ name, url string }{{"other", otherURL}, {"notes", notesURL}} {
		page, err := fakeauth.Visit(t.Context(), jar, s.url, "")
		if err != nil {
			t.Fatal(err)
		}
		if page.Status != http.StatusOK || !strings.Contains(page.Body, "Signed in to "+s.name) {
			t.Fatalf("the browser's sign-in to %s: %d\n%s", s.name, page.Status, page.Body)
		}
	}
	e.do("GET", "/v1/servers/notes", nil).want(t, http.StatusOK, `"state": "ready"`)
	e.do("GET", "/v1/servers/other", nil).want(t, http.StatusOK, `"state": "ready"`)
}

// TestSignInAndRestartAdmins (issue 32, item 2): with identities, signing the
// service's own (shared) connection in and restarting a server are an admin's: a
// person who is not one gets 403, starts no sign-in, restarts nothing and is not
// told the shared server waits for them; an admin (carol, or the static token)
// signs it in and restarts. A perUser server stays each person's own to sign in to
// (TestPerUserSignIn), and without identities everyone may (TestSignInOverAPI).
func TestSignInAndRestartAdmins(t *testing.T) {
	t.Parallel()
	fa := fakeauth.Start(t, &fakeauth.Options{People: true})
	e := startHost(t, []config.Server{clockServer(t), notesServer(fa)}, api.Options{Identify: testPeople, Token: "static-token"})

	e.do("POST", "/v1/servers/notes/login", nil, as("alice-token")).want(t, http.StatusForbidden, `"code": "forbidden"`, "only an admin signs in a shared server")
	e.do("POST", "/v1/servers/clock/restart", nil, as("alice-token")).want(t, http.StatusForbidden, `"code": "forbidden"`, "only an admin restarts a server")
	e.do("POST", "/v1/servers/nope/restart", nil, as("alice-token")).want(t, http.StatusForbidden)
	if n := fa.Count(fakeauth.Register); n != 0 {
		t.Errorf("alice's refused login reached the authorization server (%d registrations)", n)
	}
	e.do("GET", "/v1/servers/clock", nil, as("alice-token")).want(t, http.StatusOK, `"restarts": 0`)
	e.do("GET", "/v1/me", nil, as("alice-token")).want(t, http.StatusOK, `"signInsWaiting": []`)
	e.do("GET", "/v1/me", nil, as("carol-token")).want(t, http.StatusOK, `"signInsWaiting": [
    "notes"
  ]`)

	jar := newBrowser(t)
	authURL, _ := e.loginIn(jar, "notes", as("carol-token"))
	page, err := fakeauth.Visit(t.Context(), jar, authURL, "carol")
	if err != nil {
		t.Fatal(err)
	}
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "Signed in to notes") {
		t.Fatalf("carol's sign-in: %d\n%s", page.Status, page.Body)
	}
	e.do("POST", "/v1/tools/person/call", map[string]any{"arguments": map[string]any{}}, as("alice-token")).want(t, http.StatusOK, `"text": "person: carol"`)
	e.do("POST", "/v1/servers/clock/restart", nil, as("carol-token")).want(t, http.StatusAccepted, `"name": "clock"`)
	e.do("POST", "/v1/servers/clock/restart", nil, as("static-token")).want(t, http.StatusAccepted, `"name": "clock"`)
}
