package signin_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
	"github.com/switchboard-mcp/switchboard/redact"
	"github.com/switchboard-mcp/switchboard/signin"
)

// env is one test's sign-in set-up: the fake servers, a store, the handlers over it
// and what they logged.
type env struct {
	srv  *fakeauth.Server
	dir  string
	hs   *signin.Handlers
	red  *redact.Redactor
	logs *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newEnv(t *testing.T, opts *fakeauth.Options) *env {
	t.Helper()
	e := &env{srv: fakeauth.Start(t, opts), dir: t.TempDir(), logs: &syncBuffer{}, red: &redact.Redactor{}}
	e.hs = e.handlers(t)
	return e
}

// handlers are new Handlers over the env's store, as another process would have.
func (e *env) handlers(t *testing.T) *signin.Handlers {
	hs := signin.NewHandlers(signin.NewFiles(e.dir), &signin.Options{
		Logger:   slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Redactor: e.red, Poll: 20 * time.Millisecond})
	t.Cleanup(hs.Close)
	return hs
}

func (e *env) server(o *config.OAuth) config.Server {
	return config.Server{Name: "notes", Transport: config.HTTP, URL: e.srv.MCPURL, OAuth: o}
}

// connect opens an MCP session to the server through h.
func connect(t *testing.T, h *signin.Handler) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.Server().URL, OAuthHandler: h,
		HTTPClient: &http.Client{Transport: tr}, DisableStandaloneSSE: true},
		// As upstream connections do: the version with initialize.
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err == nil {
		t.Cleanup(func() { sess.Close() })
	}
	return sess, err
}

func call(t *testing.T, sess *mcp.ClientSession, name, text string) (string, error) {
	t.Helper()
	args := map[string]any{}
	if text != "" {
		args["text"] = text
	}
	res, err := sess.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return strings.Join(out, "\n"), nil
}

func newBrowser() *fakeauth.Person { return fakeauth.NewPerson("notes") }

// signIn connects, expects the server to ask for a sign-in, signs in and connects
// again.
func (e *env) signIn(t *testing.T, h *signin.Handler) *mcp.ClientSession {
	t.Helper()
	if _, err := connect(t, h); !isNeedsSignIn(err) {
		t.Fatalf("connect before signing in: %v, want a *NeedsSignInError", err)
	}
	if err := h.SignIn(t.Context(), newBrowser()); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	sess, err := connect(t, h)
	if err != nil {
		t.Fatalf("connect after signing in: %v", err)
	}
	return sess
}

func isNeedsSignIn(err error) bool {
	var ns *signin.NeedsSignInError
	return errors.As(err, &ns)
}

