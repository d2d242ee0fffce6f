package upstream

import (
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/identity"
)

// forwardIdentity sets the headers of a server's "forwardIdentity" on r, a request of
// its connection, from the person in r's context: the context of the call it carries
// (the SDK's transports make each request with the context of the call that writes
// it), so that the one connection the server shares carries each call's own person.
// A request made for nobody (the connection's initialize, its lists, its heartbeat,
// the static token's admin, who has no subject) carries none of them; whatever else
// set them is dropped first, so a server may take them as Switchboard's word.
//
// A value a header cannot carry (a control character) is left out, as is a group
// that holds a comma, which would split in two: a server sees less, never a person
// who is not the caller.
func forwardIdentity(r *http.Request) {
	for _, h := range []string{config.HeaderUser, config.HeaderGroups, config.HeaderEmail} {
		r.Header.Del(h)
	}
	p, ok := identity.FromContext(r.Context())
	if !ok || p.Subject == "" || !headerValue(p.Subject) {
		return
	}
	r.Header.Set(config.HeaderUser, p.Subject)
	groups := make([]string, 0, len(p.Groups))
	for _, g := range p.Groups {
		if g != "" && headerValue(g) && !strings.Contains(g, ",") {
			groups = append(groups, g)
		}
	}
	if len(groups) > 0 {
		r.Header.Set(config.HeaderGroups, strings.Join(groups, ","))
	}
	if p.Email != "" && headerValue(p.Email) {
		r.Header.Set(config.HeaderEmail, p.Email)
	}
}

// headerValue reports whether v can be a header's value as it is: no control
// character (RFC 9110's field-value allows tabs, but a name holds none), no space
// at either end (a field value is trimmed of them).
func headerValue(v string) bool {
	return v == strings.TrimSpace(v) && !strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f })
}
