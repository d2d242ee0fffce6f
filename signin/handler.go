package signin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/redact"
)

// Defaults of Options' zero values.
const (
	// DefaultTimeout bounds each request to an authorization server (metadata,
	// registration, tokens, revocation).
	DefaultTimeout = 30 * time.Second
	// DefaultPoll is how often a handler waiting for a sign-in made elsewhere (by
	// switchboard login in another terminal) looks at the store.
	DefaultPoll = 2 * time.Second
	// DefaultEarlyRefresh is how long before its expiry an access token is
	// refreshed, so that a request does not leave with a token about to expire.
	DefaultEarlyRefresh = time.Minute
	// refreshPause is how long a token that a refresh forced by a 401 brought is not
	// refreshed again when it is refused too.
	refreshPause = time.Minute
	// ClientName is how Switchboard names itself when it registers (RFC 7591's
	// client_name, shown to the person on the consent page).
	ClientName = "Switchboard"
)

// Options configure the handlers of a [Handlers]. A nil *Options, like each zero
// field, means the defaults.
type Options struct {
	// Logger gets what the handlers do (signed in, refreshed, registered), never a
	// token or a secret; nil discards it.
	Logger *slog.Logger
	// Redactor learns every secret the handlers come to know (tokens, dynamic
	// clients' secrets, authorization codes), so that whoever masks with it masks
	// them; nil: one of their own.
	Redactor *redact.Redactor
	// Transport is the base of the handlers' HTTP clients (nil: a clone of
	// http.DefaultTransport, closed with the Handlers). The MCP SDK's own checks of
	// the addresses it is sent to (public addresses only, besides loopback) do not
	// apply to a transport of its caller's: the URLs come from the servers the
	// config names, which may well live on a private network.
	Transport http.RoundTripper
	// Timeout bounds each request to an authorization server ([DefaultTimeout]).
	Timeout time.Duration
	// Poll is how often a handler waiting for a sign-in made elsewhere looks at the
	// store ([DefaultPoll]).
	Poll time.Duration
}

// Handlers are the sign-in handlers of one program's servers, one per server, over
// one store. For is what a hub's servers take as their upstream.Options.OAuth.
type Handlers struct {
	store Store
	opts  Options
	log   *slog.Logger
	red   *redact.Redactor
	base  http.RoundTripper
	own   *http.Transport // the base when Options gave none: closed by Close

	how atomic.Pointer[func(server string) string] // SetHow's

	mu       sync.Mutex
	byName   map[string]*Handler
	byPerson map[personKey]*Handler // subject.go
}

// SetHow sets how a person signs in to a server where the program runs, which a
// *NeedsSignInError says (how(name), e.g. "sign in from the dashboard"); nil, the
// default, says to run 'switchboard login NAME'. A service that offers its own way
// (serve's dashboard and API) sets it once it serves.
func (hs *Handlers) SetHow(how func(server string) string) {
	if how == nil {
		hs.how.Store(nil)
		return
	}
	hs.how.Store(&how)
}