// TestSignIn: a server that asks for a sign-in is refused at once with a
// *NeedsSignInError naming the command to run; SignIn registers a client (once),
// signs in with PKCE and the resource, stores the registration and the tokens, and
// the server takes the token. New handlers over the same store (a later run) use
// the stored token: no registration, no authorization, no token request.
func TestSignIn(t *testing.T) {
	e := newEnv(t, &fakeauth.Options{Scopes: []string{"notes:read"}, ScopesSupported: []string{"notes:read", "offline_access"}})
	h := e.hs.Handler(e.server(nil))
	_, err := connect(t, h)
	var ns *signin.NeedsSignInError
	if !errors.As(err, &ns) {
		t.Fatalf("connect: %v, want a *NeedsSignInError", err)
	}
	if want := "server notes needs a sign-in: run 'switchboard login notes'"; ns.Error() != want {
		t.Errorf("error = %q, want %q", ns.Error(), want)
	}
	if ch := h.Challenge(); ch == nil || !slices.Equal(ch.Scopes, []string{"notes:read"}) {
		t.Errorf("Challenge() = %+v, want the server's with scope notes:read", ch)
	}
	b := newBrowser()
	if err := h.SignIn(t.Context(), b); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	sess, err := connect(t, h)
	if err != nil {
		t.Fatalf("connect after signing in: %v", err)
	}
	if got, err := call(t, sess, "echo", "hi"); err != nil || got != "hi" {
		t.Fatalf("echo: %q, %v", got, err)
	}
	// The authorization request asked for the challenge's scope and offline_access
	// (offered by the authorization server), in any order (the SDK's varies), with
	// the resource.
	u, _ := url.Parse(b.Opened()[0])
	if got := strings.Fields(u.Query().Get("scope")); !sameSet(got, []string{"notes:read", "offline_access"}) {
		t.Errorf("authorization request scope = %q, want notes:read and offline_access", got)
	}
	for kind, want := range map[string]int{fakeauth.Register: 1, fakeauth.Authorize: 1, fakeauth.TokenCode: 1, fakeauth.BadRequest: 0} {
		if got := e.srv.Count(kind); got != want {
			t.Errorf("%s: %d requests, want %d", kind, got, want)
		}
	}
	if p := e.srv.Problems(); len(p) > 0 {
		t.Errorf("the authorization server saw protocol mistakes: %q", p)
	}

	// A later run: the stored token serves; nothing is asked of the servers.
	later := e.handlers(t).Handler(e.server(nil))
	sess2, err := connect(t, later)
	if err != nil {
		t.Fatalf("a later run's connect: %v", err)
	}
	if got, err := call(t, sess2, "echo", "again"); err != nil || got != "again" {
		t.Fatalf("echo: %q, %v", got, err)
	}
	for kind, want := range map[string]int{fakeauth.Register: 1, fakeauth.Authorize: 1, fakeauth.TokenCode: 1, fakeauth.TokenRefresh: 0} {
		if got := e.srv.Count(kind); got != want {
			t.Errorf("after a later run, %s: %d requests, want %d", kind, got, want)
		}
	}
	// No token, secret or code in the logs; the redactor knows the tokens.
	for _, tok := range e.srv.Tokens() {
		if strings.Contains(e.logs.String(), tok) {
			t.Errorf("the logs hold an access token")
		}
		if got := e.red.String("token " + tok); strings.Contains(got, tok) {
			t.Errorf("the redactor does not mask the access token: %q", got)
		}
	}
}

// TestRegistrationReused: a second sign-in (the tokens forgotten, the registration
// kept) reuses the stored registration and its redirect URI: the authorization
// server sees one registration.
func TestRegistrationReused(t *testing.T) {
	e := newEnv(t, nil)
	h := e.hs.Handler(e.server(nil))
	e.signIn(t, h)
	e.srv.ExpireTokens()
	// Another process, whose token the server refuses and which cannot refresh it.
	later := e.handlers(t).Handler(e.server(nil))
	e.srv.ExpireTokens()
	if err := later.SignIn(t.Context(), newBrowser()); err != nil {
		t.Fatalf("second SignIn: %v", err)
	}
	if _, err := connect(t, later); err != nil {
		t.Fatalf("connect after the second sign-in: %v", err)
	}
	if got := e.srv.Count(fakeauth.Register); got != 1 {
		t.Errorf("%d registrations for two sign-ins, want 1", got)
	}
	if got := e.srv.Count(fakeauth.Authorize); got != 2 {
		t.Errorf("%d authorizations, want 2", got)
	}
	if p := e.srv.Problems(); len(p) > 0 {
		t.Errorf("the authorization server saw protocol mistakes: %q", p)
	}
}

// TestRefresh: a token the server refuses (401) is refreshed with the refresh token
// (the resource named, RFC 8707) and the request goes through; the new tokens are
// stored, so that a later run uses them. A token that nears its expiry is refreshed
// before it is sent.
func TestRefresh(t *testing.T) {
	e := newEnv(t, nil)
	h := e.hs.Handler(e.server(nil))
	sess := e.signIn(t, h)
	e.srv.ExpireTokens()
	if got, err := call(t, sess, "echo", "after expiry"); err != nil || got != "after expiry" {
		t.Fatalf("echo after the token expired: %q, %v", got, err)
	}
	if got := e.srv.Count(fakeauth.TokenRefresh); got != 1 {
		t.Errorf("%d refreshes, want 1", got)
	}
	if got := e.srv.Count(fakeauth.Resource); got != e.srv.Count(fakeauth.TokenCode)+e.srv.Count(fakeauth.TokenRefresh) {
		t.Errorf("%d token requests named the resource, of %d", got, e.srv.Count(fakeauth.TokenCode)+e.srv.Count(fakeauth.TokenRefresh))
	}
	later := e.handlers(t).Handler(e.server(nil))
	if _, err := connect(t, later); err != nil {
		t.Fatalf("a later run with the refreshed token: %v", err)
	}
	if got := e.srv.Count(fakeauth.TokenRefresh); got != 1 {
		t.Errorf("the later run refreshed again: %d refreshes, want 1", got)
	}

	// Tokens that live 30 s: refreshed before they are sent, within a minute of
	// their expiry.
	short := newEnv(t, &fakeauth.Options{TokenTTL: 30 * time.Second})
	hs := short.hs.Handler(short.server(nil))
	sess = short.signIn(t, hs)
	if _, err := call(t, sess, "echo", "x"); err != nil {
		t.Fatal(err)
	}
	if short.srv.Count(fakeauth.TokenRefresh) == 0 {
		t.Errorf("a token 30 s from its expiry was sent without a refresh")
	}
	if got := short.srv.Count(fakeauth.Refused); got != 1 {
		t.Errorf("%d requests refused, want 1 (the first, before the sign-in)", got)
	}
}

