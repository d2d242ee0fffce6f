package signin

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Challenge is what a server answered a request that it refused for want of a
// sign-in: its status (401, or 403 for a scope it lacks) and WWW-Authenticate
// challenges, kept so that the sign-in can start from them (the metadata URL and
// the scopes they name).
type Challenge struct {
	Status int
	// Header holds the WWW-Authenticate values as the server sent them.
	Header []string
	// Scopes, Error and Metadata are what the Bearer challenge says: "scope",
	// "error" and "resource_metadata".
	Scopes   []string
	Error    string
	Metadata string
}

// newChallenge reads a refused request's answer.
func newChallenge(resp *http.Response) *Challenge {
	ch := &Challenge{Status: resp.StatusCode, Header: resp.Header.Values("WWW-Authenticate")}
	cs, err := oauthex.ParseWWWAuthenticate(ch.Header)
	if err != nil {
		return ch
	}
	for _, c := range cs {
		if c.Scheme != "bearer" {
			continue
		}
		if s := c.Params["scope"]; s != "" && ch.Scopes == nil {
			ch.Scopes = strings.Fields(s)
		}
		if e := c.Params["error"]; e != "" && ch.Error == "" {
			ch.Error = e
		}
		if m := c.Params["resource_metadata"]; m != "" && ch.Metadata == "" {
			ch.Metadata = m
		}
	}
	return ch
}

// bearer reports whether the server named an OAuth sign-in: a Bearer challenge.
func (ch *Challenge) bearer() bool {
	cs, err := oauthex.ParseWWWAuthenticate(ch.Header)
	if err != nil {
		return false
	}
	for _, c := range cs {
		if c.Scheme == "bearer" {
			return true
		}
	}
	return false
}

// StepUp reports whether the challenge asks for more scope (403 insufficient_scope).
func (ch *Challenge) StepUp() bool {
	return ch.Status == http.StatusForbidden && ch.Error == "insufficient_scope"
}

// discovery is what discover found of a server's sign-in.
type discovery struct {
	prm *oauthex.ProtectedResourceMetadata
	asm *oauthex.AuthServerMeta
	// resource is the resource to ask tokens for (RFC 8707): the protected resource
	// metadata's, else the server's URL.
	resource string
	// legacy: the server has no protected resource metadata; its origin is taken as
	// the authorization server (2025-03-26).
	legacy bool
	// ownIssuer: the legacy server's metadata names an issuer other than its origin,
	// which the SDK's handler refuses (see legacy.go).
	ownIssuer bool
}

