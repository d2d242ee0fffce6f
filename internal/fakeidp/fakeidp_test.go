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