// TestStepUp: a call the token's scopes do not cover is refused with 403
// insufficient_scope: the handler answers with a step-up *NeedsSignInError, and a
// new sign-in asks for what was granted plus what the server asks for. A server that
// refuses a token holding every scope it names is not asked again.
func TestStepUp(t *testing.T) {
	e := newEnv(t, &fakeauth.Options{Scopes: []string{"notes:read"}, StepUp: "notes:write"})
	h := e.hs.Handler(e.server(nil))
	sess := e.signIn(t, h)
	_, err := call(t, sess, "write", "x")
	var ns *signin.NeedsSignInError
	if !errors.As(err, &ns) || !ns.StepUp {
		t.Fatalf("write without the scope: %v, want a step-up *NeedsSignInError", err)
	}
	if !strings.Contains(ns.Error(), `asks for more access (scope "notes:read notes:write")`) {
		t.Errorf("error %q does not say what the server asks for", ns)
	}
	b := newBrowser()
	if err := h.SignIn(t.Context(), b); err != nil {
		t.Fatalf("step-up SignIn: %v", err)
	}
	u, _ := url.Parse(b.Opened()[0])
	got := strings.Fields(u.Query().Get("scope"))
	slices.Sort(got)
	if !slices.Equal(got, []string{"notes:read", "notes:write"}) {
		t.Errorf("step-up scope = %q, want notes:read notes:write", got)
	}
	if got, err := call(t, sess, "write", "x"); err != nil || got != "wrote x" {
		t.Fatalf("write after the step-up: %q, %v", got, err)
	}

	never := newEnv(t, &fakeauth.Options{AlwaysStepUp: true})
	hn := never.hs.Handler(never.server(nil))
	if _, err := connect(t, hn); !isNeedsSignIn(err) {
		t.Fatalf("connect: %v", err)
	}
	if err := hn.SignIn(t.Context(), newBrowser()); err != nil {
		t.Fatal(err)
	}
	_, err = connect(t, hn)
	if err == nil || !isNeedsSignIn(err) {
		t.Fatalf("connect after the first sign-in: %v, want a step-up", err)
	}
	if err := hn.SignIn(t.Context(), newBrowser()); err != nil {
		t.Fatal(err)
	}
	_, err = connect(t, hn)
	if err == nil || isNeedsSignIn(err) || !strings.Contains(err.Error(), "a new sign-in would not change that") {
		t.Fatalf("connect with every scope the server names: %v, want an error that is no request for a sign-in", err)
	}
	if got := never.srv.Count(fakeauth.Authorize); got != 2 {
		t.Errorf("%d authorizations, want 2 (then no more)", got)
	}
}

// TestClientCredentials: "grant": "client_credentials" signs in with the client's
// id and secret, no person asked, and stores the token for a later run.
func TestClientCredentials(t *testing.T) {
	e := newEnv(t, &fakeauth.Options{Clients: map[string]string{"svc": "svc-secret"}, NoRegistration: true,
		AuthMethods: []string{"client_secret_basic"}, Scopes: []string{"notes:read"}})
	o := &config.OAuth{Grant: config.GrantClientCredentials, ClientID: "svc", ClientSecret: "svc-secret"}
	h := e.hs.Handler(e.server(o))
	sess, err := connect(t, h)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if got, err := call(t, sess, "whoami", ""); err != nil || got != "scopes: notes:read" {
		t.Fatalf("whoami: %q, %v", got, err)
	}
	if _, err := connect(t, e.handlers(t).Handler(e.server(o))); err != nil {
		t.Fatalf("a later run: %v", err)
	}
	if got := e.srv.Count(fakeauth.TokenClient); got != 1 {
		t.Errorf("%d client credentials requests, want 1 (the later run uses the stored token)", got)
	}
	if err := h.SignIn(t.Context(), newBrowser()); err == nil || !strings.Contains(err.Error(), "no person is needed") {
		t.Errorf("SignIn with client credentials: %v", err)
	}
	if p := e.srv.Problems(); len(p) > 0 {
		t.Errorf("the authorization server saw protocol mistakes: %q", p)
	}
}