// NewHandlers returns the handlers over store.
func NewHandlers(store Store, opts *Options) *Handlers {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Redactor == nil {
		o.Redactor = &redact.Redactor{}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	hs := &Handlers{store: store, opts: o, log: slog.New(o.Redactor.Handler(o.Logger.Handler())), red: o.Redactor,
		base: o.Transport, byName: map[string]*Handler{}}
	if hs.base == nil {
		hs.own = http.DefaultTransport.(*http.Transport).Clone()
		hs.base = hs.own
	}
	return hs
}

// Store is the handlers' store.
func (hs *Handlers) Store() Store { return hs.store }

// Signs reports whether Switchboard signs in to s when it asks: an HTTP or SSE
// server that the config gives no "Authorization" header (a server with one has its
// credentials already; one whose "oauth" says how to sign in always signs in).
func Signs(s config.Server) bool {
	if s.Transport == config.Stdio || s.URL == "" {
		return false
	}
	if s.OAuth != nil {
		return true
	}
	for k := range s.Headers {
		if strings.EqualFold(k, "Authorization") {
			return false
		}
	}
	return true
}

// For returns the handler of server s, made on the first call and kept while s's
// configuration stays the same; nil (a nil interface) when Switchboard does not sign
// in to s (see [Signs]).
func (hs *Handlers) For(s config.Server) auth.OAuthHandler {
	if h := hs.handler(s); h != nil {
		return h
	}
	return nil
}

func (hs *Handlers) handler(s config.Server) *Handler {
	if !Signs(s) {
		return nil
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if h := hs.byName[s.Name]; h != nil && h.srv.URL == s.URL && sameOAuth(h.srv.OAuth, s.OAuth) {
		return h
	}
	h := &Handler{hs: hs, srv: s, log: hs.log.With("server", s.Name), signedIn: make(chan struct{})}
	hs.byName[s.Name] = h
	return h
}

func sameOAuth(a, b *config.OAuth) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ClientID == b.ClientID && a.ClientSecret == b.ClientSecret && slices.Equal(a.Scopes, b.Scopes) &&
		a.RedirectURI == b.RedirectURI && a.Grant == b.Grant && a.ClientMetadataURL == b.ClientMetadataURL
}

// Handler returns the handler of s as For does, as its own type; nil when
// Switchboard does not sign in to s.
func (hs *Handlers) Handler(s config.Server) *Handler { return hs.handler(s) }

// Close closes the idle connections of the handlers' own transport.
func (hs *Handlers) Close() {
	if hs.own != nil {
		hs.own.CloseIdleConnections()
	}
}

// client is an HTTP client for an authorization server, through t (nil: the base).
func (hs *Handlers) client(t http.RoundTripper) *http.Client {
	if t == nil {
		t = hs.base
	}
	return &http.Client{Transport: t, Timeout: hs.opts.Timeout}
}

// Handler signs Switchboard in to one server: it is the server's auth.OAuthHandler,
// which the MCP SDK's transport asks for a token on every request and calls on a
// 401 or 403. It never makes a person wait: it sends the stored token, refreshes it
// before it expires and when the server refuses it, signs in by itself where no
// person is needed (client credentials, a sign-in stored meanwhile by another
// process), and otherwise answers at once with a *NeedsSignInError. SignIn makes the
// sign-in that only a person can make.
type Handler struct {
	hs  *Handlers
	srv config.Server
	log *slog.Logger
	// subject is the person whose own sign-in the handler holds ("": the service's
	// own); see subject.go.
	subject string

	mu     sync.Mutex
	loaded bool
	rec    *Record // the record whose token the requests carry
	// challenge is the last request for a sign-in that the handler could not make.
	challenge *Challenge
	// refreshed is the access token that the last refresh forced by a 401 brought,
	// at refreshedAt: refused too within refreshPause, it is not refreshed again (a
	// server that refuses every token would otherwise cost a refresh per request).
	refreshed   string
	refreshedAt time.Time
	// signedIn is closed (and replaced) when a sign-in completes in this process.
	signedIn chan struct{}
}

var _ auth.OAuthHandler = (*Handler)(nil)

// Server is the handler's server.
func (h *Handler) Server() config.Server { return h.srv }

// load reads the store once: the most recently updated record with a token.
func (h *Handler) loadLocked(ctx context.Context) {
	if h.loaded {
		return
	}
	h.loaded = true
	recs, err := h.hs.store.Load(ctx, h.srv.URL, h.subject)
	if err != nil {
		h.log.Warn("sign-in store unreadable", "err", err)
		return
	}
	for _, r := range recs {
		if r.Token != nil {
			h.adoptLocked(r)
			return
		}
	}
}

// adoptLocked makes rec the record in use, its secrets known to the redactor.
func (h *Handler) adoptLocked(rec *Record) {
	h.rec = rec
	h.hs.red.Add(rec.Client.Secret)
	if rec.Token != nil {
		h.hs.red.Add(rec.Token.AccessToken, rec.Token.RefreshToken)
	}
}

// TokenSource implements auth.OAuthHandler: the stored token, refreshed as it
// nears its expiry; nil until there is one.
func (h *Handler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loadLocked(ctx)
	if h.rec == nil || h.rec.Token == nil {
		return nil, nil
	}
	return source{h}, nil
}

// source is a Handler's token source.
type source struct{ h *Handler }

// Token returns the token in use, refreshed first when it expires within
// DefaultEarlyRefresh; nil (a request without a token, which the server refuses
// with 401, and Authorize takes from there) when it expired and cannot be refreshed.
func (s source) Token() (*oauth2.Token, error) {
	h := s.h
	h.mu.Lock()
	defer h.mu.Unlock()
	rec := h.rec
	if rec == nil || rec.Token == nil {
		return nil, nil
	}
	tok := rec.Token
	if tok.Expiry.IsZero() || time.Until(tok.Expiry) > DefaultEarlyRefresh {
		return tok, nil
	}
	live := time.Now().Before(tok.Expiry)
	if tok.RefreshToken == "" || rec.TokenURL == "" {
		if live {
			return tok, nil
		}
		return nil, nil
	}
	nt, err := h.refreshLocked()
	if err != nil {
		if live {
			return tok, nil // good for a little longer; the next request tries again
		}
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			return nil, nil
		}
		return nil, err
	}
	return nt, nil
}

