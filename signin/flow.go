package signin

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/config"
)

// SignIn makes the sign-in that only a person can make: the OAuth 2.1 authorization
// code flow of the MCP spec's Authorization section, run by the MCP SDK's
// auth.AuthorizationCodeHandler, from the server's last challenge (or, with none, from
// the server's well-known metadata). r brings the person to the authorization server
// and takes the answer. What SignIn adds around the SDK's flow:
//
//   - the client, in this order: the config's pre-registered "clientId"; its client
//     ID metadata document ("clientMetadataUrl"), where the authorization server
//     takes one; else a dynamic registration (RFC 7591), the stored one while it is
//     valid and fits the redirect URI, registered anew only otherwise;
//   - the redirect URI: the config's exact one, else the stored registration's (so
//     that it still fits), else a free loopback port;
//   - the scopes: the config's, else the challenge's, else the metadata's; a step-up
//     adds what the server asks for to what was granted (SEP-2350);
//   - offline_access, where the authorization server offers it, for a refresh token;
//   - the registration and the tokens, stored for later runs; every secret learnt
//     registered with the redactor.
//
// Afterwards the server's connection uses the new token: a supervisor waiting in
// WaitSignIn connects again.
func (h *Handler) SignIn(ctx context.Context, r Redirect) error {
	if r == nil {
		return errNoRedirect
	}
	if h.srv.OAuth.GrantType() == config.GrantClientCredentials {
		return fmt.Errorf("server %s signs in with client credentials: no person is needed, and none is asked", h.srv.Name)
	}
	h.mu.Lock()
	h.loadLocked(ctx)
	ch, cur := h.challenge, h.rec
	h.mu.Unlock()
	if ch == nil {
		ch = &Challenge{Status: http.StatusUnauthorized}
	}
	hs, o := h.hs, h.srv.OAuth
	if o == nil {
		o = &config.OAuth{}
	}
	// Every request of the sign-in goes through w, which the errors say instead
	// of the authorization server's answers (failure.go).
	w := newWitness(hs.base)
	d, err := h.discover(ctx, ch, w)
	if err != nil {
		return h.mask(fmt.Errorf("signing in to %s: %w", h.srv.Name, err))
	}
	w.label(d.asm.TokenEndpoint, "the token request")
	w.label(d.asm.RegistrationEndpoint, "the registration")
	issuer := d.asm.Issuer
	stored := h.stored(ctx, issuer)

	p, err := prepare(ctx, r, o.RedirectURI, stored)
	if err != nil {
		return fmt.Errorf("signing in to %s: %w", h.srv.Name, err)
	}
	defer p.Close()
	if d.ownIssuer {
		return h.signInLegacy(ctx, d, p, o, ch, stored, cur, w)
	}
	uri := p.URI()

	ft := &flowTransport{base: w}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:         uri,
		RequestRefreshToken: true,
		Client:              hs.client(ft),
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			h.log.Info("waiting for the person to sign in", "issuer", issuer)
			q, err := p.Await(ctx, args.URL)
			if err != nil {
				return nil, &ownError{err}
			}
			if e := q.Get("error"); e != "" {
				return nil, &ownError{h.refusedSignIn(q)}
			}
			// What fails from here on (the SDK's checks of the answer) failed at
			// no request of the witness's until the token request.
			w.reset()
			hs.red.Add(q.Get("code"))
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	}
	// The scopes: the config's, else what the challenge or the metadata name; a
	// step-up keeps what was granted and adds what the server asks for.
	cfg.ScopeFilter = func(discovered []string) []string {
		scopes := discovered
		if len(o.Scopes) > 0 {
			scopes = slices.Clone(o.Scopes)
			if ch.StepUp() {
				scopes = union(scopes, discovered)
			}
		}
		if ch.StepUp() && cur != nil && cur.Issuer == issuer {
			scopes = union(cur.Scopes, scopes)
		}
		return scopes
	}
	var got struct {
		cfg *oauth2.Config
		tok *oauth2.Token
	}
	cfg.NewTokenSource = func(_ context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
		got.cfg, got.tok = c, tok
		return oauth2.StaticTokenSource(tok), nil
	}
	dynamic := false
	switch {
	case o.ClientID != "":
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
	case o.ClientMetadataURL != "" && d.asm.ClientIDMetadataDocumentSupported:
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
	case d.asm.RegistrationEndpoint != "":
		dynamic = true
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{uri}, ClientName: ClientName,
			GrantTypes:    []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"},
			// A public client where the server takes one: PKCE proves it.
			TokenEndpointAuthMethod: authMethod(d.asm.TokenEndpointAuthMethodsSupported),
		}}
		ft.registration = d.asm.RegistrationEndpoint
		if c := stored.registration(uri, time.Now()); c != nil {
			ft.reuse = c
		} else {
			ft.registered = func(reg *oauthex.ClientRegistrationResponse) {
				hs.red.Add(reg.ClientSecret)
				h.saveRegistration(ctx, d, Client{ID: reg.ClientID, Secret: reg.ClientSecret, AuthMethod: reg.TokenEndpointAuthMethod,
					RedirectURI: uri, Dynamic: true, SecretExpiresAt: reg.ClientSecretExpiresAt})
			}
		}
	default:
		return fmt.Errorf(`signing in to %s: its authorization server (%s) takes no dynamic client registration: register an app there (redirect URI %s) and give its client id as the server's "oauth": {"clientId": ...}`, h.srv.Name, issuer, uri)
	}
	sdk, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return fmt.Errorf("signing in to %s: %w", h.srv.Name, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.srv.URL, nil)
	if err != nil {
		return err
	}
	resp := &http.Response{StatusCode: ch.Status, Header: http.Header{"Www-Authenticate": ch.Header}, Body: http.NoBody, Request: req}
	if err := sdk.Authorize(ctx, req, resp); err != nil {
		return h.failure("signing in to "+h.srv.Name, w, err, "the authorization server's answer does not fit this sign-in (its state or issuer)")
	}
	if got.tok == nil {
		return fmt.Errorf("signing in to %s: the flow ended without a token", h.srv.Name)
	}
	hs.red.Add(got.tok.AccessToken, got.tok.RefreshToken, got.cfg.ClientSecret)
	rec := &Record{Server: h.srv.URL, Subject: h.subject, Issuer: issuer, Resource: d.resource, TokenURL: d.asm.TokenEndpoint,
		RevocationURL: d.asm.RevocationEndpoint, Token: got.tok, Updated: time.Now(),
		Scopes: grantedScopes(got.tok, got.cfg.Scopes),
		Client: Client{ID: got.cfg.ClientID, AuthMethod: methodOf(got.cfg.Endpoint.AuthStyle, got.cfg.ClientSecret), Dynamic: dynamic}}
	if dynamic {
		// The registration as it was stored, or replayed: with its secret and expiry.
		rec.Client.Secret, rec.Client.RedirectURI = got.cfg.ClientSecret, uri
		latest := h.stored(ctx, issuer)
		if c := latest.registration(uri, time.Now()); c != nil && c.ID == rec.Client.ID {
			rec.Client.SecretExpiresAt = c.SecretExpiresAt
			if c.AuthMethod != "" {
				rec.Client.AuthMethod = c.AuthMethod
			}
		}
		rec.keepOthers(latest, time.Now())
	}
	if err := hs.store.Save(ctx, rec); err != nil {
		h.log.Warn("sign-in store: saving the sign-in failed; it lasts until the process ends", "err", err)
	}
	h.mu.Lock()
	h.signedInLocked(rec)
	h.mu.Unlock()
	h.log.Info("signed in", "issuer", issuer, "scopes", strings.Join(rec.Scopes, " "))
	return nil
}