// TestPreregistered: a config's clientId (and secret) is used as it is, with no
// registration; an authorization server without registration and a config without a
// client is an error that says what to do.
func TestPreregistered(t *testing.T) {
	e := newEnv(t, &fakeauth.Options{Clients: map[string]string{"app": "app-secret"}, NoRegistration: true,
		AuthMethods: []string{"client_secret_basic"}})
	h := e.hs.Handler(e.server(&config.OAuth{ClientID: "app", ClientSecret: "app-secret"}))
	sess := e.signIn(t, h)
	if _, err := call(t, sess, "echo", "x"); err != nil {
		t.Fatal(err)
	}
	if p := e.srv.Problems(); len(p) > 0 {
		t.Errorf("the authorization server saw protocol mistakes: %q", p)
	}
	// The configured secret is not copied to the store.
	recs, err := signin.NewFiles(e.dir).Load(t.Context(), e.srv.MCPURL, "")
	if err != nil || len(recs) != 1 {
		t.Fatalf("store: %v, %d records", err, len(recs))
	}
	if recs[0].Client.Secret != "" {
		t.Errorf("the store holds the config's client secret")
	}
	// Refreshing with the config's secret.
	e.srv.ExpireTokens()
	if _, err := call(t, sess, "echo", "x"); err != nil {
		t.Fatalf("echo after expiry: %v", err)
	}

	none := newEnv(t, &fakeauth.Options{NoRegistration: true})
	hn := none.hs.Handler(none.server(nil))
	if _, err := connect(t, hn); !isNeedsSignIn(err) {
		t.Fatal(err)
	}
	err = hn.SignIn(t.Context(), newBrowser())
	if err == nil || !strings.Contains(err.Error(), `takes no dynamic client registration: register an app there`) ||
		!strings.Contains(err.Error(), `"oauth": {"clientId": ...}`) {
		t.Errorf("SignIn without registration or client id: %v", err)
	}
}

// TestResourceMismatch: protected resource metadata for another resource ends the
// sign-in before the person is sent anywhere.
func TestResourceMismatch(t *testing.T) {
	e := newEnv(t, &fakeauth.Options{Resource: "https://evil.example/mcp"})
	h := e.hs.Handler(e.server(nil))
	if _, err := connect(t, h); !isNeedsSignIn(err) {
		t.Fatal(err)
	}
	err := h.SignIn(t.Context(), newBrowser())
	if err == nil || !strings.Contains(err.Error(), "is for another resource") {
		t.Errorf("SignIn: %v, want the mismatch", err)
	}
	if got := e.srv.Count(fakeauth.Authorize) + e.srv.Count(fakeauth.Register); got != 0 {
		t.Errorf("%d requests reached the authorization server", got)
	}
}

