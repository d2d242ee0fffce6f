package config

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/tailscale/hujson"
)

// ServeSettings is "switchboard.serve": what switchboard serve asks of the people
// who call it (a team's service).
//
//	"serve": {"auth": {"issuer": "https://login.example.com", "audience": "switchboard",
//	                   "admins": ["alice@example.com"], "adminClaim": "groups=switchboard-admins"},
//	          "audit": {"arguments": false},
//	          "limits": {"requestsPerMinute": 120}}
type ServeSettings struct {
	// Auth, when set, makes every request but the probes carry a JWT of the
	// identity provider it names (package identity checks it).
	Auth *AuthSettings `json:"auth,omitempty"`
	// Audit says what the log line of each tool call carries.
	Audit AuditSettings `json:"audit,omitzero"`
	// Limits bounds what one person may ask of the service.
	Limits LimitSettings `json:"limits,omitzero"`
	// Usage is how tool calls are kept for usage over time (GET /v1/usage).
	Usage UsageSettings `json:"usage,omitzero"`
}

// UsageSettings is "switchboard.serve.usage".
type UsageSettings struct {
	// Retention is how long each call's record is kept in the session store; 0
	// means 30 days, and "0" in the file keeps none (stored as -1: usage off).
	Retention time.Duration `json:"retention,omitempty"`
}

// AuthSettings is "switchboard.serve.auth": the OpenID Connect provider whose tokens
// serve takes.
type AuthSettings struct {
	// Issuer is the provider's issuer URL (https, or http on loopback): its
	// /.well-known/openid-configuration names the keys (jwks_uri).
	Issuer string `json:"issuer"`
	// Audience must be among a token's "aud".
	Audience string `json:"audience"`
	// Admins are subjects ("sub") who see and manage everyone's sessions.
	Admins []string `json:"admins,omitempty"`
	// AdminClaim, "CLAIM=VALUE", makes an admin of whoever's token has VALUE in
	// CLAIM (a string, or an array of strings such as "groups"). Empty: Admins only.
	AdminClaim string `json:"adminClaim,omitempty"`
	// GroupsClaim is the claim whose values are a person's groups, which profiles
	// name people by. Empty: "groups".
	GroupsClaim string `json:"groupsClaim,omitempty"`
	// ClientID is the provider's client id of the dashboard, a public client that
	// signs people in with the authorization code flow and PKCE. Empty: the
	// dashboard asks for a token to paste.
	ClientID string `json:"clientId,omitempty"`
}

// AdminClaimParts splits AdminClaim into the claim's name and the value it must
// hold ("", "" when unset).
func (a *AuthSettings) AdminClaimParts() (claim, value string) {
	if a == nil {
		return "", ""
	}
	claim, value, _ = strings.Cut(a.AdminClaim, "=")
	return claim, value
}

// AuditSettings is "switchboard.serve.audit".
type AuditSettings struct {
	// Arguments puts a call's arguments in its audit line (secrets masked); off by
	// default, since arguments may carry what a person would not want logged.
	Arguments bool `json:"arguments,omitempty"`
}

// LimitSettings is "switchboard.serve.limits".
type LimitSettings struct {
	// RequestsPerMinute bounds each person's requests (0: no bound); past it the
	// answer is 429 with Retry-After.
	RequestsPerMinute int `json:"requestsPerMinute,omitempty"`
}

