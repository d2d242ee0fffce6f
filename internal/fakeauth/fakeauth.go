// Package fakeauth runs, on loopback, an OAuth 2.1 authorization server and an MCP
// server that it protects, as the MCP spec's Authorization section has them: the
// MCP server answers 401 with a WWW-Authenticate challenge and serves its protected
// resource metadata (RFC 9728); the authorization server, on a port of its own,
// serves its metadata (RFC 8414), dynamic registration (RFC 7591), an authorization
// endpoint that approves at once and redirects to the client's redirect URI (as a
// person who clicks "Allow" would), PKCE (S256), the resource parameter (RFC 8707),
// the authorization_code, refresh_token and client_credentials grants, and token
// revocation (RFC 7009). It counts every request, so that tests can say how many
// sign-ins and token requests a run took.
//
//	srv := fakeauth.Start(t, &fakeauth.Options{Scopes: []string{"notes:read"}})
//	cfg := config.Server{Name: "notes", Transport: config.HTTP, URL: srv.MCPURL}
//	... sign in, call "echo" ...
//	if srv.Count(fakeauth.Authorize) != 1 { ... }
//
// Its tools: "echo" ({"text"}), "whoami" (the scopes of the caller's token),
// with Options.People "person" (who the caller's token was issued to: the person
// whose browser approved the sign-in, see BrowseAs; "" for anyone else), and
// "write" ({"text"}), which needs Options.StepUp on top of Options.Scopes: without it
// the call is refused with 403 insufficient_scope, as a server that asks for more
// access does.
package fakeauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options shape the servers. The zero value (or nil) is a server that wants a
// token with no particular scope, registers clients dynamically and issues tokens
// for an hour.
type Options struct {
	// Scopes are what the MCP server's challenge asks for (the "scope" of its
	// WWW-Authenticate) and what its metadata lists; every request needs them.
	Scopes []string
	// StepUp is a scope that a call of the tool "write" needs on top of Scopes.
	StepUp string
	// ScopesSupported is the authorization server's "scopes_supported" (add
	// "offline_access" to offer refresh tokens on request).
	ScopesSupported []string
	// NoRegistration leaves out the registration endpoint: only pre-registered
	// clients (Clients) can sign in.
	NoRegistration bool
	// Clients are pre-registered clients, id → secret ("" for a public client).
	Clients map[string]string
	// AuthMethods is "token_endpoint_auth_methods_supported" (default none,
	// client_secret_basic, client_secret_post).
	AuthMethods []string
	// TokenTTL is the access tokens' lifetime (default an hour).
	TokenTTL time.Duration
	// NoRevocation leaves out the revocation endpoint.
	NoRevocation bool
	// CIMD advertises client ID metadata documents: a client id that is an https
	// URL is taken as such (its document is not fetched).
	CIMD bool
	// Iss says "authorization_response_iss_parameter_supported" and adds "iss" to
	// the redirect.
	Iss bool
	// Deny makes the authorization endpoint redirect with error=access_denied, as
	// when the person clicks "Deny".
	Deny bool
	// Resource, when set, is the "resource" the protected resource metadata names
	// instead of the MCP server's URL (a server that would send its clients' tokens
	// elsewhere).
	Resource string
	// Legacy is a server of the 2025-03-26 spec: no protected resource metadata (and
	// no resource_metadata in its challenge); the authorization server lives on the
	// MCP server's origin under /oauth, its metadata at the origin's well-known URL,
	// naming the issuer ORIGIN/oauth.
	Legacy bool
	// AlwaysStepUp refuses every request that carries a token with 403
	// insufficient_scope, whatever the token holds (a server whose step-up can
	// never succeed).
	AlwaysStepUp bool
	// People adds the tools "person": who the caller's token was issued to (see
	// BrowseAs), and "hold", which answers only once ReleaseHolds is called, or its
	// call is cancelled (Count Hold counts those that began), for tests of
	// per-person sign-ins. The resource PersonURI, the prompt "person" and every
	// completion say who the caller's token was issued to as the tool does
	// ("person: WHO").
	People bool
}

