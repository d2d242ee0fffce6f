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

// discover finds the authorization server of the server at server, as the MCP spec's
// Authorization section (2025-11-25) says, from the challenge:
//
//	"MCP clients MUST be able to parse WWW-Authenticate headers and respond
//	appropriately to HTTP 401 Unauthorized responses from the MCP server." …
//	"Clients MUST support both discovery mechanisms": the resource_metadata of the
//	challenge, then the well-known URIs, at the path of the MCP endpoint, then at
//	the root.
//
// A metadata document whose "resource" is not the server's is refused outright (RFC
// 9728 §3.3: "the client MUST NOT use the metadata"): a server must not send its
// clients' tokens to another's authorization server. Without any metadata, the
// server's origin is the authorization server (2025-03-26, "server metadata
// discovery"), with its endpoints at /authorize, /token and /register when it has no
// metadata either ("fallbacks for servers without metadata discovery").
func discover(ctx context.Context, server string, ch *Challenge, c *http.Client) (*discovery, error) {
	d := &discovery{}
	for _, try := range metadataURLs(ch.Metadata, server) {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, try.url, try.resource, c)
		if err != nil {
			// The SDK says so only in words; a mismatch must end the search, where
			// a document that is not there (404) goes on to the next place.
			if strings.Contains(err.Error(), "got metadata resource") {
				return nil, fmt.Errorf("the server's protected resource metadata (%s) is for another resource, not %s: not signing in (RFC 9728 §3.3)", try.url, try.resource)
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
	asm, err := auth.GetAuthServerMetadata(ctx, issuer, c)
	if err != nil && d.legacy {
		if own, lerr := legacyMetadata(ctx, issuer, c); lerr == nil && own != nil {
			asm, err, d.ownIssuer = own, nil, true
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the authorization server's metadata (%s): %v", issuer, err)
	}
	if asm == nil {
		asm = &oauthex.AuthServerMeta{Issuer: issuer, AuthorizationEndpoint: issuer + "/authorize",
			TokenEndpoint: issuer + "/token", RegistrationEndpoint: issuer + "/register"}
	}
	d.asm = asm
	return d, nil
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
