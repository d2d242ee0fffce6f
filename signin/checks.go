package signin

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// The rules an authorization server's metadata must keep before a person is sent
// anywhere it names. The MCP SDK applies them on its own path
// (oauthex.GetAuthServerMeta): no script URLs ("to prevent XSS attacks"), the
// endpoints "use HTTPS or are loopback addresses", and PKCE offered. SignIn's
// legacy path (legacy.go) reads metadata the SDK refused for its issuer, so it
// applies them itself, on every path alike (issue 32), with two more: S256 among
// the methods, the one the flow sends, as the MCP spec says
//
//	"MCP clients MUST use the S256 code challenge method when technically capable"
//	… "If code_challenge_methods_supported is absent, the authorization server
//	does not support PKCE and MCP clients MUST refuse to proceed."
//	(Authorization, 2025-11-25: Authorization Code Protection)
//
// and only http and https URLs: file://localhost/… is a loopback URL of no script
// scheme, which the SDK takes, and which a browser would open on a local file.
//
// The SDK refuses an IP address of a private range in an endpoint too; these rules
// do not, as Options.Transport says: the servers the config names may well live on
// a private network, and their authorization servers with them.

// checkMetadata applies the rules to an authorization server's metadata, fetched at
// where; legacy skips the issuer's (RFC 8414 §3.3: the issuer is the URL the metadata
// was asked of), which is what the legacy path is for.
func checkMetadata(asm *oauthex.AuthServerMeta, where string) error {
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("the authorization server's metadata (%s) %s: not signing in", where, fmt.Sprintf(format, args...))
	}
	if asm.AuthorizationEndpoint == "" || asm.TokenEndpoint == "" {
		return refuse("lacks its endpoints (authorization_endpoint, token_endpoint)")
	}
	if asm.Issuer == "" {
		return refuse("lacks its issuer")
	}
	if err := checkEndpoint(asm.Issuer); err != nil {
		return refuse("names its issuer %s", err)
	}
	for _, e := range []struct{ name, url string }{
		{"authorization_endpoint", asm.AuthorizationEndpoint},
		{"token_endpoint", asm.TokenEndpoint},
		{"registration_endpoint", asm.RegistrationEndpoint},
		{"revocation_endpoint", asm.RevocationEndpoint},
		{"introspection_endpoint", asm.IntrospectionEndpoint},
	} {
		if e.url == "" {
			continue
		}
		if err := checkEndpoint(e.url); err != nil {
			return refuse("names its %s %s", e.name, err)
		}
	}
	// Documents a person may be shown: web pages, never scripts or files.
	for _, e := range []struct{ name, url string }{
		{"jwks_uri", asm.JWKSURI},
		{"service_documentation", asm.ServiceDocumentation},
		{"op_policy_uri", asm.OpPolicyURI},
		{"op_tos_uri", asm.OpTOSURI},
	} {
		if e.url == "" {
			continue
		}
		if err := checkWeb(e.url); err != nil {
			return refuse("names its %s %s", e.name, err)
		}
	}
	if !slices.Contains(asm.CodeChallengeMethodsSupported, "S256") {
		return refuse("does not offer PKCE with S256 (code_challenge_methods_supported), which the MCP spec requires")
	}
	return nil
}

// checkEndpoint is the rule of an endpoint that Switchboard sends requests or a
// person to: an https URL, or http at a loopback address (a test, a development
// server), as the SDK's checkHTTPSOrLoopback; its error reads after "… names its
// token_endpoint".
func checkEndpoint(s string) error {
	u, err := checkWebURL(s)
	if err != nil {
		return err
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return errors.New("over plain http away from loopback: only https, or http at a loopback address, is taken")
	}
	return nil
}

// checkWeb is the rule of a page a person may be shown: http or https.
func checkWeb(s string) error {
	_, err := checkWebURL(s)
	return err
}

func checkWebURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, errors.New("that is no URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "https", "http":
	default:
		// The scheme is a short token (url.Parse takes only letters, digits,
		// "+-."), safe to name.
		scheme := u.Scheme
		if len(scheme) > 20 {
			scheme = scheme[:20] + "…"
		}
		return nil, fmt.Errorf("with the scheme %q: only https, or http at a loopback address, is taken", scheme)
	}
	if u.Host == "" {
		return nil, errors.New("without a host")
	}
	return u, nil
}

// isLoopback reports whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// privateAddress reports whether s names its host by an address of a private range
// (RFC 1918, RFC 4193, link-local, carrier-grade NAT), which the SDK refuses.
func privateAddress(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(u.Hostname())
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	return ip.IsPrivate() || ip.IsLinkLocalUnicast() || netip.MustParsePrefix("100.64.0.0/10").Contains(ip)
}

// checkAuthURL is the rule of the URL a person's browser is sent to: http or https,
// whoever made it (a Redirect never opens, prints or hands on another).
func checkAuthURL(s string) error {
	if _, err := checkWebURL(s); err != nil {
		return errors.New("the authorization URL is not an http or https URL: not opening it")
	}
	return nil
}