// The kinds of request Count counts.
const (
	Register     = "register"
	Authorize    = "authorize"
	TokenCode    = "token:authorization_code"
	TokenRefresh = "token:refresh_token"
	TokenClient  = "token:client_credentials"
	Revoke       = "revoke"
	MCP          = "mcp"            // MCP requests that carried a valid token
	Refused      = "mcp:401"        // MCP requests refused for want of a valid token
	StepUpNeeded = "mcp:403"        // MCP requests refused for want of a scope
	BadRequest   = "auth:bad"       // requests the authorization server refused as malformed
	PRM          = "metadata:prm"   // protected resource metadata fetched
	ASM          = "metadata:asm"   // authorization server metadata fetched
	Resource     = "token:resource" // token requests that named the resource (RFC 8707)
	Hold         = "tool:hold"      // calls of the tool "hold" that began (Options.People)
)

// Server is the pair of servers.
type Server struct {
	// MCPURL is the MCP endpoint (Streamable HTTP); SSEURL the same server over the
	// legacy SSE transport.
	MCPURL, SSEURL string
	// Issuer is the authorization server's issuer (its base URL, another port).
	Issuer string

	opts   Options
	mcp    *mcp.Server
	mcpSrv *httptest.Server
	asSrv  *httptest.Server

	mu       sync.Mutex
	counts   map[string]int
	clients  map[string]*client
	codes    map[string]*grant
	tokens   map[string]*grant // access token → its grant
	refresh  map[string]*grant // refresh token → its grant
	persons  map[string]string // every access token issued → its person
	problems []string
	seq      int

	holds   chan struct{} // closed by ReleaseHolds
	release sync.Once
}

// ReleaseHolds makes the calls of the tool "hold", under way and to come, answer.
func (s *Server) ReleaseHolds() { s.release.Do(func() { close(s.holds) }) }

type client struct {
	id, secret, method string
	redirects          []string
}

type grant struct {
	client    string
	redirect  string
	challenge string
	scopes    []string
	resource  string
	expiry    time.Time
	// person is who approved the sign-in (the PersonHeader of their browser's visit
	// to the authorization endpoint); the tokens of the grant are theirs.
	person string
}

// PersonHeader is what a stand-in browser (BrowseAs) sends the authorization
// endpoint to say who the person signing in is, as a session cookie at a real
// authorization server would.
const PersonHeader = "X-Fakeauth-Person"

// Start runs both servers until the test ends.
func Start(tb testing.TB, opts *Options) *Server {
	tb.Helper()
	s := &Server{counts: map[string]int{}, clients: map[string]*client{}, codes: map[string]*grant{},
		tokens: map[string]*grant{}, refresh: map[string]*grant{}, persons: map[string]string{}, holds: make(chan struct{})}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.TokenTTL == 0 {
		s.opts.TokenTTL = time.Hour
	}
	if s.opts.AuthMethods == nil {
		s.opts.AuthMethods = []string{"none", "client_secret_basic", "client_secret_post"}
	}
	for id, secret := range s.opts.Clients {
		method := "client_secret_basic"
		if secret == "" {
			method = "none"
		}
		s.clients[id] = &client{id: id, secret: secret, method: method}
	}
	s.asSrv = httptest.NewServer(s.authMux())
	tb.Cleanup(s.asSrv.Close)
	s.Issuer = s.asSrv.URL
	s.mcpSrv = httptest.NewServer(s.mcpMux())
	tb.Cleanup(func() {
		s.mcpSrv.Close()
		// The sessions whose clients left without a goodbye (a DELETE) end here.
		for ss := range s.mcp.Sessions() {
			ss.Close()
		}
	})
	s.MCPURL = s.mcpSrv.URL + "/mcp"
	s.SSEURL = s.mcpSrv.URL + "/sse"
	if s.opts.Legacy {
		s.Issuer = s.mcpSrv.URL + "/oauth"
	}
	return s
}

// Count is how many requests of a kind the servers took.
func (s *Server) Count(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[kind]
}

// Problems are the protocol mistakes the servers saw from clients (a missing PKCE
// verifier, an unknown redirect URI, a token request without the resource, ...).
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.problems)
}

// ExpireTokens makes every access token issued so far invalid, as time would: the
// next request with one is refused with 401, and a client with a refresh token can
// get a new one.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}

