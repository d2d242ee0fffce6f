package signin

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// clientCredentials signs in with the client credentials grant (RFC 6749 §4.4, the
// MCP extension SEP-1046): machine to machine, the config's client id and secret
// for a token, with no person and no browser. The authorization server is
// discovered as for a person's sign-in; the token is stored, and asked for again
// when it expires (the grant issues no refresh token).
func (h *Handler) clientCredentials(ctx context.Context, ch *Challenge) error {
	hs, o := h.hs, h.srv.OAuth
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loadLocked(ctx)
	if ch.StepUp() && h.rec != nil && covers(h.rec.Scopes, ch.Scopes) {
		return fmt.Errorf("server %s refuses the token for want of scope %q, which the token was granted", h.srv.Name, ch.Scopes)
	}
	w := newWitness(hs.base)
	d, err := h.discover(ctx, ch, w)
	if err != nil {
		return h.mask(fmt.Errorf("signing in to %s: %w", h.srv.Name, err))
	}
	scopes := o.Scopes
	switch {
	case len(scopes) > 0 && ch.StepUp():
		scopes = union(scopes, ch.Scopes)
	case len(scopes) > 0:
	case len(ch.Scopes) > 0:
		scopes = ch.Scopes
	default:
		scopes = d.prm.ScopesSupported
	}
	if ch.StepUp() && h.rec != nil {
		scopes = union(h.rec.Scopes, scopes)
	}
	cc := &clientcredentials.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret, TokenURL: d.asm.TokenEndpoint,
		Scopes: scopes, AuthStyle: ccStyle(d.asm.TokenEndpointAuthMethodsSupported),
		EndpointParams: url.Values{"resource": {d.resource}}}
	w.label(d.asm.TokenEndpoint, "the token request")
	w.reset()
	tok, err := cc.Token(context.WithValue(ctx, oauth2.HTTPClient, hs.client(w)))
	if err != nil {
		return h.failure("signing in to "+h.srv.Name+" with its client credentials", w, err, "the token request at "+d.asm.TokenEndpoint+" failed")
	}
	hs.red.Add(tok.AccessToken, tok.RefreshToken)
	rec := &Record{Server: h.srv.URL, Subject: h.subject, Issuer: d.asm.Issuer, Resource: d.resource, TokenURL: d.asm.TokenEndpoint,
		RevocationURL: d.asm.RevocationEndpoint, Token: tok, Scopes: grantedScopes(tok, scopes), Updated: time.Now(),
		Client: Client{ID: o.ClientID, AuthMethod: methodOf(cc.AuthStyle, o.ClientSecret)}}
	if err := hs.store.Save(ctx, rec); err != nil {
		h.log.Warn("sign-in store: saving the token failed; it lasts until the process ends", "err", err)
	}
	h.signedInLocked(rec)
	h.log.Info("signed in with the client credentials", "issuer", rec.Issuer)
	return nil
}

// ccStyle is how a confidential client authenticates at a token endpoint that
// supports methods: basic (RFC 6749's must-have) where offered, else post.
func ccStyle(methods []string) oauth2.AuthStyle {
	switch {
	case slices.Contains(methods, "client_secret_basic"):
		return oauth2.AuthStyleInHeader
	case slices.Contains(methods, "client_secret_post"):
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleAutoDetect
}
