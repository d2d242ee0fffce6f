package api_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/fakeidp"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// dashboardClient is the dashboard's client id at the fake provider.
const dashboardClient = "switchboard-dashboard"

// startDashboardSignIn starts a fake provider of opts (alice and bob may sign in at
// it) and an API whose people are its tokens', checked with no leeway so that an
// expired token is refused at once, whose dashboard signs people in there as the
// client dashboardClient, registered with the dashboard's address.
func startDashboardSignIn(t *testing.T, opts fakeidp.Options) (*env, *fakeidp.Provider) {
	t.Helper()
	opts.People = []fakeidp.Person{{Name: "alice", Display: "Alice"}, {Name: "bob", Display: "Bob"}}
	idp, err := fakeidp.Start(&opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idp.Close() })
	v, err := identity.NewVerifier(context.Background(), &identity.OIDCOptions{
		Issuer: idp.Issuer, Audience: idp.Audience(), Leeway: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, setup{opts: api.Options{Identify: v.Identify, Issuer: v.Issuer(),
		DashboardSignIn: &api.DashboardSignIn{ClientID: dashboardClient, Audience: idp.Audience(), TokenEndpoint: v.TokenEndpoint()}}})
	e.token = ""
	if err := idp.Register(fakeidp.Client{ID: dashboardClient, RedirectURIs: []string{e.url + "/"}}); err != nil {
		t.Fatal(err)
	}
	return e, idp
}

// jwtClaims is a JWT's payload, unchecked.
func jwtClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// untilExpired waits until the token's "exp" has passed.
func untilExpired(t *testing.T, token string) {
	t.Helper()
	exp := time.Unix(int64(jwtClaims(t, token)["exp"].(float64)), 0)
	time.Sleep(time.Until(exp.Add(1100 * time.Millisecond))) // exp has seconds only
}

