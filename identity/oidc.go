package identity

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
)

// Defaults of a Verifier. Switchboard's own.
const (
	// DefaultLeeway is how far a token's "exp" and "nbf" may be off the service's
	// clock: clocks of the provider and the service drift a little.
	DefaultLeeway = time.Minute
	// DefaultKeyRefresh bounds the fetches of the provider's keys that tokens with an
	// unknown key id cause: one per DefaultKeyRefresh at most (keySet).
	DefaultKeyRefresh = 30 * time.Second
	// fetchTimeout bounds the discovery and each fetch of the keys.
	fetchTimeout = 10 * time.Second
)

// OIDCOptions name the OpenID Connect provider whose tokens a Verifier takes, and
// who among the people it names are admins. (config.AuthSettings is the config's
// form of the same; package identity imports nothing of the module's.)
type OIDCOptions struct {
	// Issuer is the provider's issuer URL: its /.well-known/openid-configuration
	// names the keys (jwks_uri), and a token's "iss" must be it, exactly.
	Issuer string
	// Audience must be among a token's "aud".
	Audience string
	// Admins are subjects ("sub") who are admins.
	Admins []string
	// AdminClaim and AdminValue make an admin of whoever's token has AdminValue in
	// the claim AdminClaim (a string, or an array of strings such as "groups").
	// AdminClaim "": Admins only.
	AdminClaim, AdminValue string
	// GroupsClaim is the claim whose values (a string, or an array of strings) are
	// a Person's Groups; "": DefaultGroupsClaim.
	GroupsClaim string
	// Leeway: how far "exp" and "nbf" may be off; 0: DefaultLeeway.
	Leeway time.Duration
	// KeyRefresh: at most one fetch of the keys per KeyRefresh for tokens signed
	// with a key id the Verifier does not know (a rotation); 0: DefaultKeyRefresh.
	KeyRefresh time.Duration
	// Client fetches the discovery document and the keys; nil: one with a timeout
	// that keeps no connection open.
	Client *http.Client
}

// Verifier says who makes a request by its bearer token: a JWT signed by the
// provider of OIDCOptions.Issuer (RS256 or ES256) for OIDCOptions.Audience, not
// expired. It checks tokens with go-oidc (claims) and go-jose (signatures) over
// the provider's keys, which it keeps and fetches again when a token names a key
// it does not know, so that the provider may rotate its keys with no restart here.
// It holds no goroutine: nothing to close.
type Verifier struct {
	opts     OIDCOptions
	tokenURL string // the discovery document's token_endpoint
	keys     *keySet
	verifier *oidc.IDTokenVerifier
	admins   map[string]bool
	now      func() time.Time
}

// Refusal is why a Verifier refuses a request: its message says why (never the
// token itself), for the 401's body.
type Refusal struct {
	// Reason is one of the Reason constants.
	Reason string
	msg    string
}

func (r *Refusal) Error() string { return r.msg }

// The reasons of a Refusal.
const (
	ReasonNoToken      = "no_token"
	ReasonNotJWT       = "not_jwt"
	ReasonExpired      = "expired"
	ReasonNotYetValid  = "not_yet_valid"
	ReasonAudience     = "wrong_audience"
	ReasonIssuer       = "wrong_issuer"
	ReasonUnknownKey   = "unknown_key"
	ReasonBadSignature = "bad_signature"
	ReasonInvalid      = "invalid"
	// ReasonBadDate: a time claim ("exp", "nbf", "iat") is not a number.
	ReasonBadDate = "bad_date"
)