// prepare readies the redirect of a sign-in: at the config's redirect URI exactly
// when it names one; else at the URI of one of the stored dynamic registrations, so
// that the registration still fits, trying each in turn (a loopback listener whose
// port is taken, or a Callback, which has a URI of its own, answers with another
// URI); else wherever r likes, for a new registration.
func prepare(ctx context.Context, r Redirect, configured string, stored *Record) (Pending, error) {
	regs := stored.registrations(time.Now())
	if configured != "" || len(regs) == 0 {
		return r.Prepare(ctx, configured, configured != "")
	}
	last := ""
	for _, c := range regs[:len(regs)-1] {
		p, err := r.Prepare(ctx, c.RedirectURI, false)
		if err != nil {
			return nil, err
		}
		uri := p.URI()
		if stored.registration(uri, time.Now()) != nil || uri == last {
			return p, nil
		}
		last = uri
		p.Close()
	}
	return r.Prepare(ctx, regs[len(regs)-1].RedirectURI, false)
}

// saveRegistration stores a dynamic registration as soon as it is made, before the
// person signs in, so that a sign-in left half-way does not register again: as the
// record's Client when it holds no tokens, else among its Others, beside the client
// its tokens were issued to (which a refresh still needs).
func (h *Handler) saveRegistration(ctx context.Context, d *discovery, c Client) {
	now := time.Now()
	rec := &Record{Server: h.srv.URL, Subject: h.subject, Issuer: d.asm.Issuer, Resource: d.resource, TokenURL: d.asm.TokenEndpoint,
		RevocationURL: d.asm.RevocationEndpoint, Client: c}
	if prev := h.stored(ctx, d.asm.Issuer); prev != nil && prev.Token != nil {
		keep := *prev
		rec = &keep
		rec.Others = append([]Client{c}, prev.Others...)
		if len(rec.Others) > maxOthers {
			rec.Others = rec.Others[:maxOthers]
		}
	} else {
		rec.keepOthers(prev, now)
	}
	rec.Updated = now
	if err := h.hs.store.Save(ctx, rec); err != nil {
		h.log.Warn("sign-in store: saving the registration failed; the next sign-in registers again", "err", err)
	}
	h.log.Info("registered with the authorization server", "issuer", d.asm.Issuer)
}

// stored is the stored record of the server at issuer, if any.
func (h *Handler) stored(ctx context.Context, issuer string) *Record {
	recs, err := h.hs.store.Load(ctx, h.srv.URL, h.subject)
	if err != nil {
		h.log.Warn("sign-in store unreadable", "err", err)
		return nil
	}
	for _, r := range recs {
		if r.Issuer == issuer {
			return r
		}
	}
	return nil
}

// union is a's scopes, then b's that a lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
