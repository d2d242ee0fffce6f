package config

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// OAuth is a server's "oauth": how Switchboard signs in to a remote server that asks
// for an OAuth 2.1 sign-in (package signin runs it). Every field is optional: without
// "oauth" a server's 401 still starts the sign-in, discovered from the server
// (protected resource metadata, RFC 9728), with a client registered dynamically.
//
//	"oauth": {"clientId": "Iv1.8a61f9b3a7aba766", "clientSecret": "${GITHUB_CLIENT_SECRET}",
//	          "scopes": ["repo", "read:org"], "redirectUri": "http://127.0.0.1:33418/callback"}
type OAuth struct {
	// ClientID is a client registered with the authorization server beforehand (an
	// "OAuth app"): Switchboard uses it instead of registering one.
	ClientID string `json:"clientId,omitempty"`
	// ClientSecret is that client's secret, if it has one (${VAR} expanded; masked
	// as a secret wherever a message could carry it).
	ClientSecret string `json:"clientSecret,omitempty"`
	// Scopes are asked for instead of those the server's challenge or metadata name.
	Scopes []string `json:"scopes,omitempty"`
	// RedirectURI is the exact loopback URI a pre-registered app demands
	// ("http://127.0.0.1:PORT/PATH"); switchboard login listens there. Empty: a free
	// port of 127.0.0.1, path /callback.
	RedirectURI string `json:"redirectUri,omitempty"`
	// Grant is "authorization_code" (the default: a person signs in in a browser) or
	// "client_credentials" (machine to machine: ClientID and ClientSecret, no person).
	Grant string `json:"grant,omitempty"`
	// ClientMetadataURL is the client's ID metadata document (an https URL with a
	// path), used as its client id where the authorization server takes one.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// PerUser: under switchboard serve with "auth", each person signs in to the
	// server for themselves, and their calls use their own tokens (one connection
	// per person). Elsewhere (one person: the CLI, mcp) it changes nothing.
	PerUser bool `json:"perUser,omitempty"`
}

// The grants of "oauth.grant".
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
)

// OAuthGrants are the values of "oauth.grant".
var OAuthGrants = []string{GrantAuthorizationCode, GrantClientCredentials}

// GrantType is the grant the server's sign-in uses: its "oauth.grant", else
// authorization_code.
func (o *OAuth) GrantType() string {
	if o == nil || o.Grant == "" {
		return GrantAuthorizationCode
	}
	return o.Grant
}

// oauth reads a server's "oauth" object at fp.
func (st *entryState) oauth(v *hujson.Value, fp string) *OAuth {
	p := st.p
	o := &OAuth{}
	at := map[string]*hujson.Value{}
	var unknown []string
	p.members(v, fp, func(key, kp string, v *hujson.Value) {
		at[key] = v
		switch key {
		case "clientId":
			if s, ok := p.str(v, kp); ok {
				if o.ClientID = p.expand(s, kp, v); o.ClientID == "" {
					p.errAt(v, kp, "empty (leave it out to register a client dynamically)")
				}
			}
		case "clientSecret":
			if s, ok := p.str(v, kp); ok {
				o.ClientSecret = p.expandSecret(s, kp, v)
			}
		case "scopes":
			o.Scopes = p.scopes(v, kp)
		case "redirectUri":
			if s, ok := p.str(v, kp); ok {
				o.RedirectURI = p.expand(s, kp, v)
				if msg := checkLoopbackRedirect(o.RedirectURI); msg != "" {
					p.errAt(v, kp, "%s", msg)
				}
			}
		case "grant":
			if s, ok := p.str(v, kp); ok {
				o.Grant = p.oneOf(v, kp, s, OAuthGrants)
			}
		case "clientMetadataUrl":
			if s, ok := p.str(v, kp); ok {
				o.ClientMetadataURL = p.expand(s, kp, v)
				if u, err := url.Parse(o.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
					p.errAt(v, kp, "want an https URL with a path (the client's ID metadata document), like https://example.com/switchboard/client.json")
				}
			}
		case "perUser":
			o.PerUser, _ = p.boolean(v, kp)
		default:
			unknown = append(unknown, key)
		}
	})
	p.unknownFields(v, fp, unknown, oauthFields, false)
	if o.PerUser && o.Grant == GrantClientCredentials {
		p.errAt(at["perUser"], fp+".perUser", `not with "grant": "client_credentials": that grant signs the service in, no person`)
	}
	if o.ClientSecret != "" && o.ClientID == "" && at["clientId"] == nil {
		p.errAt(at["clientSecret"], fp+".clientSecret", `needs "clientId", the client the secret belongs to`)
	}
	if o.Grant == GrantClientCredentials {
		for _, f := range []string{"clientId", "clientSecret"} {
			if at[f] == nil {
				p.errAt(at["grant"], fp+".grant", `"client_credentials" needs %q: the authorization server knows the client by it`, f)
			}
		}
		if at["redirectUri"] != nil {
			p.warn(fp+".redirectUri", `ignored with "grant": "client_credentials" (no browser comes back)`)
		}
	}
	return o
}

// scopes reads "oauth.scopes": an array of OAuth scope tokens (RFC 6749 §3.3:
// printable ASCII without spaces, quotes or backslashes).
func (p *parser) scopes(v *hujson.Value, fp string) []string {
	out := p.strings(v, fp, true)
	arr, _ := v.Value.(*hujson.Array)
	for i, s := range out {
		if arr == nil || i >= len(arr.Elements) {
			break
		}
		if _, isStr := asString(&arr.Elements[i]); !isStr {
			continue // reported by strings
		}
		if !scopeToken(s) {
			p.errAt(&arr.Elements[i], fp+"["+strconv.Itoa(i)+"]", "%q is not a scope (one word of printable characters, no quotes or backslashes; one scope per element)", s)
		}
	}
	return out
}

// scopeToken reports whether s is an RFC 6749 scope-token: 1*( %x21 / %x23-5B / %x5D-7E ).
func scopeToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// checkLoopbackRedirect validates "oauth.redirectUri": switchboard login listens on
// it, so it must be plain http to a loopback address with a port. The message never
// quotes the value (it went through ${VAR} expansion).
func checkLoopbackRedirect(raw string) string {
	const want = "want a loopback URL with a port, like http://127.0.0.1:33418/callback"
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Port() == "" || u.RawQuery != "" || u.Fragment != "" {
		return want
	}
	if n, err := strconv.Atoi(u.Port()); err != nil || n < 1 || n > 65535 {
		return want
	}
	host := u.Hostname()
	if host == "localhost" {
		return ""
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return want
	}
	return ""
}
