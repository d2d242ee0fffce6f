package fakeidp

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-jose/go-jose/v4"
)

// Endpoint names what Count counts.
type Endpoint string

// What Count counts.
const (
	// Authorize: requests to the authorization endpoint.
	Authorize Endpoint = "authorize"
	// CodeGrant: codes exchanged at the token endpoint.
	CodeGrant Endpoint = "authorization_code"
	// RefreshGrant: refresh tokens exchanged at the token endpoint.
	RefreshGrant Endpoint = "refresh_token"
	// SignOut: requests to the end_session_endpoint.
	SignOut Endpoint = "logout"
)

// Count is how many times what happened.
func (p *Provider) Count(what Endpoint) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[what]
}

func (p *Provider) count(what Endpoint) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[what]++
}

// Register adds a client as Options.Clients has them, once the provider runs (a
// page whose address is known only after the provider's), or replaces the one of
// that id.
func (p *Provider) Register(c Client) error {
	if c.ID == "" || len(c.RedirectURIs) == 0 {
		return fmt.Errorf("fakeidp: a client needs an id and a redirect URI (client %q)", c.ID)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clients[c.ID] = slices.Clone(c.RedirectURIs)
	return nil
}

// webOrigin is the origin of r ("Origin") when a client's redirect URI is of that
// origin: the pages a provider lets call its token endpoint (Keycloak's "web
// origins", Entra ID's single-page application platform), "" otherwise.
func (p *Provider) webOrigin(r *http.Request) string {
	o := r.Header.Get("Origin")
	if o == "" {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, uris := range p.clients {
		for _, u := range uris {
			if pu, err := url.Parse(u); err == nil && pu.Scheme+"://"+pu.Host == o {
				return o
			}
		}
	}
	return ""
}

// cors lets a client's page read the token endpoint's answer (its errors too).
func (p *Provider) cors(w http.ResponseWriter, r *http.Request) {
	w.Header().Add("Vary", "Origin")
	if o := p.webOrigin(r); o != "" {
		w.Header().Set("Access-Control-Allow-Origin", o)
	}
}

// tokenPreflight answers a browser's CORS preflight of the token endpoint (a page
// that sends more than a plain form).
func (p *Provider) tokenPreflight(w http.ResponseWriter, r *http.Request) {
	p.cors(w, r)
	if w.Header().Get("Access-Control-Allow-Origin") != "" {
		w.Header().Set("Access-Control-Allow-Methods", "POST")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
	}
	w.WriteHeader(http.StatusNoContent)
}

// token exchanges a code (once) for an access token, a JWT of Mint's with
// Options.Claims; or, with Options.RefreshTokens, a refresh token for new ones.
func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	p.cors(w, r)
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	fail := func(msg string) {
		p.problem("token: %s", msg)
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": msg})
	}
	client := r.PostForm.Get("client_id")
	if c, _, ok := r.BasicAuth(); ok {
		client = c
	}
	var g *grant
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		p.count(CodeGrant)
		code := r.PostForm.Get("code")
		p.mu.Lock()
		g = p.codes[code]
		delete(p.codes, code)
		p.mu.Unlock()
		if g == nil {
			fail("unknown or used code")
			return
		}
		if client != g.client || r.PostForm.Get("redirect_uri") != g.redirect {
			fail("the code is another client's or redirect URI's")
			return
		}
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			fail("the PKCE verifier does not match the challenge")
			return
		}
	case "refresh_token":
		p.count(RefreshGrant)
		if !p.opts.RefreshTokens {
			fail("this provider issues no refresh tokens")
			return
		}
		rt := r.PostForm.Get("refresh_token")
		p.mu.Lock()
		g = p.refresh[rt]
		delete(p.refresh, rt) // rotated: each is used once, as a public client's should be
		p.mu.Unlock()
		if g == nil {
			fail("unknown, used or revoked refresh token")
			return
		}
		if client != g.client {
			fail("the refresh token is another client's")
			return
		}
	default:
		fail("want grant_type=authorization_code or refresh_token")
		return
	}
	claims := maps.Clone(p.opts.Claims)
	if claims == nil {
		claims = map[string]any{}
	}
	if g.person != nil {
		maps.Copy(claims, g.person.claims())
	}
	scopes := strings.Fields(g.scope)
	out := map[string]any{"token_type": "Bearer", "expires_in": int(p.opts.TokenTTL.Seconds()), "scope": g.scope}
	if slices.Contains(scopes, "openid") {
		// The ID token is the client's: its audience is the client id.
		id := maps.Clone(claims)
		id["aud"] = client
		out["id_token"] = p.Mint(id)
	}
	claims["client_id"] = client
	out["access_token"] = p.Mint(claims)
	if p.opts.RefreshTokens && slices.Contains(scopes, "offline_access") {
		rt := rand.Text()
		p.mu.Lock()
		p.refresh[rt] = &grant{client: client, scope: g.scope, person: g.person}
		p.mu.Unlock()
		out["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, out)
}

// logout is the end_session_endpoint (OpenID Connect RP-Initiated Logout 1.0): it
// forgets the refresh tokens of the person the id_token_hint names (all of the
// client's without one) and sends the browser back to post_logout_redirect_uri, one
// of the client's redirect URIs, with the state; without that URI it says so on a
// page.
func (p *Provider) logout(w http.ResponseWriter, r *http.Request) {
	p.count(SignOut)
	q := r.URL.Query()
	client, sub := q.Get("client_id"), ""
	if hint := q.Get("id_token_hint"); hint != "" {
		c, err := p.verifyOwn(hint)
		if err != nil {
			p.problem("logout: id_token_hint: %v", err)
			http.Error(w, "the id_token_hint is not an ID token of this provider", http.StatusBadRequest)
			return
		}
		aud, _ := c["aud"].(string)
		if client != "" && client != aud {
			p.problem("logout: client_id %q, but the id_token_hint is for %q", client, aud)
			http.Error(w, "client_id is not the ID token's audience", http.StatusBadRequest)
			return
		}
		client, _ = c["aud"].(string)
		sub, _ = c["sub"].(string)
	}
	back := q.Get("post_logout_redirect_uri")
	p.mu.Lock()
	uris, known := p.clients[client]
	p.mu.Unlock()
	if back != "" && (!known || !slices.Contains(uris, back)) {
		p.problem("logout: unknown client %q or post_logout_redirect_uri %q", client, back)
		http.Error(w, "unknown client or post_logout_redirect_uri", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	for rt, g := range p.refresh {
		if g.client == client && (sub == "" || g.subject(p.opts.Subject) == sub) {
			delete(p.refresh, rt)
		}
	}
	p.mu.Unlock()
	if back == "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("You are signed out.\n"))
		return
	}
	u, err := url.Parse(back)
	if err != nil {
		http.Error(w, "bad post_logout_redirect_uri", http.StatusBadRequest)
		return
	}
	if st := q.Get("state"); st != "" {
		v := u.Query()
		v.Set("state", st)
		u.RawQuery = v.Encode()
	}
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// subject is the "sub" of the grant's tokens.
func (g *grant) subject(dflt string) string {
	if g.person != nil {
		return g.person.Name
	}
	return dflt
}

// verifyOwn is the claims of a token this provider signed with its current keys.
func (p *Provider) verifyOwn(token string) (map[string]any, error) {
	jws, err := jose.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256, jose.ES256})
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	keys := []*signingKey{p.rsaKey, p.ecKey}
	p.mu.Unlock()
	for _, k := range keys {
		if payload, err := jws.Verify(k.key.Public()); err == nil {
			var c map[string]any
			if err := json.Unmarshal(payload, &c); err != nil {
				return nil, err
			}
			return c, nil
		}
	}
	return nil, errors.New("not signed with a key of this provider")
}
