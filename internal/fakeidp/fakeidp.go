// Package fakeidp runs, on loopback, an OpenID Connect provider for tests of the
// service's own sign-in (switchboard serve with "serve": {"auth": ...}): its
// discovery document (OpenID Connect Discovery 1.0) names a JSON Web Key Set that
// holds an RS256 and an ES256 key; Mint signs tokens with them, with whatever
// claims a test wants (expired, not yet valid, for another audience or issuer);
// Forge signs with a key it never publishes; Rotate replaces the keys, as a
// provider's rotation does. It counts the fetches of its keys.
//
// For an MCP host's sign-in it also has an authorization endpoint that approves at
// once (as a person who clicks "Allow" would) and redirects with a code, the
// authorization_code grant with PKCE (S256) at its token endpoint, whose access
// token is a JWT for Options.Audience, and dynamic client registration (RFC 7591).
//
// For a browser page's sign-in (the dashboard's) it is what a real provider is to a
// single-page app: Options.Clients registered beforehand (public clients, no
// secret) with their redirect URIs, CORS on its discovery document, keys and token
// endpoint (for the origins of those redirect URIs), an ID token beside the access
// token when the scope has "openid", the issuer in the authorization response (RFC
// 9207), refresh tokens with Options.RefreshTokens, and an end_session_endpoint
// (OpenID Connect RP-Initiated Logout 1.0) that forgets a person's refresh tokens
// (tokens.go).
//
//	idp, err := fakeidp.Start(&fakeidp.Options{Audience: "switchboard"})
//	defer idp.Close()
//	tok := idp.Mint(map[string]any{"sub": "alice", "name": "Alice"})
//
// With People it is also the development stand-in that `switchboard fake-idp`
// serves, so that a person can try team mode on one machine: its authorization
// endpoint asks which of them signs in (a page with a button each; login_hint
// chooses without it), and GET /people/NAME/token is a token of theirs for a
// script or curl. It imports no testing: tests of several packages and the
// binary's start it.
package fakeidp

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Options shape the provider; nil is a provider for the audience "switchboard"
// whose sign-ins are alice's.
type Options struct {
	// Audience is the "aud" of what Mint and the token endpoint issue; default
	// "switchboard".
	Audience string
	// Subject is who signs in at the authorization endpoint; default "alice".
	Subject string
	// Claims are added to the access tokens of the token endpoint (a "name",
	// "groups").
	Claims map[string]any
	// TokenTTL is the access tokens' lifetime; default an hour.
	TokenTTL time.Duration
	// People, when set, are who may sign in: the authorization endpoint asks which
	// (or takes login_hint), and each has GET /people/NAME/token. Without them,
	// Subject signs in at once.
	People []Person
	// Listen is the loopback address to listen on; default 127.0.0.1 and a free
	// port. Any other host is refused: a provider that signs in anyone who asks
	// belongs on loopback only.
	Listen string
	// Clients are registered beforehand, as an admin registers an application at a
	// real provider: public clients such as the dashboard.
	Clients []Client
	// RefreshTokens: the token endpoint issues a refresh token beside the access
	// token when the authorization asked for the scope "offline_access" (as Okta's
	// and Entra ID's do), and takes the refresh_token grant, which rotates it.
	RefreshTokens bool
}

// Client is an OAuth client registered beforehand: a public one (no secret, PKCE)
// whose authorization requests must name one of its RedirectURIs exactly. The
// origins of those URIs may call the token endpoint from a browser (CORS), and
// each is also a post_logout_redirect_uri it may name at the end_session_endpoint.
type Client struct {
	ID           string
	RedirectURIs []string
}

// Person is someone the provider signs in: their "sub" (Name), "name" (Display,
// default Name), "preferred_username" (Name), "email" (NAME@example.com) and
// "groups".
type Person struct {
	Name    string
	Display string
	Groups  []string
}

// claims are the person's claims in a token.
func (p Person) claims() map[string]any {
	display := p.Display
	if display == "" {
		display = p.Name
	}
	groups := p.Groups
	if groups == nil {
		groups = []string{}
	}
	return map[string]any{
		"sub": p.Name, "name": display, "preferred_username": p.Name,
		"email": p.Name + "@example.com", "groups": groups,
	}
}

