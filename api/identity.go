package api

import (
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/identity"
)

// resourceMetadataPath is where an MCP host reads which authorization server signs
// in the people of this service: OAuth 2.0 Protected Resource Metadata (RFC 9728),
// which the MCP spec's authorization section (2025-11-25) has a client find "via
// WWW-Authenticate header" first, then "at the path of the server's MCP endpoint"
// (resourceMetadataPath + "/mcp") and "at the root".
const resourceMetadataPath = "/.well-known/oauth-protected-resource"

// resourceScopes are the scopes a host asks the provider for: OpenID Connect's, so
// that the token names the person ("profile": name, preferred_username; "email").
var resourceScopes = []string{"openid", "profile", "email"}

// publicBase is where the request's client reaches the service: Options.PublicURL,
// else the scheme and host the request reached.
func (s *Server) publicBase(r *http.Request) string {
	if s.opts.PublicURL != "" {
		return s.opts.PublicURL
	}
	return origin(r)
}

// challenge is the WWW-Authenticate of a refused request: Options.IdentifyChallenge
// when set; with an Issuer, the resource metadata's URL, as RFC 9728 section 5.1 has
// it ("resource_metadata"), for an MCP host to find the provider; else a realm.
func (s *Server) challenge(r *http.Request) string {
	switch {
	case s.opts.IdentifyChallenge != "":
		return "Bearer " + s.opts.IdentifyChallenge
	case s.opts.Issuer != "":
		return "Bearer resource_metadata=" + strconv.Quote(s.publicBase(r)+resourceMetadataPath)
	}
	return `Bearer realm="switchboard"`
}

// resourceMetadata answers GET /.well-known/oauth-protected-resource[/mcp]: the
// resource is the gateway at /mcp, whose tokens Options.Issuer signs. 404 when the
// service takes no provider's tokens.
func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	if s.opts.Issuer == "" {
		writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, "this service takes no identity provider's tokens (no \"serve\": {\"auth\"} configured)")
		return
	}
	writeJSON(w, http.StatusOK, &oauthex.ProtectedResourceMetadata{
		Resource:               s.publicBase(r) + "/mcp",
		AuthorizationServers:   []string{s.opts.Issuer},
		BearerMethodsSupported: []string{"header"},
		ScopesSupported:        resourceScopes,
		ResourceName:           "Switchboard",
	})
}

// me is GET /v1/me's answer.
type me struct {
	identity.Person
	// SignInsWaiting are the servers that wait for this caller's sign-in: a
	// "perUser" server they have not signed in to for themselves, and, for an admin,
	// a shared one that needs the service's sign-in (needs_sign_in). Never null.
	SignInsWaiting []string `json:"signInsWaiting"`
}

// getMe answers GET /v1/me: the caller, and the servers that wait for their
// sign-in. A service without identities (no person in the request: loopback, or no
// Identify) answers as for the static token, an admin with no subject: everything
// there is everyone's.
func (s *Server) getMe(w http.ResponseWriter, r *http.Request) {
	p, ok := identity.FromContext(r.Context())
	if !ok {
		p = identity.Person{Admin: true}
	}
	out := me{Person: p, SignInsWaiting: []string{}}
	for _, st := range s.hub.Status() {
		if signedIn, perUser := s.hub.PersonSignedIn(r.Context(), st.Name); perUser {
			if !signedIn {
				out.SignInsWaiting = append(out.SignInsWaiting, st.Name)
			}
		} else if st.State == hub.NeedsSignIn && p.Admin { // only an admin signs a shared server in
			out.SignInsWaiting = append(out.SignInsWaiting, st.Name)
		}
	}
	writeJSON(w, http.StatusOK, out)
}