// NewVerifier reads the provider's discovery document (its issuer must be
// opts.Issuer, exactly) and fetches its keys: an error, which names the issuer,
// when it cannot be reached or says something else. ctx bounds those requests only.
func NewVerifier(ctx context.Context, opts *OIDCOptions) (*Verifier, error) {
	if opts == nil || opts.Issuer == "" || opts.Audience == "" {
		return nil, errors.New("identity: NewVerifier: want an issuer and an audience")
	}
	o := *opts
	if o.Leeway <= 0 {
		o.Leeway = DefaultLeeway
	}
	if o.KeyRefresh <= 0 {
		o.KeyRefresh = DefaultKeyRefresh
	}
	if o.Client == nil {
		// Fetches are rare (the start, a rotation): a connection each, none kept
		// open, so that nothing of the Verifier's outlives a fetch.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DisableKeepAlives = true
		o.Client = &http.Client{Timeout: fetchTimeout, Transport: tr}
	}
	dctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, o.Client), fetchTimeout)
	defer cancel()
	provider, err := oidc.NewProvider(dctx, o.Issuer)
	if err != nil {
		return nil, fmt.Errorf("identity: the OpenID provider %s: reading its discovery document (%s/.well-known/openid-configuration): %w",
			o.Issuer, strings.TrimSuffix(o.Issuer, "/"), err)
	}
	var doc struct {
		JWKSURI string `json:"jwks_uri"`
	}
	if err := provider.Claims(&doc); err != nil || doc.JWKSURI == "" {
		return nil, fmt.Errorf("identity: the OpenID provider %s: its discovery document names no jwks_uri", o.Issuer)
	}
	keys := newKeySet(doc.JWKSURI, o.Client, o.KeyRefresh)
	if err := keys.fetch(dctx); err != nil {
		return nil, fmt.Errorf("identity: the OpenID provider %s: %w", o.Issuer, err)
	}
	v := &Verifier{opts: o, tokenURL: provider.Endpoint().TokenURL, keys: keys, admins: map[string]bool{}, now: time.Now}
	for _, a := range o.Admins {
		v.admins[a] = true
	}
	// The expiry is checked below, with the leeway of the options: go-oidc's has
	// none for "exp" and 5 minutes for "nbf".
	v.verifier = oidc.NewVerifier(o.Issuer, keys, &oidc.Config{
		ClientID:             o.Audience,
		SupportedSigningAlgs: []string{oidc.RS256, oidc.ES256},
		SkipExpiryCheck:      true,
	})
	return v, nil
}

// Issuer is the issuer URL of the provider whose tokens v takes.
func (v *Verifier) Issuer() string { return v.opts.Issuer }

// TokenEndpoint is the provider's token_endpoint, as its discovery document named
// it ("" when it names none): where a browser page that signs people in at the
// provider redeems its codes.
func (v *Verifier) TokenEndpoint() string { return v.tokenURL }

// Identify is the Person whose bearer token r carries (api.Options.Identify), or a
// *Refusal saying why there is none.
func (v *Verifier) Identify(r *http.Request) (Person, error) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return Person{}, &Refusal{ReasonNoToken, "no bearer token: send Authorization: Bearer TOKEN, an access token (a JWT) of " + v.opts.Issuer}
	}
	return v.Verify(r.Context(), strings.TrimSpace(tok))
}

// Verify is the Person a token names, or a *Refusal saying why it is not taken.
func (v *Verifier) Verify(ctx context.Context, token string) (Person, error) {
	var sig sigResult
	tok, err := v.verifier.Verify(context.WithValue(ctx, sigResultKey{}, &sig), token)
	if err != nil {
		return Person{}, v.refusal(ctx, token, err, &sig)
	}
	var raw map[string]json.RawMessage
	if err := tok.Claims(&raw); err != nil {
		return Person{}, &Refusal{ReasonInvalid, "the token's claims are not a JSON object"}
	}
	if r := badDate(raw); r != nil {
		return Person{}, r
	}
	var claims map[string]any
	if err := tok.Claims(&claims); err != nil {
		return Person{}, &Refusal{ReasonInvalid, "the token's claims are not a JSON object"}
	}
	now := v.now()
	if tok.Expiry.IsZero() || now.After(tok.Expiry.Add(v.opts.Leeway)) {
		return Person{}, &Refusal{ReasonExpired, "the token has expired (or has no \"exp\"): get a new one from " + v.opts.Issuer}
	}
	if nbf, ok := claims["nbf"].(float64); ok && time.Unix(int64(nbf), 0).After(now.Add(v.opts.Leeway)) {
		return Person{}, &Refusal{ReasonNotYetValid, "the token is not valid yet (its \"nbf\" is ahead of this service's clock)"}
	}
	if tok.Subject == "" {
		return Person{}, &Refusal{ReasonInvalid, "the token names no subject (\"sub\")"}
	}
	p := Person{Subject: tok.Subject, Admin: v.admins[tok.Subject]}
	for _, c := range []string{"name", "preferred_username", "email"} {
		if s, ok := claims[c].(string); ok && s != "" {
			p.Name = s
			break
		}
	}
	if s, ok := claims["email"].(string); ok {
		p.Email = s
	}
	p.Groups = stringsClaim(claims[cmp.Or(v.opts.GroupsClaim, DefaultGroupsClaim)])
	if !p.Admin && v.opts.AdminClaim != "" {
		switch c := claims[v.opts.AdminClaim].(type) {
		case string:
			p.Admin = c == v.opts.AdminValue
		case []any:
			p.Admin = slices.Contains(c, any(v.opts.AdminValue))
		}
	}
	return p, nil
}