// waitAcross is waitJS across navigations (the page goes to the provider and back),
// which end a wait on the page it began on.
func waitAcross(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			screenshot(t, ctx, "failed")
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			t.Fatalf("waiting for %s (the page at %s): %v", what, loc, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// toProvider clicks the page's Sign in (the token form shows it) and waits for the
// provider's page that asks who signs in.
func toProvider(t *testing.T, ctx context.Context, idp *fakeidp.Provider) string {
	t.Helper()
	do(t, ctx, "clicking Sign in", chromedp.WaitVisible(chromedp.CSS("#signin-start")), chromedp.Click(chromedp.CSS("#signin-start")))
	waitAcross(t, ctx, "the provider's page", `location.href.startsWith(`+jsString(idp.Issuer+"/authorize?")+`) && document.querySelector("button[name=person]") !== null`)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// signInAs signs who in through the page and the provider's, and waits for the page
// to greet them.
func signInAs(t *testing.T, ctx context.Context, idp *fakeidp.Provider, who, greeting string) {
	t.Helper()
	toProvider(t, ctx, idp)
	do(t, ctx, "choosing "+who, chromedp.Click(chromedp.CSS(`button[value="`+who+`"]`)))
	waitAcross(t, ctx, "the page saying "+greeting, `document.getElementById("who-name").textContent === `+jsString(greeting))
}

// pageToken is the token the page keeps.
func pageToken(t *testing.T, ctx context.Context) string {
	t.Helper()
	return eval[string](t, ctx, `sessionStorage.getItem("switchboard.token") || ""`)
}

// TestDashboardProviderSignIn: with a provider and the dashboard's client id, the page
// offers Sign in with the provider; the click goes to the provider's page (the
// authorization code flow with PKCE), and the person comes back signed in, shown by
// the name GET /v1/me gives, the token kept in the tab's sessionStorage only (no
// localStorage, no cookie) and the code gone from the address bar and the tab's
// history. Ahead of its expiry the token is renewed with the refresh token, so that
// the page keeps working after the first token is refused; a token the service
// refuses is renewed then, and the request sent again. Sign out forgets the
// tokens and ends the session at the provider (its end_session_endpoint, whose
// refresh token then no longer works), and the page comes back asking; a pasted
// token still works there.
func TestDashboardProviderSignIn(t *testing.T) {
	ctx := browser(t)
	e, idp := startDashboardSignIn(t, fakeidp.Options{RefreshTokens: true, TokenTTL: 4 * time.Second})

	var first string
	t.Run("sign in", func(t *testing.T) {
		do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"), chromedp.WaitVisible(chromedp.CSS("#signin-start")))
		host := strings.TrimPrefix(idp.Issuer, "http://")
		if got := eval[string](t, ctx, `document.getElementById("signin-start").textContent`); got != "Sign in with "+host {
			t.Errorf("the button says %q, want Sign in with %s", got, host)
		}
		if shown := eval[bool](t, ctx, `!document.getElementById("token").closest("form").hidden`); !shown {
			t.Errorf("no token form beside Sign in: pasting a token is not offered")
		}
		screenshot(t, ctx, "sign-in-offered")
		signInAs(t, ctx, idp, "alice", "Signed in as Alice")
		first = pageToken(t, ctx)
		// (The greeting is GET /v1/me's answer to it.)
		if c := jwtClaims(t, first); c["sub"] != "alice" || c["aud"] != idp.Audience() {
			t.Errorf("the page's token is for %v of %v, want alice's for the service", c["sub"], c["aud"])
		}
		kept := eval[map[string]any](t, ctx, `({local: localStorage.length, cookie: document.cookie, href: location.href})`)
		if kept["local"] != 0.0 || kept["cookie"] != "" || kept["href"] != e.url+"/" {
			t.Errorf("after the sign-in: localStorage has %v entries, cookies %q, the address %q; want none, none and %s/", kept["local"], kept["cookie"], kept["href"], e.url)
		}
		hist, err := chromedp.Run(ctx, chromedp.NavigationEntries())
		if err != nil {
			t.Fatal(err)
		}
		for _, entry := range hist.Entries {
			if strings.HasPrefix(entry.URL, e.url) && strings.Contains(entry.URL, "code=") {
				t.Errorf("the tab's history has the provider's answer: %q", entry.URL)
			}
		}
		if n := idp.Count(fakeidp.CodeGrant); n != 1 {
			t.Errorf("%d codes redeemed, want 1", n)
		}
		screenshot(t, ctx, "signed-in")
	})
	if first == "" {
		t.FailNow()
	}

	t.Run("renewed", func(t *testing.T) {
		waitJS(t, ctx, "the token renewed", `(sessionStorage.getItem("switchboard.token") || "") !== `+jsString(first))
		untilExpired(t, first)
		e.do("GET", "/v1/me", nil, "Authorization: Bearer "+first).want(t, http.StatusUnauthorized, "expired")
		// What the person does next goes with the renewed token.
		who, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.switchboard.api("/v1/me").then(m => m.subject)`, chromedp.EvalAwaitPromise))
		if err != nil || who != "alice" {
			t.Errorf("GET /v1/me from the page after the first token expired = %q, %v; want alice", who, err)
		}
		if shown := eval[bool](t, ctx, `!document.getElementById("token-form").hidden`); shown {
			t.Errorf("the page asks for a token although it renewed its own")
		}
		if n := idp.Count(fakeidp.RefreshGrant); n < 1 {
			t.Errorf("no refresh grant at the provider")
		}
		if c := jwtClaims(t, pageToken(t, ctx)); c["sub"] != "alice" {
			t.Errorf("the renewed token is %v's", c["sub"])
		}
	})

	// A renewal that comes too late (the page's timers held up, as a computer's
	// sleep holds them): the request the service refuses is sent again with a
	// token renewed then, and the person is not asked.
	t.Run("renewed on a refusal", func(t *testing.T) {
		eval[bool](t, ctx, `(() => { const last = setTimeout(() => {}, 0); for (let i = 0; i <= last; i++) clearTimeout(i); return true })()`)
		time.Sleep(time.Second) // a renewal under way as the timers went: done
		held := pageToken(t, ctx)
		untilExpired(t, held)
		refreshes := idp.Count(fakeidp.RefreshGrant)
		who, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.switchboard.api("/v1/me").then(m => m.subject)`, chromedp.EvalAwaitPromise))
		if err != nil || who != "alice" {
			t.Errorf("GET /v1/me from the page with an expired token = %q, %v; want alice", who, err)
		}
		if n := idp.Count(fakeidp.RefreshGrant); n != refreshes+1 {
			t.Errorf("%d refresh grants for the refusal, want 1", n-refreshes)
		}
		if pageToken(t, ctx) == held {
			t.Errorf("the page kept the expired token")
		}
		if shown := eval[bool](t, ctx, `!document.getElementById("token-form").hidden`); shown {
			t.Errorf("the page asks for a token although it renewed its own")
		}
	})

	t.Run("sign out", func(t *testing.T) {
		refresh := eval[string](t, ctx, `JSON.parse(sessionStorage.getItem("switchboard.signin")).refresh`)
		if refresh == "" {
			t.Fatal("no refresh token kept")
		}
		do(t, ctx, "signing out", chromedp.Click(chromedp.CSS("#sign-out")))
		testenv.WaitFor(t, "the provider's end_session_endpoint asked", 20*time.Second, func() bool { return idp.Count(fakeidp.SignOut) > 0 })
		waitAcross(t, ctx, "the page back from the provider, asking", `location.href === `+jsString(e.url+"/")+` && document.readyState === "complete" && !document.getElementById("signin").hidden && !document.getElementById("token-form").hidden`)
		if n := idp.Count(fakeidp.SignOut); n != 1 {
			t.Errorf("the provider's end_session_endpoint was asked %d times, want once", n)
		}
		left := eval[map[string]any](t, ctx, `({token: sessionStorage.getItem("switchboard.token"), signin: sessionStorage.getItem("switchboard.signin"), who: document.getElementById("who").hidden})`)
		if left["token"] != nil || left["signin"] != nil || left["who"] != true {
			t.Errorf("after Sign out: %v, want no token, no sign-in and no name", left)
		}
		if p := idp.Problems(); len(p) != 0 {
			t.Errorf("the provider saw problems: %q", p)
		}
		// The provider ended the session: its refresh token no longer renews.
		res, err := http.PostForm(idp.Issuer+"/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {dashboardClient}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("the refresh token after Sign out: %s, want refused", res.Status)
		}
		screenshot(t, ctx, "signed-out")

		// Pasting a token stays possible (one that outlives the typing of it).
		do(t, ctx, "pasting bob's token", chromedp.SendKeys(chromedp.CSS("#token"), idp.Mint(map[string]any{"sub": "bob", "name": "Bob", "exp": time.Now().Add(time.Hour).Unix()})+"\r"))
		waitJS(t, ctx, "bob greeted", `document.getElementById("who-name").textContent === "Signed in as Bob"`)
	})
}

// TestDashboardProviderSignInAgain: without a refresh token, a sign-in that expired is asked
// again when the person next acts (here: calls a tool), saying why, and the person
// signs in again with the button. An answer brought to the page with another state
// than the one it sent is refused before its code is used (the code cannot be
// replayed after either), and so is one whose "iss" is another issuer.
func TestDashboardProviderSignInAgain(t *testing.T) {
	ctx := browser(t)
	// Long enough for the page to load all it shows before the token expires, on a
	// busy machine too.
	e, idp := startDashboardSignIn(t, fakeidp.Options{TokenTTL: 8 * time.Second})

	t.Run("expired", func(t *testing.T) {
		do(t, ctx, "opening the page", chromedp.Navigate(e.url+"/"))
		signInAs(t, ctx, idp, "bob", "Signed in as Bob")
		if refresh := eval[string](t, ctx, `JSON.parse(sessionStorage.getItem("switchboard.signin")).refresh`); refresh != "" {
			t.Errorf("a refresh token from a provider that gives none: %q", refresh)
		}
		untilExpired(t, pageToken(t, ctx))
		if shown := eval[bool](t, ctx, `!document.getElementById("token-form").hidden`); shown {
			t.Errorf("the page asks before the person does anything")
		}
		form := `form.tool-form[data-tool="current_time"]`
		do(t, ctx, "calling a tool",
			chromedp.Click(chromedp.CSS(`#tools button[data-tool="current_time"]`)),
			chromedp.WaitVisible(chromedp.CSS(form)),
			chromedp.Click(chromedp.CSS(form+` button[type="submit"]`)))
		waitJS(t, ctx, "the page asking to sign in again", `!document.getElementById("token-form").hidden && !document.getElementById("signin").hidden`)
		if got := eval[string](t, ctx, `document.getElementById("token-error").textContent`); !strings.HasPrefix(got, "Your sign-in has ended: sign in again") || !strings.Contains(got, "expired") {
			t.Errorf("the page says %q, want that the sign-in ended (expired)", got)
		}
		screenshot(t, ctx, "sign-in-again")
		signInAs(t, ctx, idp, "bob", "Signed in as Bob")
		if n := idp.Count(fakeidp.CodeGrant); n != 2 {
			t.Errorf("%d codes redeemed, want 2", n)
		}
	})

	// answer brings the provider's answer to this tab's sign-in, with the state and
	// issuer changed as given, as a forged link would.
	answer := func(t *testing.T, tab context.Context, state, iss string) url.Values {
		t.Helper()
		authURL := toProvider(t, tab, idp)
		q, err := fakeidp.Approve(t.Context(), authURL+"&login_hint=alice")
		if err != nil {
			t.Fatal(err)
		}
		forged := url.Values{"code": {q.Get("code")}, "state": {state}, "iss": {iss}}
		if state == "" {
			forged.Set("state", q.Get("state"))
		}
		do(t, tab, "bringing the answer", chromedp.Navigate(e.url+"/?"+forged.Encode()))
		return q
	}

	t.Run("tampered state", func(t *testing.T) {
		tab := tab(t, ctx)
		do(t, tab, "opening the page", chromedp.Navigate(e.url+"/"))
		codes := idp.Count(fakeidp.CodeGrant)
		q := answer(t, tab, "tampered", idp.Issuer)
		waitAcross(t, tab, "the answer refused", `document.getElementById("token-error").textContent.includes("state")`)
		if tok := pageToken(t, tab); tok != "" {
			t.Errorf("the page kept a token: %q", tok)
		}
		if n := idp.Count(fakeidp.CodeGrant); n != codes {
			t.Errorf("the code was redeemed (%d grants, %d before)", n, codes)
		}
		if href := eval[string](t, tab, `location.href`); href != e.url+"/" {
			t.Errorf("the address bar shows %q", href)
		}
		screenshot(t, tab, "state-refused")
		// The same answer with its own state, afterwards: the tab has no sign-in
		// under way any more.
		do(t, tab, "bringing the answer again", chromedp.Navigate(e.url+"/?"+url.Values{"code": {q.Get("code")}, "state": {q.Get("state")}, "iss": {idp.Issuer}}.Encode()))
		waitAcross(t, tab, "the replay refused", `document.getElementById("token-error").textContent.includes("started no sign-in")`)
		if n := idp.Count(fakeidp.CodeGrant); n != codes {
			t.Errorf("the replayed code was redeemed (%d grants, %d before)", n, codes)
		}
	})

	t.Run("another issuer", func(t *testing.T) {
		tab := tab(t, ctx)
		do(t, tab, "opening the page", chromedp.Navigate(e.url+"/"))
		codes := idp.Count(fakeidp.CodeGrant)
		answer(t, tab, "", "http://127.0.0.1:1")
		waitAcross(t, tab, "the answer refused", `document.getElementById("token-error").textContent.includes("not from the issuer")`)
		if n := idp.Count(fakeidp.CodeGrant); n != codes || pageToken(t, tab) != "" {
			t.Errorf("the code was redeemed (%d grants, %d before) or a token kept", n, codes)
		}
	})
}

// GET /v1/dashboard/signin tells the page, with no token, the provider and the
// dashboard's client id, and the page's policy lets it reach the provider; without
// a client id it is 404 and the page reaches its own origin only. A DashboardSignIn
// without an issuer is refused.
func TestDashboardProviderEndpoint(t *testing.T) {
	t.Parallel()
	plain := start(t, setup{opts: api.Options{Token: "tok"}})
	plain.token = ""
	plain.do("GET", "/v1/dashboard/signin", nil).want(t, http.StatusNotFound, "clientId")
	if csp := plain.do("GET", "/", nil).header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self';") {
		t.Errorf("the page's policy without a sign-in: %q", csp)
	}

	e := start(t, setup{opts: api.Options{Token: "tok", Issuer: "https://login.example.com/tenant/v2.0",
		DashboardSignIn: &api.DashboardSignIn{ClientID: "dash-id", Audience: "api://sb", TokenEndpoint: "https://tokens.example.net:8443/oauth2/token"}}})
	e.token = ""
	r := e.do("GET", "/v1/dashboard/signin", nil)
	r.want(t, http.StatusOK)
	var got map[string]string
	r.decode(t, &got)
	if want := map[string]string{"issuer": "https://login.example.com/tenant/v2.0", "clientId": "dash-id", "audience": "api://sb"}; len(got) != len(want) || got["issuer"] != want["issuer"] || got["clientId"] != want["clientId"] || got["audience"] != want["audience"] {
		t.Errorf("GET /v1/dashboard/signin = %v, want %v", got, want)
	}
	if csp := e.do("GET", "/", nil).header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self' https://login.example.com https://tokens.example.net:8443;") {
		t.Errorf("the page's policy: %q, want it to reach the issuer's and the token endpoint's origins", csp)
	}

	if _, err := api.New(plain.hub, &api.Options{DashboardSignIn: &api.DashboardSignIn{ClientID: "x"}}); err == nil {
		t.Errorf("New took a DashboardSignIn without an issuer")
	}
}
