package signin

import (
	"context"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Record is what one sign-in leaves behind for later runs: the client Switchboard is
// known by at one authorization server (its registration) and the tokens that server
// issued for one MCP server. A store keeps one Record per (Server, Issuer).
type Record struct {
	// Server is the MCP server's URL, as configured.
	Server string `json:"server"`
	// Subject is the person whose own sign-in this is (their identity.Person.Subject,
	// for a server whose "oauth" says "perUser"); "" for the service's own sign-in,
	// the one every call without a person uses.
	Subject string `json:"subject,omitempty"`
	// Issuer is the authorization server's issuer identifier (RFC 8414).
	Issuer string `json:"issuer"`
	// Resource is the resource the tokens are for (RFC 8707): the one the server's
	// protected resource metadata names, else Server.
	Resource string `json:"resource"`
	// Client is the registration the tokens were issued to: the refresh grant needs
	// the same client.
	Client Client `json:"client"`
	// Others are Switchboard's other dynamic registrations at Issuer, each for
	// another redirect URI (a terminal's loopback listener, serve's /oauth/callback),
	// kept so that signing in from one and then the other registers no more than
	// once for each: the most recently used first, at most maxOthers.
	Others []Client `json:"others,omitempty"`
	// TokenURL and RevocationURL are the authorization server's endpoints for
	// refreshing the tokens and revoking them at logout ("" when it has none).
	TokenURL      string `json:"tokenUrl"`
	RevocationURL string `json:"revocationUrl,omitempty"`
	// Token is the access token with its refresh token and expiry; nil when the
	// client is registered but nobody signed in yet (or the sign-in was forgotten).
	Token *oauth2.Token `json:"token,omitempty"`
	// Scopes are the scopes granted with Token, as the token response said (or as
	// asked for, when it did not say).
	Scopes []string `json:"scopes,omitempty"`
	// Updated is when the record was last saved.
	Updated time.Time `json:"updated"`
}

// Client is one registration of Switchboard with an authorization server.
type Client struct {
	ID     string `json:"id"`
	Secret string `json:"secret,omitempty"`
	// AuthMethod is how the token endpoint authenticates the client:
	// "client_secret_basic", "client_secret_post" or "none".
	AuthMethod string `json:"authMethod,omitempty"`
	// RedirectURI is the URI the client was registered with (dynamic registration),
	// which a later sign-in listens on again so that the registration still fits.
	RedirectURI string `json:"redirectUri,omitempty"`
	// Dynamic: Switchboard registered the client itself (RFC 7591), rather than
	// taking it from the config (pre-registered, or a client ID metadata document).
	Dynamic bool `json:"dynamic,omitempty"`
	// SecretExpiresAt is when a dynamic registration's secret expires (zero: never).
	SecretExpiresAt time.Time `json:"secretExpiresAt,omitzero"`
}

// valid reports whether a registration can still be used at now.
func (c *Client) valid(now time.Time) bool {
	return c.ID != "" && (c.SecretExpiresAt.IsZero() || now.Before(c.SecretExpiresAt))
}

// maxOthers bounds Record.Others.
const maxOthers = 4

// registrations are the record's dynamic registrations still valid at now: Client
// first, then Others. A nil record has none.
func (r *Record) registrations(now time.Time) []Client {
	if r == nil {
		return nil
	}
	var out []Client
	for _, c := range append([]Client{r.Client}, r.Others...) {
		if c.Dynamic && c.valid(now) {
			out = append(out, c)
		}
	}
	return out
}

// registration is the record's valid dynamic registration for the redirect URI
// uri, or nil.
func (r *Record) registration(uri string, now time.Time) *Client {
	for _, c := range r.registrations(now) {
		if c.RedirectURI == uri {
			return &c
		}
	}
	return nil
}

// keepOthers sets r.Others to prev's valid dynamic registrations other than r's
// Client (by ID or redirect URI), so that a new Client does not lose them.
func (r *Record) keepOthers(prev *Record, now time.Time) {
	r.Others = nil
	for _, c := range prev.registrations(now) {
		if c.ID == r.Client.ID || c.RedirectURI == r.Client.RedirectURI || len(r.Others) == maxOthers {
			continue
		}
		r.Others = append(r.Others, c)
	}
}

// Store keeps the records of sign-ins, so that one sign-in serves later runs: a
// registration is reused rather than made again, and tokens are refreshed rather
// than asked of a person again. Implementations: [Files] (a directory of files, 0600
// in a 0700 directory), [Memory] and signin/postgres (shared by replicas,
// encrypted). Every store passes the contract suite in signin/signintest.
//
// A record is kept under (server, subject, issuer): subject "" is the service's own
// sign-in, any other a person's own (a "perUser" server); one subject's records are
// never another's, and no store writes a subject where a file name or a column in
// the clear could show it.
type Store interface {
	// Load returns the records of the MCP server at url for subject ("": the
	// service's own), one per issuer, the most recently updated first; none is an
	// empty result, not an error.
	Load(ctx context.Context, server, subject string) ([]*Record, error)
	// Save keeps rec under (rec.Server, rec.Subject, rec.Issuer), replacing what was
	// there.
	Save(ctx context.Context, rec *Record) error
	// Delete forgets every record of the MCP server at url for subject ("": the
	// service's own, which leaves the persons' own alone); forgetting nothing is no
	// error.
	Delete(ctx context.Context, server, subject string) error
}

// sortRecords orders records the most recently updated first.
func sortRecords(recs []*Record) {
	slices.SortStableFunc(recs, func(a, b *Record) int { return b.Updated.Compare(a.Updated) })
}

// grantedScopes are the scopes a token response grants ("scope", RFC 6749 §5.1),
// else asked: the response may leave the scope out when it is what was asked for.
func grantedScopes(tok *oauth2.Token, asked []string) []string {
	if s, ok := tok.Extra("scope").(string); ok && strings.TrimSpace(s) != "" {
		return strings.Fields(s)
	}
	return slices.Clone(asked)
}