// Provider is a running fake OpenID provider at Issuer.
type Provider struct {
	// Issuer is its issuer URL, http://127.0.0.1:PORT.
	Issuer string

	opts Options
	srv  *http.Server
	done chan struct{} // closed when Serve has returned

	mu       sync.Mutex
	rsaKey   *signingKey
	ecKey    *signingKey
	forger   *signingKey // never published
	gen      int
	fetches  int
	clients  map[string][]string // client id → redirect URIs
	codes    map[string]*grant
	refresh  map[string]*grant // refresh token → what it renews
	counts   map[Endpoint]int
	problems []string
}

type signingKey struct {
	alg jose.SignatureAlgorithm
	kid string
	key crypto.Signer
}

// grant is what an authorization code (or a refresh token) stands for.
type grant struct {
	client, redirect, challenge string
	scope                       string
	person                      *Person // nil: Options.Subject
}

// Start starts a provider on a loopback port. Close stops it.
func Start(opts *Options) (*Provider, error) {
	p := &Provider{clients: map[string][]string{}, codes: map[string]*grant{}, refresh: map[string]*grant{},
		counts: map[Endpoint]int{}, done: make(chan struct{})}
	if opts != nil {
		p.opts = *opts
	}
	for _, c := range p.opts.Clients {
		if err := p.Register(c); err != nil {
			return nil, err
		}
	}
	if p.opts.Audience == "" {
		p.opts.Audience = "switchboard"
	}
	if p.opts.Subject == "" {
		p.opts.Subject = "alice"
	}
	if p.opts.TokenTTL <= 0 {
		p.opts.TokenTTL = time.Hour
	}
	if err := p.newKeys(); err != nil {
		return nil, err
	}
	forger, err := newKey(jose.RS256, "forged")
	if err != nil {
		return nil, err
	}
	p.forger = forger
	listen := p.opts.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	if host, _, err := net.SplitHostPort(listen); err != nil {
		return nil, fmt.Errorf("fakeidp: listen address %q: %v", listen, err)
	} else if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("fakeidp: listen address %q is not loopback: a provider that signs in anyone who asks must not be reachable from elsewhere", listen)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	p.Issuer = "http://" + ln.Addr().String()
	p.srv = &http.Server{Handler: p.mux(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(p.done)
		_ = p.srv.Serve(ln)
	}()
	return p, nil
}

// Close stops the provider and waits for its server.
func (p *Provider) Close() error {
	err := p.srv.Close()
	<-p.done
	return err
}

// Audience is the "aud" of its tokens.
func (p *Provider) Audience() string { return p.opts.Audience }

// KeyFetches is how many times its keys (jwks_uri) were fetched.
func (p *Provider) KeyFetches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fetches
}

// Problems are what clients did wrong at the authorization and token endpoints.
func (p *Provider) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.problems)
}

// Rotate replaces its keys with new ones (new key ids): tokens signed before are
// signed with keys it no longer publishes.
func (p *Provider) Rotate() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.newKeys()
}

// newKeys makes the RS256 and ES256 keys of the next generation; p.mu held (or p
// not shared yet).
func (p *Provider) newKeys() error {
	p.gen++
	r, err := newKey(jose.RS256, fmt.Sprintf("rsa-%d", p.gen))
	if err != nil {
		return err
	}
	e, err := newKey(jose.ES256, fmt.Sprintf("ec-%d", p.gen))
	if err != nil {
		return err
	}
	p.rsaKey, p.ecKey = r, e
	return nil
}

func newKey(alg jose.SignatureAlgorithm, kid string) (*signingKey, error) {
	var (
		key crypto.Signer
		err error
	)
	switch alg {
	case jose.RS256:
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES256:
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		err = fmt.Errorf("fakeidp: no key for %s", alg)
	}
	if err != nil {
		return nil, err
	}
	return &signingKey{alg: alg, kid: kid, key: key}, nil
}

