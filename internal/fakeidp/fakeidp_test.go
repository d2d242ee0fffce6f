package fakeidp_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/switchboard-mcp/switchboard/internal/fakeidp"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

func start(t *testing.T, opts *fakeidp.Options) *fakeidp.Provider {
	t.Helper()
	p, err := fakeidp.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// client is an HTTP client that does not follow redirects and keeps no connection.
func client() *http.Client {
	return &http.Client{
		Transport:     &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// claims are the payload of a JWT (its signature unchecked: the verifier's tests
// check those).
func claims(t *testing.T, token string) map[string]any {
	t.Helper()
	jws, err := jose.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256, jose.ES256})
	if err != nil {
		t.Fatalf("not a JWT: %v", err)
	}
	var c map[string]any
	if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPeopleSignIn: with People, the authorization endpoint asks who signs in (a
// button each) instead of approving at once; the person chosen (a button, or
// login_hint) is the token's subject, with their name and groups; an unknown name
// asks again; GET /people/NAME/token is a token of theirs, 404 for nobody.
func TestPeopleSignIn(t *testing.T) {
	t.Parallel()
	p := start(t, &fakeidp.Options{People: []fakeidp.Person{{Name: "alice"}, {Name: "bob", Groups: []string{"admins"}}}})
	c := client()
	redirect := "http://127.0.0.1:1/callback"
	res, err := c.Post(p.Issuer+"/register", "application/json", strings.NewReader(`{"redirect_uris": ["`+redirect+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	err = json.NewDecoder(res.Body).Decode(&reg)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	verifier := "a-verifier-of-enough-length-for-pkce-0123456789"
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"client_id": {reg.ClientID}, "redirect_uri": {redirect}, "response_type": {"code"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "state": {"s1"}}
	authURL := p.Issuer + "/authorize?" + q.Encode()

	// token redeems the code of a redirect for the subject and groups of its token.
	token := func(t *testing.T, res *http.Response) map[string]any {
		t.Helper()
		if res.StatusCode != http.StatusFound {
			b, _ := io.ReadAll(res.Body)
			t.Fatalf("authorize = %s %s, want a redirect", res.Status, b)
		}
		loc, err := url.Parse(res.Header.Get("Location"))
		if err != nil || loc.Query().Get("state") != "s1" {
			t.Fatalf("redirect to %q", res.Header.Get("Location"))
		}
		tr, err := c.PostForm(p.Issuer+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
			"client_id": {reg.ClientID}, "redirect_uri": {redirect}, "code_verifier": {verifier}})
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Body.Close()
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		if err := json.NewDecoder(tr.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
			t.Fatalf("token endpoint: %s %v", tr.Status, err)
		}
		return claims(t, tok.AccessToken)
	}

	page, err := c.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != 200 || !strings.Contains(string(body), `value="alice"`) || !strings.Contains(string(body), `value="bob"`) {
		t.Fatalf("authorize without a person = %s, want the page that asks who:\n%s", page.Status, body)
	}

	// The button posts to the form's action, as a browser would.
	m := regexp.MustCompile(`<form method="post" action="([^"]*)">`).FindStringSubmatch(string(body))
	if m == nil {
		t.Fatalf("no form on the page:\n%s", body)
	}
	chosen, err := c.PostForm(p.Issuer+html.UnescapeString(m[1]), url.Values{"person": {"bob"}})
	if err != nil {
		t.Fatal(err)
	}
	chosen.Body.Close()
	if got := token(t, chosen); got["sub"] != "bob" || got["name"] != "bob" || !strings.Contains(strings.Join(toStrings(got["groups"]), ","), "admins") {
		t.Errorf("bob's button: claims %v, want sub bob in the group admins", got)
	}

	hinted, err := c.Get(authURL + "&login_hint=alice")
	if err != nil {
		t.Fatal(err)
	}
	hinted.Body.Close()
	if got := token(t, hinted); got["sub"] != "alice" || got["aud"] != "switchboard" || got["iss"] != p.Issuer {
		t.Errorf("login_hint=alice: claims %v, want sub alice for switchboard from %s", got, p.Issuer)
	}

	nobody, err := c.PostForm(authURL, url.Values{"person": {"mallory"}})
	if err != nil {
		t.Fatal(err)
	}
	nobody.Body.Close()
	if nobody.StatusCode != 200 {
		t.Errorf("an unknown person = %s, want the page again", nobody.Status)
	}

	res, err = c.Get(p.Issuer + "/people/alice/token")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if got := claims(t, strings.TrimSpace(string(b))); got["sub"] != "alice" || got["email"] != "alice@example.com" {
		t.Errorf("alice's token: claims %v", got)
	}
	res, err = c.Get(p.Issuer + "/people/mallory/token")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("a token of nobody = %s, want 404", res.Status)
	}
	if len(p.Problems()) != 0 {
		t.Errorf("problems: %v", p.Problems())
	}
}

func toStrings(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		for _, e := range a {
			s, _ := e.(string)
			out = append(out, s)
		}
	}
	return out
}

// TestLoopbackOnly: a provider that signs in anyone who asks is refused any address
// but loopback.
func TestLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "example.com:0"} {
		if p, err := fakeidp.Start(&fakeidp.Options{Listen: addr}); err == nil {
			p.Close()
			t.Errorf("Listen %q: started, want refused", addr)
		} else if !strings.Contains(err.Error(), "not loopback") {
			t.Errorf("Listen %q: %v, want it to say not loopback", addr, err)
		}
	}
	start(t, &fakeidp.Options{Listen: "127.0.0.1:0"})
}

