package signin

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/config"
)

// A server of the 2025-03-26 spec has no protected resource metadata: its origin is
// the authorization server, whose metadata lives at the origin's well-known URL
// ("server metadata discovery"). Such metadata often names an issuer of its own
// ("https://host/oauth"), which the RFC 8414 issuer check refuses, and with it the
// SDK's handler. For those servers alone, SignIn runs the same flow on x/oauth2 and
// oauthex itself (signInLegacy): PKCE S256, the resource, the registration stored and
// reused; the SDK's handler serves every other server.

// legacyMetadata fetches the authorization server metadata at origin's well-known
// URLs (RFC 8414, then OpenID Connect discovery), taking the issuer it names; nil
// when there is none. discover checks it as the SDK's path is checked. Its errors
// say what failed, not what was answered (failure.go).
func (h *Handler) legacyMetadata(ctx context.Context, origin string, w *witness) (*oauthex.AuthServerMeta, error) {
	// As the SDK's GetAuthServerMeta: "Only allow HTTP for local addresses".
	if err := checkEndpoint(origin); err != nil {
		return nil, fmt.Errorf("the server's origin %s, its authorization server (it serves no protected resource metadata), is %v; not signing in", origin, err)
	}
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		w.reset()
		asm, err := getMetadata(ctx, origin+p, h.hs.client(w))
		if err != nil {
			return nil, h.failure("", w, err, fmt.Sprintf("the authorization server's metadata (%s) could not be read", origin+p))
		}
		if asm != nil {
			return asm, nil
		}
	}
	return nil, nil
}

// getMetadata GETs one metadata document; nil for a 4xx (not there). Its errors may
// quote the answer: they are for the log.
func getMetadata(ctx context.Context, url string, c *http.Client) (*oauthex.AuthServerMeta, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, fmt.Errorf("%s: not JSON (%s)", url, resp.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", url, err)
	}
	var asm oauthex.AuthServerMeta
	if err := json.Unmarshal(body, &asm); err != nil {
		return nil, fmt.Errorf("%s: %v: %.512q", url, err, body)
	}
	return &asm, nil
}

// signInLegacy is SignIn's flow for a server whose authorization server metadata
// names an issuer of its own (see above): the client (the config's, else the stored
// registration when it fits the redirect URI, else a new one), the authorization
// request with PKCE S256 and the resource, the person's answer through p, and the
// code exchanged for the tokens, which are stored.
func (h *Handler) signInLegacy(ctx context.Context, d *discovery, p Pending, o *config.OAuth, ch *Challenge, stored, cur *Record, w *witness) error {
	hs, asm, uri := h.hs, d.asm, p.URI()
	client := Client{ID: o.ClientID, Secret: o.ClientSecret, AuthMethod: authMethod(asm.TokenEndpointAuthMethodsSupported)}
	switch {
	case o.ClientID != "":
		if o.ClientSecret == "" {
			client.AuthMethod = "none"
		} else if slices.Contains(asm.TokenEndpointAuthMethodsSupported, "client_secret_post") && !slices.Contains(asm.TokenEndpointAuthMethodsSupported, "client_secret_basic") {
			client.AuthMethod = "client_secret_post"
		} else {
			client.AuthMethod = "client_secret_basic"
		}
	case stored.registration(uri, time.Now()) != nil:
		client = *stored.registration(uri, time.Now())
	case asm.RegistrationEndpoint != "":
		reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{uri}, ClientName: ClientName, GrantTypes: []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: client.AuthMethod, ApplicationType: "native",
		}, hs.client(w))
		if err != nil {
			return h.failure("signing in to "+h.srv.Name, w, err, "the registration at "+asm.RegistrationEndpoint+" failed")
		}
		hs.red.Add(reg.ClientSecret)
		client = Client{ID: reg.ClientID, Secret: reg.ClientSecret, AuthMethod: reg.TokenEndpointAuthMethod, RedirectURI: uri,
			Dynamic: true, SecretExpiresAt: reg.ClientSecretExpiresAt}
		if client.AuthMethod == "" {
			client.AuthMethod = "client_secret_basic" // RFC 7591's default
		}
		h.saveRegistration(ctx, d, client)
	default:
		return fmt.Errorf(`signing in to %s: its authorization server (%s) takes no dynamic client registration: register an app there (redirect URI %s) and give its client id as the server's "oauth": {"clientId": ...}`, h.srv.Name, asm.Issuer, uri)
	}
	scopes := o.Scopes
	if len(scopes) == 0 {
		scopes = ch.Scopes
	}
	if ch.StepUp() && cur != nil {
		scopes = union(cur.Scopes, scopes)
	}
	if slices.Contains(asm.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(slices.Clone(scopes), "offline_access")
	}
	cfg := &oauth2.Config{ClientID: client.ID, ClientSecret: client.Secret, RedirectURL: uri, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: asm.AuthorizationEndpoint, TokenURL: asm.TokenEndpoint, AuthStyle: authStyle(client.AuthMethod)}}
	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
	q, err := p.Await(ctx, authURL)
	if err != nil {
		return fmt.Errorf("signing in to %s: %w", h.srv.Name, err)
	}
	if e := q.Get("error"); e != "" {
		return fmt.Errorf("signing in to %s: %w", h.srv.Name, h.refusedSignIn(q))
	}
	if q.Get("state") != state {
		return fmt.Errorf("signing in to %s: the answer is not for this sign-in (state mismatch)", h.srv.Name)
	}
	if iss := q.Get("iss"); (iss != "" || asm.AuthorizationResponseIssParameterSupported) && iss != asm.Issuer {
		return fmt.Errorf("signing in to %s: the answer comes from another issuer than %s (RFC 9207)", h.srv.Name, asm.Issuer)
	}
	hs.red.Add(q.Get("code"))
	w.reset()
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, hs.client(w)), q.Get("code"),
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
	if err != nil {
		return h.failure("signing in to "+h.srv.Name, w, err, "the token request at "+asm.TokenEndpoint+" failed")
	}
	hs.red.Add(tok.AccessToken, tok.RefreshToken)
	saved := client
	if !saved.Dynamic {
		saved.Secret = "" // a configured client's secret stays in the config
	}
	rec := &Record{Server: h.srv.URL, Subject: h.subject, Issuer: asm.Issuer, Resource: d.resource, TokenURL: asm.TokenEndpoint,
		RevocationURL: asm.RevocationEndpoint, Client: saved, Token: tok, Scopes: grantedScopes(tok, scopes), Updated: time.Now()}
	if saved.Dynamic {
		rec.keepOthers(h.stored(ctx, asm.Issuer), time.Now())
	}
	if err := hs.store.Save(ctx, rec); err != nil {
		h.log.Warn("sign-in store: saving the sign-in failed; it lasts until the process ends", "err", err)
	}
	h.mu.Lock()
	h.signedInLocked(rec)
	h.mu.Unlock()
	h.log.Info("signed in", "issuer", asm.Issuer, "scopes", strings.Join(rec.Scopes, " "))
	return nil
}