// Mint is a token signed with its current RS256 key: claims over the defaults
// (iss its Issuer, aud Options.Audience, sub Options.Subject, iat now, exp in
// Options.TokenTTL). A claim set to nil is left out ("exp": nil, a token that
// never expires).
func (p *Provider) Mint(claims map[string]any) string {
	p.mu.Lock()
	k := p.rsaKey
	p.mu.Unlock()
	return p.sign(k, claims)
}

// MintES256 is Mint with its current ES256 key.
func (p *Provider) MintES256(claims map[string]any) string {
	p.mu.Lock()
	k := p.ecKey
	p.mu.Unlock()
	return p.sign(k, claims)
}

// Forge is Mint with a key it never publishes (key id "forged").
func (p *Provider) Forge(claims map[string]any) string {
	return p.sign(p.forger, claims)
}

// ForgeWithKnownKeyID is Forge under the key id of its current RS256 key: a
// signature that a verifier's key of that id does not verify.
func (p *Provider) ForgeWithKnownKeyID(claims map[string]any) string {
	p.mu.Lock()
	kid := p.rsaKey.kid
	p.mu.Unlock()
	return p.sign(&signingKey{alg: jose.RS256, kid: kid, key: p.forger.key}, claims)
}

func (p *Provider) sign(k *signingKey, claims map[string]any) string {
	now := time.Now()
	all := map[string]any{
		"iss": p.Issuer, "aud": p.opts.Audience, "sub": p.opts.Subject,
		"iat": now.Unix(), "exp": now.Add(p.opts.TokenTTL).Unix(),
	}
	for c, v := range claims {
		if v == nil {
			delete(all, c)
		} else {
			all[c] = v
		}
	}
	payload, err := json.Marshal(all)
	if err != nil {
		panic(fmt.Sprintf("fakeidp: claims: %v", err))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.key, KeyID: k.kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		panic(fmt.Sprintf("fakeidp: signer: %v", err))
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		panic(fmt.Sprintf("fakeidp: sign: %v", err))
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		panic(fmt.Sprintf("fakeidp: serialize: %v", err))
	}
	return s
}

func (p *Provider) mux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("POST /register", p.register)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("OPTIONS /token", p.tokenPreflight)
	mux.HandleFunc("GET /logout", p.logout)
	mux.HandleFunc("GET /people/{name}/token", p.personToken)
	return mux
}

func (p *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	grants, scopes := []string{"authorization_code"}, []string{"openid", "profile", "email"}
	if p.opts.RefreshTokens {
		grants, scopes = append(grants, "refresh_token"), append(scopes, "offline_access")
	}
	// Public, as a real provider's: any page may read it (a single-page app finds
	// the endpoints here).
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.Issuer,
		"claims_supported":                      []string{"sub", "name", "preferred_username", "email", "groups"},
		"jwks_uri":                              p.Issuer + "/jwks",
		"authorization_endpoint":                p.Issuer + "/authorize",
		"token_endpoint":                        p.Issuer + "/token",
		"registration_endpoint":                 p.Issuer + "/register",
		"end_session_endpoint":                  p.Issuer + "/logout",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256", "ES256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"grant_types_supported":                 grants,
		"token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                      scopes,
		// RFC 9207: the authorization response names its issuer ("iss").
		"authorization_response_iss_parameter_supported": true,
	})
}

func (p *Provider) jwks(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	p.fetches++
	w.Header().Set("Access-Control-Allow-Origin", "*")
	var set jose.JSONWebKeySet
	for _, k := range []*signingKey{p.rsaKey, p.ecKey} {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.key.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
	}
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, set)
}

func (p *Provider) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := "client-" + rand.Text()[:8]
	p.mu.Lock()
	p.clients[id] = req.RedirectURIs
	p.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code"}, "response_types": []string{"code"},
	})
}

func (p *Provider) problem(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, fmt.Sprintf(format, args...))
}