// discover finds the authorization server of the handler's server, as the MCP
// spec's Authorization section (2025-11-25) says, from the challenge:
//
//	"MCP clients MUST be able to parse WWW-Authenticate headers and respond
//	appropriately to HTTP 401 Unauthorized responses from the MCP server." …
//	"Clients MUST support both discovery mechanisms": the resource_metadata of the
//	challenge, then the well-known URIs, at the path of the MCP endpoint, then at
//	the root.
//
// A metadata document whose "resource" is not the server's is refused outright (RFC
// 9728 §3.3: "the client MUST NOT use the metadata"): a server must not send its
// clients' tokens to another's authorization server. A document that is there but
// refused otherwise ends the sign-in too: only a server with no protected resource
// metadata at all (no answer, an error status, or no JSON at every place) is taken
// by the 2025-03-26 rules, its origin the authorization server ("server metadata
// discovery"), with its endpoints at /authorize, /token and /register when it has
// no metadata either ("fallbacks for servers without metadata discovery").
// Whatever metadata is found keeps the rules of checks.go. Its requests go through
// w, whose errors say what failed but not what was answered (failure.go).
func (h *Handler) discover(ctx context.Context, ch *Challenge, w *witness) (*discovery, error) {
	server, c := h.srv.URL, h.hs.client(w)
	d := &discovery{}
	for _, try := range metadataURLs(ch.Metadata, server) {
		if err := checkEndpoint(try.url); err != nil {
			return nil, fmt.Errorf("the server's protected resource metadata URL %s: %v; not signing in", try.url, err)
		}
		w.reset()
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, try.url, try.resource, c)
		if err != nil {
			// The SDK says so only in words; a mismatch must end the search, where
			// a document that is not there (404) goes on to the next place.
			if strings.Contains(err.Error(), "got metadata resource") {
				return nil, fmt.Errorf("the server's protected resource metadata (%s) is for another resource, not %s: not signing in (RFC 9728 §3.3)", try.url, try.resource)
			}
			if x, _ := w.seen(); x.err == nil && x.status >= 200 && x.status < 300 && x.json {
				// There, and refused: never a reason to take the server by the
				// older rules, under which its origin would sign it in.
				why := "it is not valid metadata"
				if strings.Contains(err.Error(), "authorization_servers") {
					why = "an authorization server it names is not at an https URL (nor http at a loopback address)"
				}
				return nil, h.refused(fmt.Sprintf("the server's protected resource metadata (%s) was refused: %s; not signing in", try.url, why), err)
			}
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("the server's protected resource metadata (%s) names no authorization server", try.url)
		}
		d.prm, d.resource = prm, prm.Resource
		break
	}
	if d.prm == nil {
		u, err := url.Parse(server)
		if err != nil {
			return nil, fmt.Errorf("url: %v", err)
		}
		u.Path, u.RawQuery, u.Fragment = "", "", ""
		d.prm = &oauthex.ProtectedResourceMetadata{Resource: server, AuthorizationServers: []string{u.String()}}
		d.resource, d.legacy = server, true
	}
	issuer := d.prm.AuthorizationServers[0]
	var asm *oauthex.AuthServerMeta
	if d.legacy {
		// Read here, not by the SDK, which refuses an issuer of the metadata's own
		// (legacy.go); the rules are the SDK's all the same (checkMetadata).
		var err error
		if asm, err = h.legacyMetadata(ctx, issuer, w); err != nil {
			return nil, err
		}
		// The SDK's handler reads the metadata again, and refuses it for an issuer
		// of its own and at a private address (which the config may name, as
		// Options.Transport says): those take the legacy flow, the rest the SDK's.
		d.ownIssuer = asm != nil && (strings.TrimSuffix(asm.Issuer, "/") != strings.TrimSuffix(issuer, "/") || privateAddress(issuer))
	} else {
		w.reset()
		var err error
		if asm, err = auth.GetAuthServerMetadata(ctx, issuer, c); err != nil {
			if x, _ := w.seen(); x.err == nil && x.status >= 200 && x.status < 300 && x.json {
				return nil, h.refused(fmt.Sprintf("the authorization server's metadata (%s) was refused: %s; not signing in", issuer, asmRefusal(err)), err)
			}
			return nil, h.failure("", w, err, fmt.Sprintf("the authorization server's metadata (%s) could not be read", issuer))
		}
	}
	if asm == nil {
		asm = &oauthex.AuthServerMeta{Issuer: issuer, AuthorizationEndpoint: issuer + "/authorize",
			TokenEndpoint: issuer + "/token", RegistrationEndpoint: issuer + "/register"}
		if err := checkEndpoint(issuer); err != nil {
			return nil, fmt.Errorf("the authorization server %s (without metadata: its endpoints at /authorize, /token, /register) %v; not signing in", issuer, err)
		}
	} else if err := checkMetadata(asm, issuer); err != nil {
		return nil, err
	}
	d.asm = asm
	return d, nil
}

// asmRefusal says why the SDK refused an authorization server's metadata, in words
// of Switchboard's: the SDK's own quote what the metadata says.
func asmRefusal(err error) string {
	switch msg := err.Error(); {
	case strings.Contains(msg, "does not match issuer"):
		return "it names another issuer than the one asked (RFC 8414 §3.3)"
	case strings.Contains(msg, "PKCE"):
		return "it offers no PKCE (code_challenge_methods_supported), which the MCP spec requires"
	case strings.Contains(msg, "scheme"), strings.Contains(msg, "HTTPS"), strings.Contains(msg, "non-public"):
		return "an endpoint it names is not at an https URL (nor http at a loopback address), or at a private address"
	}
	return "it is not valid metadata"
}

type metadataURL struct{ url, resource string }

// metadataURLs are the places of a server's protected resource metadata, in the
// order the spec tries them, each with the resource its document must name: the
// challenge's resource_metadata, then /.well-known/oauth-protected-resource at the
// path of the MCP endpoint, then at the root (whose document is the origin's).
func metadataURLs(fromChallenge, server string) []metadataURL {
	var out []metadataURL
	if fromChallenge != "" {
		out = append(out, metadataURL{fromChallenge, server})
	}
	u, err := url.Parse(server)
	if err != nil {
		return out
	}
	m := *u
	m.RawQuery, m.Fragment = "", ""
	if p := strings.TrimLeft(u.Path, "/"); p != "" {
		m.Path = "/.well-known/oauth-protected-resource/" + p
		out = append(out, metadataURL{m.String(), server})
	}
	m.Path = "/.well-known/oauth-protected-resource"
	root := *u
	root.Path, root.RawQuery, root.Fragment = "", "", ""
	return append(out, metadataURL{m.String(), root.String()})
}

// authMethod picks the token endpoint's client authentication for a registration:
// none (a public client, PKCE its proof) where the server takes it, else what it
// offers, basic before post; "" leaves it to the server (RFC 7591's default, basic).
func authMethod(supported []string) string {
	for _, m := range []string{"none", "client_secret_basic", "client_secret_post"} {
		for _, s := range supported {
			if s == m {
				return m
			}
		}
	}
	return ""
}