// serveSettings reads "switchboard.serve".
func (p *parser) serveSettings(v *hujson.Value, fp string, ss *ServeSettings) {
	p.members(v, fp, func(key, kp string, v *hujson.Value) {
		switch key {
		case "auth":
			ss.Auth = p.authSettings(v, kp)
		case "audit":
			p.members(v, kp, func(key, kp string, v *hujson.Value) {
				switch key {
				case "arguments":
					ss.Audit.Arguments, _ = p.boolean(v, kp)
				default:
					p.warnAt(v, kp, "unknown setting (ignored)")
				}
			})
		case "usage":
			p.members(v, kp, func(key, kp string, v *hujson.Value) {
				switch key {
				case "retention":
					ss.Usage.Retention = disableOnZero(p.duration(v, kp, zeroOff))
				default:
					p.warnAt(v, kp, "unknown setting (ignored)")
				}
			})
		case "limits":
			p.members(v, kp, func(key, kp string, v *hujson.Value) {
				switch key {
				case "requestsPerMinute":
					if n, ok := p.count(v, kp, 1); ok {
						ss.Limits.RequestsPerMinute = n
					}
				default:
					p.warnAt(v, kp, "unknown setting (ignored)")
				}
			})
		default:
			p.warnAt(v, kp, "unknown setting (ignored)")
		}
	})
}

// authSettings reads "switchboard.serve.auth"; nil when it is not an object.
func (p *parser) authSettings(v *hujson.Value, fp string) *AuthSettings {
	if _, ok := v.Value.(*hujson.Object); !ok {
		p.errAt(v, fp, "want an object")
		return nil
	}
	var as AuthSettings
	at := map[string]bool{}
	p.members(v, fp, func(key, kp string, v *hujson.Value) {
		at[key] = true
		switch key {
		case "issuer":
			if s, ok := p.str(v, kp); ok {
				s = p.expand(s, kp, v)
				if err := CheckIssuer(s); err != nil {
					p.errAt(v, kp, "%v", err)
					return
				}
				as.Issuer = s
			}
		case "audience":
			if s, ok := p.str(v, kp); ok {
				if as.Audience = p.expand(s, kp, v); as.Audience == "" {
					p.errAt(v, kp, "empty: want the audience the provider's tokens for this service carry in \"aud\"")
				}
			}
		case "admins":
			for _, s := range p.strings(v, kp, true) {
				if s != "" {
					as.Admins = append(as.Admins, s)
				}
			}
		case "adminClaim":
			if s, ok := p.str(v, kp); ok {
				claim, value, found := strings.Cut(s, "=")
				if !found || strings.TrimSpace(claim) == "" || value == "" {
					p.errAt(v, kp, "want CLAIM=VALUE, such as \"groups=switchboard-admins\"")
					return
				}
				as.AdminClaim = s
			}
		case "groupsClaim":
			if s, ok := p.str(v, kp); ok {
				if as.GroupsClaim = strings.TrimSpace(s); as.GroupsClaim == "" {
					p.errAt(v, kp, "empty: want the name of the claim that holds a person's groups (default \"groups\")")
				}
			}
		case "clientId":
			if s, ok := p.str(v, kp); ok {
				if as.ClientID = p.expand(s, kp, v); as.ClientID == "" {
					p.errAt(v, kp, "empty: want the provider's client id of the dashboard (a public client), or leave it out")
				}
			}
		default:
			p.warnAt(v, kp, "unknown setting (ignored)")
		}
	})
	if !at["issuer"] {
		p.errAt(v, fp, `needs "issuer", the identity provider's issuer URL (e.g. "https://login.example.com")`)
	}
	if !at["audience"] {
		p.errAt(v, fp, `needs "audience", the "aud" its tokens for this service carry`)
	}
	return &as
}

// CheckIssuer checks an OpenID issuer URL: https with a host, or http on a loopback
// host (a provider on the same machine, or a test's), with no query or fragment. The
// message does not quote the value (a ${VAR} may have put anything there).
func CheckIssuer(s string) error {
	u, err := url.Parse(s)
	if err == nil && u.Host != "" && u.RawQuery == "" && u.Fragment == "" && u.User == nil &&
		(u.Scheme == "https" || (u.Scheme == "http" && isLoopbackHost(u.Hostname()))) {
		return nil
	}
	return errors.New(`want an https URL with a host (http only on loopback), such as "https://login.example.com"`)
}

// isLoopbackHost reports whether host is localhost or a loopback address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