// PersonOf is who the access token tok was issued to ("" when nobody said, or it
// is no token of this server's).
func (s *Server) PersonOf(tok string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.persons[tok]
}

// AllTokens are every access and refresh token issued so far, valid or not: what no
// answer or log line may show.
func (s *Server) AllTokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for t := range s.persons {
		out = append(out, t)
	}
	for t := range s.refresh {
		out = append(out, t)
	}
	return out
}

// Tokens are the access tokens currently valid.
func (s *Server) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for t := range s.tokens {
		out = append(out, t)
	}
	return out
}

// Clients are the ids of the clients registered (pre-registered and dynamic).
func (s *Server) Clients() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id := range s.clients {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

func (s *Server) count(kind string) {
	s.mu.Lock()
	s.counts[kind]++
	s.mu.Unlock()
}

func (s *Server) problem(format string, args ...any) {
	s.mu.Lock()
	s.problems = append(s.problems, fmt.Sprintf(format, args...))
	s.counts[BadRequest]++
	s.mu.Unlock()
}

func (s *Server) newID(prefix string) string {
	b := make([]byte, 12)
	rand.Read(b)
	s.mu.Lock()
	s.seq++
	n := s.seq
	s.mu.Unlock()
	return fmt.Sprintf("%s-%d-%s", prefix, n, base64.RawURLEncoding.EncodeToString(b))
}

// --- the authorization server ---

func (s *Server) authMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		s.count(ASM)
		meta := map[string]any{
			"issuer":                                s.Issuer,
			"authorization_endpoint":                s.Issuer + "/authorize",
			"token_endpoint":                        s.Issuer + "/token",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": s.opts.AuthMethods,
		}
		if !s.opts.NoRegistration {
			meta["registration_endpoint"] = s.Issuer + "/register"
		}
		if !s.opts.NoRevocation {
			meta["revocation_endpoint"] = s.Issuer + "/revoke"
		}
		if s.opts.ScopesSupported != nil {
			meta["scopes_supported"] = s.opts.ScopesSupported
		}
		if s.opts.CIMD {
			meta["client_id_metadata_document_supported"] = true
		}
		if s.opts.Iss {
			meta["authorization_response_iss_parameter_supported"] = true
		}
		writeJSON(w, http.StatusOK, meta)
	})
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("POST /revoke", s.revoke)
	return mux
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if s.opts.NoRegistration {
		http.NotFound(w, r)
		return
	}
	s.count(Register)
	var md struct {
		RedirectURIs []string `json:"redirect_uris"`
		Method       string   `json:"token_endpoint_auth_method"`
		GrantTypes   []string `json:"grant_types"`
		ClientName   string   `json:"client_name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&md); err != nil || len(md.RedirectURIs) == 0 {
		s.problem("register: bad metadata (%v)", err)
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	c := &client{id: s.newID("dyn"), method: md.Method, redirects: md.RedirectURIs}
	if c.method == "" {
		c.method = "client_secret_basic"
	}
	if c.method != "none" {
		c.secret = s.newID("secret")
	}
	s.mu.Lock()
	s.clients[c.id] = c
	s.mu.Unlock()
	resp := map[string]any{"client_id": c.id, "redirect_uris": c.redirects, "token_endpoint_auth_method": c.method,
		"client_name": md.ClientName, "grant_types": md.GrantTypes}
	if c.secret != "" {
		resp["client_secret"] = c.secret
		resp["client_secret_expires_at"] = 0
	}
	writeJSON(w, http.StatusCreated, resp)
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	s.count(Authorize)
	q := r.URL.Query()
	redirect := q.Get("redirect_uri")
	s.mu.Lock()
	c := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	cimd := s.opts.CIMD && strings.HasPrefix(q.Get("client_id"), "https://")
	switch {
	case c == nil && !cimd:
		s.problem("authorize: unknown client %q", q.Get("client_id"))
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case c != nil && len(c.redirects) > 0 && !slices.Contains(c.redirects, redirect):
		s.problem("authorize: redirect_uri %q is not the registered %q", redirect, c.redirects)
		http.Error(w, "redirect_uri not registered", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code":
		s.problem("authorize: response_type %q", q.Get("response_type"))
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		s.problem("authorize: no S256 PKCE challenge")
	case !s.resource(q.Get("resource")):
		s.problem("authorize: resource %q, want %q", q.Get("resource"), s.MCPURL)
	}
	u, err := url.Parse(redirect)
	if err != nil || redirect == "" {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	back := u.Query()
	if s.opts.Deny {
		back.Set("error", "access_denied")
		back.Set("error_description", "the person said no")
	} else {
		code := s.newID("code")
		s.mu.Lock()
		s.codes[code] = &grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"),
			scopes: strings.Fields(q.Get("scope")), resource: q.Get("resource"), person: r.Header.Get(PersonHeader)}
		s.mu.Unlock()
		back.Set("code", code)
	}
	back.Set("state", q.Get("state"))
	if s.opts.Iss {
		back.Set("iss", s.Issuer)
	}
	u.RawQuery = back.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// resource reports whether r names the MCP server, over either transport.
func (s *Server) resource(r string) bool { return r == s.MCPURL || r == s.SSEURL }

// clientAuth authenticates the client of a token request by its registered method;
// it returns the client id, or "" after answering with an error.
func (s *Server) clientAuth(w http.ResponseWriter, r *http.Request) string {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if s.opts.CIMD && strings.HasPrefix(id, "https://") {
		return id
	}
	s.mu.Lock()
	c := s.clients[id]
	s.mu.Unlock()
	method := "none"
	switch {
	case basic:
		method = "client_secret_basic"
	case secret != "":
		method = "client_secret_post"
	}
	if c == nil || c.secret != secret || (c.method != method && !(c.method == "client_secret_basic" && method == "client_secret_post")) {
		s.problem("token: client %q authenticated with %s, registered for %s", id, method, c.methodOrNone())
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return ""
	}
	return id
}

func (c *client) methodOrNone() string {
	if c == nil {
		return "nothing (unknown client)"
	}
	return c.method
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.problem("token: %v", err)
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	gt := r.PostForm.Get("grant_type")
	s.count("token:" + gt)
	if s.resource(r.PostForm.Get("resource")) {
		s.count(Resource)
	} else {
		s.problem("token (%s): resource %q, want %q", gt, r.PostForm.Get("resource"), s.MCPURL)
	}
	id := s.clientAuth(w, r)
	if id == "" {
		return
	}
	var g *grant
	switch gt {
	case "authorization_code":
		s.mu.Lock()
		g = s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		s.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		switch {
		case g == nil || g.client != id:
			s.problem("token: unknown code")
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			s.problem("token: the PKCE verifier does not match the challenge")
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		case r.PostForm.Get("redirect_uri") != g.redirect:
			s.problem("token: redirect_uri %q, want %q", r.PostForm.Get("redirect_uri"), g.redirect)
		}
	case "refresh_token":
		s.mu.Lock()
		g = s.refresh[r.PostForm.Get("refresh_token")]
		delete(s.refresh, r.PostForm.Get("refresh_token")) // rotated
		s.mu.Unlock()
		if g == nil || g.client != id {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
	case "client_credentials":
		g = &grant{client: id, scopes: strings.Fields(r.PostForm.Get("scope"))}
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access := s.newID("at")
	ng := *g
	ng.expiry = time.Now().Add(s.opts.TokenTTL)
	resp := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(s.opts.TokenTTL / time.Second),
		"scope": strings.Join(ng.scopes, " ")}
	s.mu.Lock()
	s.tokens[access] = &ng
	s.persons[access] = ng.person
	if gt != "client_credentials" {
		rt := s.newIDLocked("rt")
		s.refresh[rt] = &ng
		resp["refresh_token"] = rt
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) newIDLocked(prefix string) string {
	b := make([]byte, 12)
	rand.Read(b)
	s.seq++
	return fmt.Sprintf("%s-%d-%s", prefix, s.seq, base64.RawURLEncoding.EncodeToString(b))
}

func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	if s.opts.NoRevocation {
		http.NotFound(w, r)
		return
	}
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	s.count(Revoke)
	if s.clientAuth(w, r) == "" {
		return
	}
	tok := r.PostForm.Get("token")
	s.mu.Lock()
	delete(s.tokens, tok)
	delete(s.refresh, tok)
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