// refreshLocked refreshes the token in use with its refresh token (x/oauth2's
// refresh grant, with the resource, RFC 8707), saves it, and makes it the one in
// use. A refresh token the server refuses (invalid_grant) is dropped from the
// record: only a new sign-in can help then.
func (h *Handler) refreshLocked() (*oauth2.Token, error) {
	rec := h.rec
	ctx, cancel := context.WithTimeout(context.Background(), h.hs.opts.Timeout)
	defer cancel()
	w := newWitness(h.hs.base)
	w.label(rec.TokenURL, "the token request")
	ctx = context.WithValue(ctx, oauth2.HTTPClient, h.hs.client(&flowTransport{base: w, tokenURL: rec.TokenURL, resource: rec.Resource}))
	cfg := h.oauthConfig(rec)
	nt, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: rec.Token.RefreshToken}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			dropped := *rec
			dropped.Token, dropped.Scopes, dropped.Updated = nil, nil, time.Now()
			h.rec = &dropped
			if serr := h.hs.store.Save(context.Background(), &dropped); serr != nil {
				h.log.Warn("sign-in store: forgetting the refused token failed", "err", serr)
			}
			h.log.Warn("the authorization server refused the refresh token; the server needs a new sign-in", "issuer", rec.Issuer)
		}
		return nil, h.failure("refreshing the token", w, err, "the token request at "+rec.TokenURL+" failed")
	}
	h.hs.red.Add(nt.AccessToken, nt.RefreshToken)
	nr := *rec
	nr.Token, nr.Scopes, nr.Updated = nt, grantedScopes(nt, rec.Scopes), time.Now()
	if err := h.hs.store.Save(ctx, &nr); err != nil {
		h.log.Warn("sign-in store: saving the refreshed token failed; it lives until the process ends", "err", err)
	}
	h.rec = &nr
	h.log.Info("token refreshed", "issuer", rec.Issuer, "expires", nt.Expiry.Format(time.RFC3339))
	return nt, nil
}

// maskedError is an error whose message went through the redactor (an
// authorization server's error may quote what it was sent), still unwrapping to the
// original for errors.As.
type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }

func (h *Handler) mask(err error) error {
	if err == nil {
		return nil
	}
	return &maskedError{msg: h.hs.red.String(err.Error()), err: err}
}

// oauthConfig is the x/oauth2 config of a record's client at its token endpoint.
func (h *Handler) oauthConfig(rec *Record) *oauth2.Config {
	return &oauth2.Config{ClientID: rec.Client.ID, ClientSecret: h.clientSecret(rec),
		Endpoint: oauth2.Endpoint{TokenURL: rec.TokenURL, AuthStyle: authStyle(rec.Client.AuthMethod)}}
}

// clientSecret is a record's client's secret: a dynamic registration's is kept with
// it, a configured client's is the config's (never copied into the store).
func (h *Handler) clientSecret(rec *Record) string {
	if rec.Client.Dynamic || h.srv.OAuth == nil || h.srv.OAuth.ClientID != rec.Client.ID {
		return rec.Client.Secret
	}
	return h.srv.OAuth.ClientSecret
}