// TestPublicClient: a client registered beforehand signs in from a browser page as
// a single-page app does at a real provider: the discovery document and keys are
// readable from any page, the token endpoint from the origins of the client's
// redirect URIs only; the authorization response names the issuer (RFC 9207); the
// token endpoint gives an ID token for the client beside the access token, and a
// refresh token when "offline_access" was asked for, which renews once (rotated);
// the end_session_endpoint sends the browser back with its state and forgets the
// person's refresh tokens.
func TestPublicClient(t *testing.T) {
	t.Parallel()
	const page = "http://127.0.0.1:7/"
	p := start(t, &fakeidp.Options{Clients: []fakeidp.Client{{ID: "dash", RedirectURIs: []string{page}}}, RefreshTokens: true})
	c := client()
	get := func(u, origin string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", u, nil)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	for _, path := range []string{"/.well-known/openid-configuration", "/jwks"} {
		if got := get(p.Issuer+path, "http://elsewhere.example").Header.Get("Access-Control-Allow-Origin"); got != "*" {
			t.Errorf("GET %s: Access-Control-Allow-Origin %q, want *", path, got)
		}
	}
	post := func(form url.Values, origin string) (*http.Response, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("POST", p.Issuer+"/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return res, out
	}
	signIn := func(scope string) (*http.Response, map[string]any) {
		t.Helper()
		verifier := "another-verifier-of-enough-length-for-pkce-0123456789"
		sum := sha256.Sum256([]byte(verifier))
		q := url.Values{"client_id": {"dash"}, "redirect_uri": {page}, "response_type": {"code"}, "scope": {scope},
			"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "state": {"st"}}
		loc, err := url.Parse(get(p.Issuer+"/authorize?"+q.Encode(), "").Header.Get("Location"))
		if err != nil || loc.Query().Get("iss") != p.Issuer || loc.Query().Get("state") != "st" {
			t.Fatalf("redirect to %v, want the page with the state and iss %s", loc, p.Issuer)
		}
		return post(url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
			"client_id": {"dash"}, "redirect_uri": {page}, "code_verifier": {verifier}}, "http://127.0.0.1:7")
	}

	res, tok := signIn("openid profile")
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "http://127.0.0.1:7" {
		t.Fatalf("token: %s, Access-Control-Allow-Origin %q: %v", res.Status, res.Header.Get("Access-Control-Allow-Origin"), tok)
	}
	if _, ok := tok["refresh_token"]; ok {
		t.Errorf("a refresh token without offline_access: %v", tok)
	}
	id := claims(t, tok["id_token"].(string))
	if id["aud"] != "dash" || id["sub"] != "alice" || id["iss"] != p.Issuer {
		t.Errorf("ID token claims %v, want alice's for the client dash", id)
	}
	if got := claims(t, tok["access_token"].(string)); got["aud"] != "switchboard" {
		t.Errorf("access token for %v, want switchboard", got["aud"])
	}

	_, tok = signIn("openid offline_access")
	rt, _ := tok["refresh_token"].(string)
	if rt == "" {
		t.Fatalf("no refresh token with offline_access: %v", tok)
	}
	if res, _ := post(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"dash"}}, "http://evil.example"); res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("the token endpoint lets another origin read it: %q", res.Header.Get("Access-Control-Allow-Origin"))
	}
	// That request used rt (a server would not have minded the origin): sign in again.
	_, tok = signIn("openid offline_access")
	rt = tok["refresh_token"].(string)
	res, renewed := post(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"dash"}}, "http://127.0.0.1:7")
	if res.StatusCode != 200 || renewed["access_token"] == nil || renewed["refresh_token"] == nil || renewed["refresh_token"] == rt {
		t.Fatalf("refresh: %s %v, want new tokens and another refresh token", res.Status, renewed)
	}
	if res, _ := post(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"dash"}}, ""); res.StatusCode != 400 {
		t.Errorf("a used refresh token: %s, want 400", res.Status)
	}

	q := url.Values{"id_token_hint": {renewed["id_token"].(string)}, "post_logout_redirect_uri": {page}, "state": {"bye"}}
	if loc := get(p.Issuer+"/logout?"+q.Encode(), "").Header.Get("Location"); loc != page+"?state=bye" {
		t.Errorf("logout sends the browser to %q, want %s?state=bye", loc, page)
	}
	if res, _ := post(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {renewed["refresh_token"].(string)}, "client_id": {"dash"}}, ""); res.StatusCode != 400 {
		t.Errorf("a refresh token after the person's logout: %s, want 400", res.Status)
	}
	q.Set("post_logout_redirect_uri", "http://evil.example/")
	if res := get(p.Issuer+"/logout?"+q.Encode(), ""); res.StatusCode != 400 {
		t.Errorf("logout to an unregistered URI: %s, want 400", res.Status)
	}
	if n := p.Count(fakeidp.RefreshGrant); n != 4 {
		t.Errorf("%d refresh grants counted, want 4", n)
	}
}