// TestForget: Forget revokes the tokens where the authorization server offers it
// and forgets the sign-in: the server asks for one again.
func TestForget(t *testing.T) {
	e := newEnv(t, nil)
	h := e.hs.Handler(e.server(nil))
	e.signIn(t, h)
	f, err := h.Forget(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	if f.Records != 1 || f.Revoked != 2 || len(f.Errors) > 0 {
		t.Errorf("Forget = %+v, want 1 record, 2 tokens revoked", f)
	}
	if len(e.srv.Tokens()) != 0 {
		t.Errorf("the authorization server still takes %d token(s)", len(e.srv.Tokens()))
	}
	if recs, _ := signin.NewFiles(e.dir).Load(t.Context(), e.srv.MCPURL, ""); len(recs) != 0 {
		t.Errorf("the store still holds %d record(s)", len(recs))
	}
	if _, err := connect(t, h); !isNeedsSignIn(err) {
		t.Errorf("connect after Forget: %v, want a request for a sign-in", err)
	}
	if p := e.srv.Problems(); len(p) > 0 {
		t.Errorf("the authorization server saw protocol mistakes: %q", p)
	}
}

// TestWaitSignIn: a handler whose server needs a sign-in picks up one that another
// process (other Handlers over the same store) made meanwhile.
func TestWaitSignIn(t *testing.T) {
	e := newEnv(t, nil)
	waiting := e.hs.Handler(e.server(nil))
	if _, err := connect(t, waiting); !isNeedsSignIn(err) {
		t.Fatal(err)
	}
	woke := make(chan error, 1)
	go func() { woke <- waiting.WaitSignIn(t.Context()) }()
	other := e.handlers(t).Handler(e.server(nil))
	if _, err := connect(t, other); !isNeedsSignIn(err) {
		t.Fatal(err)
	}
	if err := other.SignIn(t.Context(), newBrowser()); err != nil {
		t.Fatal(err)
	}
	if err := <-woke; err != nil {
		t.Fatalf("WaitSignIn: %v", err)
	}
	if _, err := connect(t, waiting); err != nil {
		t.Fatalf("connect after the sign-in elsewhere: %v", err)
	}
}

// TestCallback: a service's callback route takes the redirect of a sign-in whose
// URL it showed; a state nobody waits for is refused.
func TestCallback(t *testing.T) {
	e := newEnv(t, nil)
	mux := http.NewServeMux()
	web := httptest.NewServer(mux)
	t.Cleanup(web.Close)
	cb := signin.NewCallback(web.URL+"/oauth/callback", 10*time.Second)
	mux.Handle("GET /oauth/callback", cb)
	h := e.hs.Handler(e.server(nil))
	if _, err := connect(t, h); !isNeedsSignIn(err) {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	shown := make(chan string, 1)
	err := h.SignIn(t.Context(), cb.With(func(authURL string) {
		shown <- authURL
		wg.Go(func() {
			if err := fakeauth.Browse(t.Context(), authURL); err != nil {
				t.Errorf("browser: %v", err)
			}
		})
	}))
	if err != nil {
		t.Fatalf("SignIn through the callback: %v", err)
	}
	u, _ := url.Parse(<-shown)
	if got := u.Query().Get("redirect_uri"); got != cb.URI() {
		t.Errorf("redirect_uri = %q, want the callback's %q", got, cb.URI())
	}
	if _, err := connect(t, h); err != nil {
		t.Fatalf("connect: %v", err)
	}
	resp, err := http.Get(web.URL + "/oauth/callback?state=forged&code=x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a forged state: %s, want 400", resp.Status)
	}
}

// TestLoopbackGivesUp: a sign-in nobody completes ends after the timeout with a
// message that says so and what to do; a refused one says the server's error code.
func TestLoopbackGivesUp(t *testing.T) {
	e := newEnv(t, nil)
	h := e.hs.Handler(e.server(nil))
	if _, err := connect(t, h); !isNeedsSignIn(err) {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := h.SignIn(t.Context(), &signin.Loopback{Server: "notes", Out: &out, Timeout: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no answer from the browser within 50ms: the sign-in to notes was not completed; run 'switchboard login notes' again") {
		t.Errorf("SignIn: %v", err)
	}
	if !strings.Contains(out.String(), "To sign in to notes, open this URL in a browser:\n\n  "+e.srv.Issuer+"/authorize?") {
		t.Errorf("printed %q, want the authorization URL", out.String())
	}

	denied := newEnv(t, &fakeauth.Options{Deny: true})
	hd := denied.hs.Handler(denied.server(nil))
	if _, err := connect(t, hd); !isNeedsSignIn(err) {
		t.Fatal(err)
	}
	err = hd.SignIn(t.Context(), newBrowser())
	if err == nil || !strings.Contains(err.Error(), "the authorization server refused the sign-in: access_denied") {
		t.Errorf("SignIn refused: %v", err)
	}
	// The error_description is the authorization server's free text: the log has
	// it, the error people read does not (issue 32).
	if strings.Contains(err.Error(), "the person said no") || !strings.Contains(denied.logs.String(), "the person said no") {
		t.Errorf("SignIn refused: %v; log:\n%s\nwant the description in the log alone", err, denied.logs)
	}
}

// TestLegacyServer: a server of the 2025-03-26 spec (no protected resource metadata;
// its origin's authorization server metadata names an issuer of its own, which the
// SDK's handler refuses) is signed in to all the same: registered once, PKCE and the
// resource, the token stored and refreshed.
func TestLegacyServer(t *testing.T) {
	e := newEnv(t, &fakeauth.Options{Legacy: true, ScopesSupported: []string{"offline_access"}})
	h := e.hs.Handler(e.server(nil))
	sess := e.signIn(t, h)
	if got, err := call(t, sess, "echo", "legacy"); err != nil || got != "legacy" {
		t.Fatalf("echo: %q, %v", got, err)
	}
	e.srv.ExpireTokens()
	if got, err := call(t, sess, "echo", "refreshed"); err != nil || got != "refreshed" {
		t.Fatalf("echo after expiry: %q, %v", got, err)
	}
	for kind, want := range map[string]int{fakeauth.Register: 1, fakeauth.Authorize: 1, fakeauth.TokenCode: 1, fakeauth.TokenRefresh: 1} {
		if got := e.srv.Count(kind); got != want {
			t.Errorf("%s: %d requests, want %d", kind, got, want)
		}
	}
	if p := e.srv.Problems(); len(p) > 0 {
		t.Errorf("the authorization server saw protocol mistakes: %q", p)
	}
	// A second sign-in reuses the registration.
	if err := e.handlers(t).Handler(e.server(nil)).SignIn(t.Context(), newBrowser()); err != nil {
		t.Fatal(err)
	}
	if got := e.srv.Count(fakeauth.Register); got != 1 {
		t.Errorf("%d registrations after a second sign-in, want 1", got)
	}
}

// TestRefreshBound: a token that a refresh forced by a 401 just brought, refused
// too, is not refreshed again at once: the server that refuses every token costs one
// refresh, not one per request, and the handler asks for a sign-in.
func TestRefreshBound(t *testing.T) {
	e := newEnv(t, nil)
	h := e.hs.Handler(e.server(nil))
	sess := e.signIn(t, h)
	e.srv.ExpireTokens()
	if _, err := call(t, sess, "echo", "x"); err != nil {
		t.Fatalf("echo after the first expiry: %v", err)
	}
	e.srv.ExpireTokens()
	if _, err := call(t, sess, "echo", "x"); !isNeedsSignIn(err) {
		t.Errorf("echo after the refreshed token was refused too: %v, want a request for a sign-in", err)
	}
	if got := e.srv.Count(fakeauth.TokenRefresh); got != 1 {
		t.Errorf("%d refreshes, want 1", got)
	}
}

// TestRegistrationPerRedirect: signing in from a terminal (a loopback listener) and
// through a service's callback (another redirect URI) registers once for each, and
// switching back and forth registers no more: each registration is kept beside the
// other, and a registration made while tokens are held leaves those tokens usable.
func TestRegistrationPerRedirect(t *testing.T) {
	e := newEnv(t, nil)
	mux := http.NewServeMux()
	web := httptest.NewServer(mux)
	t.Cleanup(web.Close)
	cb := signin.NewCallback(web.URL+"/oauth/callback", 10*time.Second)
	mux.Handle("GET /oauth/callback", cb)
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	viaCallback := cb.With(func(authURL string) {
		wg.Go(func() {
			if err := fakeauth.Browse(t.Context(), authURL); err != nil {
				t.Errorf("browser: %v", err)
			}
		})
	})
	h := e.hs.Handler(e.server(nil))
	e.signIn(t, h) // at a terminal: the first registration
	for i, r := range []signin.Redirect{viaCallback, newBrowser(), viaCallback, newBrowser()} {
		// Each sign-in in a new process, whose token the server refuses.
		e.srv.ExpireTokens()
		later := e.handlers(t).Handler(e.server(nil))
		if err := later.SignIn(t.Context(), r); err != nil {
			t.Fatalf("sign-in %d: %v", i+2, err)
		}
		if _, err := connect(t, later); err != nil {
			t.Fatalf("connect after sign-in %d: %v", i+2, err)
		}
	}
	if got := e.srv.Count(fakeauth.Register); got != 2 {
		t.Errorf("%d registrations for five sign-ins through two redirect URIs, want 2", got)
	}
	if got := e.srv.Count(fakeauth.Authorize); got != 5 {
		t.Errorf("%d authorizations, want 5", got)
	}
	if p := e.srv.Problems(); len(p) > 0 {
		t.Errorf("the authorization server saw protocol mistakes: %q", p)
	}
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}