func authStyle(method string) oauth2.AuthStyle {
	switch method {
	case "client_secret_basic":
		return oauth2.AuthStyleInHeader
	case "client_secret_post", "none":
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleAutoDetect
}

func methodOf(style oauth2.AuthStyle, secret string) string {
	switch {
	case style == oauth2.AuthStyleInHeader:
		return "client_secret_basic"
	case style == oauth2.AuthStyleInParams && secret == "":
		return "none"
	case style == oauth2.AuthStyleInParams:
		return "client_secret_post"
	}
	return ""
}

// Authorize implements auth.OAuthHandler: the server refused a request with 401 (no
// valid token) or 403 (a scope the token lacks). It signs in by itself where nobody
// is needed: a token another process stored meanwhile, a refresh of the refused
// token, the client credentials grant. Otherwise it keeps the server's challenge
// for SignIn and returns a *NeedsSignInError at once.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	ch := newChallenge(resp)
	if resp.StatusCode == http.StatusForbidden && !ch.StepUp() {
		// Not a matter of scope: no sign-in helps. The transport sends the request
		// again, and its 403 reaches the caller.
		return nil
	}
	if h.srv.OAuth.GrantType() == config.GrantClientCredentials {
		return h.clientCredentials(ctx, ch)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loadLocked(ctx)
	refused, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if !ch.StepUp() {
		// A sign-in stored meanwhile by another process (switchboard login).
		if rec := h.newerLocked(ctx, refused); rec != nil {
			h.adoptLocked(rec)
			h.log.Info("using the sign-in stored by another process", "issuer", rec.Issuer)
			return nil
		}
		rec := h.rec
		again := refused == h.refreshed && time.Since(h.refreshedAt) < refreshPause
		if rec != nil && rec.Token != nil && rec.Token.AccessToken == refused && !again &&
			rec.Token.RefreshToken != "" && rec.TokenURL != "" {
			nt, err := h.refreshLocked()
			if err == nil {
				h.refreshed, h.refreshedAt = nt.AccessToken, time.Now()
				return nil
			}
			h.log.Warn("refresh after a 401 failed", "err", err)
		}
	} else if h.rec != nil && h.rec.Token != nil && h.rec.Token.AccessToken == refused && covers(h.rec.Scopes, ch.Scopes) {
		// The token has every scope the server names, and the server still wants
		// more: a sign-in would ask for the same again (and again).
		return fmt.Errorf("server %s refuses the token for want of scope %q, which the token was granted: a new sign-in would not change that",
			h.srv.Name, strings.Join(ch.Scopes, " "))
	}
	if resp.StatusCode == http.StatusUnauthorized && !ch.bearer() {
		return fmt.Errorf(`HTTP 401 Unauthorized: the server wants authorization but names no OAuth sign-in (no "WWW-Authenticate: Bearer" challenge); give it a token in the server's "headers" (e.g. "Authorization": "Bearer ${TOKEN}")`)
	}
	h.challenge = ch
	err := &NeedsSignInError{Server: h.srv.Name, StepUp: ch.StepUp(), Scopes: ch.Scopes, Person: h.subject != ""}
	if how := h.hs.how.Load(); how != nil && !err.Person {
		err.How = (*how)(h.srv.Name)
	}
	if !err.StepUp && refused != "" {
		err.Reason = "the server refused the stored token, and no refresh brought another"
	}
	h.log.Info("the server asks for a sign-in", "step_up", err.StepUp, "scopes", strings.Join(ch.Scopes, " "))
	return err
}

// covers reports whether granted holds every scope of want.
func covers(granted, want []string) bool {
	for _, s := range want {
		if !slices.Contains(granted, s) {
			return false
		}
	}
	return true
}

// newerLocked returns the newest stored record whose token is not the refused one
// nor the one in use, if there is one.
func (h *Handler) newerLocked(ctx context.Context, refused string) *Record {
	recs, err := h.hs.store.Load(ctx, h.srv.URL, h.subject)
	if err != nil {
		return nil
	}
	for _, r := range recs {
		if r.Token == nil || r.Token.AccessToken == refused {
			continue
		}
		if h.rec != nil && h.rec.Token != nil && h.rec.Token.AccessToken == r.Token.AccessToken {
			continue
		}
		if !r.Token.Expiry.IsZero() && time.Now().After(r.Token.Expiry) && r.Token.RefreshToken == "" {
			continue
		}
		return r
	}
	return nil
}

// Challenge is the server's last request for a sign-in that the handler could not
// make by itself (nil when there is none): what SignIn starts from.
func (h *Handler) Challenge() *Challenge {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.challenge
}

// SignedIn reports whether the handler holds a token for its server.
func (h *Handler) SignedIn(ctx context.Context) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loadLocked(ctx)
	return h.rec != nil && h.rec.Token != nil
}

// WaitSignIn returns once a sign-in other than the one refused is there to use: made
// by SignIn in this process, or stored by another (switchboard login in another
// terminal, which a running gateway picks up this way). It looks at the store every
// Options.Poll; ctx ends the wait.
func (h *Handler) WaitSignIn(ctx context.Context) error {
	h.mu.Lock()
	wake := h.signedIn
	have := ""
	if h.rec != nil && h.rec.Token != nil {
		have = h.rec.Token.AccessToken
	}
	h.mu.Unlock()
	tick := time.NewTicker(h.hs.opts.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
			return nil
		case <-tick.C:
			h.mu.Lock()
			rec := h.newerLocked(ctx, have)
			if rec != nil {
				h.adoptLocked(rec)
				h.challenge = nil
			}
			h.mu.Unlock()
			if rec != nil {
				h.log.Info("signed in elsewhere; connecting", "issuer", rec.Issuer)
				return nil
			}
		}
	}
}

// signedInLocked records a completed sign-in: rec is in use from now on and whoever
// waits is woken.
func (h *Handler) signedInLocked(rec *Record) {
	h.adoptLocked(rec)
	h.challenge, h.refreshed = nil, ""
	close(h.signedIn)
	h.signedIn = make(chan struct{})
}