// authorize approves at once: a code for the client's registered redirect URI,
// bound to its PKCE challenge.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	p.count(Authorize)
	q := r.URL.Query()
	client, redirect := q.Get("client_id"), q.Get("redirect_uri")
	p.mu.Lock()
	uris, ok := p.clients[client]
	p.mu.Unlock()
	if !ok || !slices.Contains(uris, redirect) {
		p.problem("authorize: unknown client %q or redirect URI %q", client, redirect)
		http.Error(w, "unknown client or redirect URI", http.StatusBadRequest)
		return
	}
	if q.Get("response_type") != "code" || q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256" {
		p.problem("authorize: want response_type=code and a PKCE S256 challenge, got %v", q)
		http.Error(w, "want response_type=code and PKCE (S256)", http.StatusBadRequest)
		return
	}
	var who *Person
	if len(p.opts.People) > 0 {
		name := q.Get("login_hint")
		if r.Method == http.MethodPost {
			name = r.PostFormValue("person")
		}
		who = p.person(name)
		if who == nil {
			p.choose(w, r)
			return
		}
	}
	code := rand.Text()
	p.mu.Lock()
	p.codes[code] = &grant{client: client, redirect: redirect, challenge: q.Get("code_challenge"), scope: q.Get("scope"), person: who}
	p.mu.Unlock()
	u, err := url.Parse(redirect)
	if err != nil {
		http.Error(w, "bad redirect URI", http.StatusBadRequest)
		return
	}
	back := u.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	back.Set("iss", p.Issuer) // RFC 9207
	u.RawQuery = back.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// person is the one of People named name, or nil.
func (p *Provider) person(name string) *Person {
	for i := range p.opts.People {
		if p.opts.People[i].Name == name {
			return &p.opts.People[i]
		}
	}
	return nil
}

// choosePage asks who signs in: a button each, posted back to /authorize with the
// request's query, which names the client, its redirect URI and its challenge.
var choosePage = template.Must(template.New("choose").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Fake sign-in</title></head>
<body style="font-family: sans-serif; max-width: 32em; margin: 3em auto">
<h1>Fake sign-in</h1>
<p>A development stand-in for an identity provider (switchboard fake-idp): whoever
reaches it may sign in as anyone below. Never use it for anything real.</p>
<form method="post" action="{{.Action}}">
{{range .People}}<p><button name="person" value="{{.Name}}">Sign in as {{.Name}}</button>
{{with .Groups}}(groups: {{range $i, $g := .}}{{if $i}}, {{end}}{{$g}}{{end}}){{end}}</p>
{{end}}</form></body></html>
`))

func (p *Provider) choose(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// The form posts here, and the answer redirects to the client (a browser holds a
	// form's redirects to form-action too).
	formAction := "'self'"
	if u, err := url.Parse(r.URL.Query().Get("redirect_uri")); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(u.Host, " ;'") {
		formAction += " " + u.Scheme + "://" + u.Host
	}
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action "+formAction)
	// The request's own query, already encoded, written whole: after a literal "?"
	// in the template html/template escaped it as one query value.
	action := template.URL("/authorize?" + r.URL.RawQuery)
	_ = choosePage.Execute(w, map[string]any{"Action": action, "People": p.opts.People})
}

// personToken is a token of the person named in the path, as text: what a script
// of the development walk puts in $SWITCHBOARD_TOKEN.
func (p *Provider) personToken(w http.ResponseWriter, r *http.Request) {
	who := p.person(r.PathValue("name"))
	if who == nil {
		http.Error(w, fmt.Sprintf("no person %q here", r.PathValue("name")), http.StatusNotFound)
		return
	}
	claims := maps.Clone(p.opts.Claims)
	if claims == nil {
		claims = map[string]any{}
	}
	maps.Copy(claims, who.claims())
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = fmt.Fprintln(w, p.Mint(claims))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// Approve is a stand-in for a person's browser at the authorization endpoint: it
// opens authURL and, not following the redirect, returns the query it carries to
// the client's redirect URI (code and state, or error).
func Approve(ctx context.Context, authURL string) (url.Values, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	// A transport of its own, closed after: nothing outlives the visit.
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusFound {
		return nil, fmt.Errorf("fakeidp: the authorization endpoint answered %s", res.Status)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	return loc.Query(), nil
}
