package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/apiwire"
)

// DashboardSignIn is how the dashboard signs people in at Options.Issuer, the
// provider whose tokens Identify takes: in the page itself (dashboard/signin.js), as
// the provider's public client, with the authorization code flow and PKCE (S256).
// The page reads the provider's discovery document, sends the person to its
// authorization_endpoint, takes the answer back at the dashboard's own address
// (where it checks the state it sent and the issuer, RFC 9207's "iss"), redeems the
// code at the token_endpoint and keeps the token in the tab's sessionStorage; it
// renews it with a refresh token when the provider gave one, and signs out at the
// provider's end_session_endpoint. The service holds no secret of the client's and
// sees no code: only the bearer token, as from anyone.
type DashboardSignIn struct {
	// ClientID is the provider's client id of the dashboard (the config's
	// "serve": {"auth": {"clientId"}}): a public client (no secret) whose redirect
	// URI is the dashboard's address, such as https://sb.example.com/.
	ClientID string
	// Audience is the "aud" Identify takes: of the tokens the provider gives, the
	// page sends the one that carries it (the access token, else the ID token, whose
	// audience is the client: Google, or Entra ID with one app for both).
	Audience string
	// TokenEndpoint is the provider's token_endpoint
	// (identity.Verifier.TokenEndpoint): the page's Content-Security-Policy lets it
	// reach that origin, besides the issuer's (its discovery document).
	TokenEndpoint string
}

// dashboardSignInInfo is GET /v1/dashboard/signin's answer: nothing secret, what
// the page needs to find the provider.
type dashboardSignInInfo struct {
	Issuer   string `json:"issuer"`
	ClientID string `json:"clientId"`
	Audience string `json:"audience,omitempty"`
}

// dashboardSignIn answers GET /v1/dashboard/signin, which the page asks, with no
// token, before anything else; 404 when it has no provider to sign people in at.
func (s *Server) dashboardSignIn(w http.ResponseWriter, r *http.Request) {
	d := s.opts.DashboardSignIn
	if d == nil {
		writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound,
			`the dashboard signs no one in at an identity provider here (no "serve": {"auth": {"clientId"}} configured): it takes a token to paste`)
		return
	}
	writeJSON(w, http.StatusOK, dashboardSignInInfo{Issuer: s.opts.Issuer, ClientID: d.ClientID, Audience: d.Audience})
}

// dashboardPolicy is the page's Content-Security-Policy for o: pagePolicy, whose
// connect-src also names the provider's origins (the issuer's, the token
// endpoint's) when the page signs people in there. An error for a DashboardSignIn
// without an Issuer or client id, or with an endpoint that is no http(s) URL.
func dashboardPolicy(o *Options) (string, error) {
	d := o.DashboardSignIn
	if d == nil {
		return pagePolicy, nil
	}
	if o.Issuer == "" || d.ClientID == "" {
		return "", errors.New("api: New: Options.DashboardSignIn needs Options.Issuer and a ClientID")
	}
	var origins []string
	for _, u := range []string{o.Issuer, d.TokenEndpoint} {
		if u == "" {
			continue
		}
		or, err := webOrigin(u)
		if err != nil {
			return "", fmt.Errorf("api: New: Options.DashboardSignIn: %w", err)
		}
		if !slices.Contains(origins, or) {
			origins = append(origins, or)
		}
	}
	return strings.Replace(pagePolicy, "connect-src 'self'", "connect-src 'self' "+strings.Join(origins, " "), 1), nil
}

// webOrigin is the origin (scheme://host[:port]) of an http or https URL.
func webOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.ContainsAny(u.Host, " ;,'\"") {
		return "", fmt.Errorf("%q is not an http(s) URL with a host", s)
	}
	return u.Scheme + "://" + u.Host, nil
}