// DefaultGroupsClaim is the claim a Person's Groups come from when
// OIDCOptions.GroupsClaim is "".
const DefaultGroupsClaim = "groups"

// stringsClaim is a claim's values: a non-empty string is one, an array its
// non-empty strings (anything else in it skipped); nil for anything else.
func stringsClaim(c any) []string {
	switch c := c.(type) {
	case string:
		if c != "" {
			return []string{c}
		}
	case []any:
		var out []string
		for _, v := range c {
			if s, ok := v.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// refusal says why go-oidc refused a token. go-oidc checks the signature first, then
// "iss", then "aud"; its errors other than expiry's are not typed, so the key set
// says what happened to the signature (sig), and the rest is read from the message.
func (v *Verifier) refusal(ctx context.Context, token string, err error, sig *sigResult) error {
	switch {
	case sig.err != nil && unverifiedIssuer(token) != v.opts.Issuer:
		// Another provider's token is signed with a key of its own: say so rather
		// than that the key is unknown.
		return &Refusal{ReasonIssuer, "the token is not from this service's identity provider (" + v.opts.Issuer + ")"}
	case sig.err != nil && errors.Is(sig.err, errUnknownKey):
		if ctx.Err() != nil {
			return &Refusal{ReasonUnknownKey, "the request ended while the provider's keys were fetched"}
		}
		return &Refusal{ReasonUnknownKey, "the token is signed with a key the provider " + v.opts.Issuer + " does not publish (forged, or from a key set since retired)"}
	case sig.err != nil:
		return &Refusal{ReasonBadSignature, "the token's signature does not verify"}
	case strings.Contains(err.Error(), "failed to unmarshal claims"):
		// go-oidc reads "exp", "iat" and "nbf" as numbers and fails on other words;
		// the signature verified, so the payload is the provider's to explain.
		var raw map[string]json.RawMessage
		if jws, perr := parseJWS(token); perr == nil && json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &raw) == nil {
			if r := badDate(raw); r != nil {
				return r
			}
		}
		return &Refusal{ReasonInvalid, "the token's claims do not parse (a claim of the wrong type)"}
	case strings.Contains(err.Error(), "malformed jwt"), strings.Contains(err.Error(), "not signed"),
		strings.Contains(err.Error(), "multiple signatures"):
		return &Refusal{ReasonNotJWT, "the bearer token is not a JWT signed with RS256 or ES256"}
	case strings.Contains(err.Error(), "issued by a different provider"):
		return &Refusal{ReasonIssuer, "the token's \"iss\" is not this service's identity provider (" + v.opts.Issuer + ")"}
	case strings.Contains(err.Error(), "expected audience"):
		return &Refusal{ReasonAudience, fmt.Sprintf("the token's \"aud\" does not hold %q: it is meant for another service", v.opts.Audience)}
	}
	return &Refusal{ReasonInvalid, "the token is not valid"}
}

// timeClaims are the claims that RFC 7519 makes NumericDates: "a JSON numeric
// value representing the number of seconds from 1970-01-01T00:00:00Z UTC" (section
// 2).
var timeClaims = []string{"exp", "nbf", "iat"}

// badDate is the refusal of a token whose time claim is not a JSON number (a
// string, null, an object …), or nil. go-oidc takes a string of digits for a
// number, and a "nbf" read as anything but a number was skipped, not checked: a
// token valid later passed now. Refused, whatever the value says.
func badDate(claims map[string]json.RawMessage) *Refusal {
	for _, c := range timeClaims {
		v, ok := claims[c]
		if !ok {
			continue
		}
		// The payload parsed as JSON: a value that starts so is a number.
		if v = bytes.TrimSpace(v); len(v) == 0 || !strings.ContainsRune("-0123456789", rune(v[0])) {
			return &Refusal{ReasonBadDate, fmt.Sprintf("the token's %q is not a number: a time claim must be a NumericDate, seconds since 1970 as a JSON number (RFC 7519)", c)}
		}
	}
	return nil
}

// unverifiedIssuer is the "iss" a token claims, unverified: only to explain a
// refusal.
func unverifiedIssuer(token string) string {
	jws, err := parseJWS(token)
	if err != nil {
		return ""
	}
	var c struct {
		Issuer string `json:"iss"`
	}
	if json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &c) != nil {
		return ""
	}
	return c.Issuer
}
