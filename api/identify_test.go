package api_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/identity"
)

// testPeople is an Options.Identify over fixed bearer tokens: "alice-token" is
// alice, "bob-token" bob, "carol-token" carol, an admin. Tests of what belongs to
// whom use it; the OpenID verifier that serve uses is tested in package identity.
func testPeople(r *http.Request) (identity.Person, error) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return identity.Person{}, errors.New("no bearer token (Authorization: Bearer TOKEN)")
	}
	switch tok {
	case "alice-token":
		return identity.Person{Subject: "alice"}, nil
	case "bob-token":
		return identity.Person{Subject: "bob"}, nil
	case "carol-token":
		return identity.Person{Subject: "carol", Admin: true}, nil
	}
	return identity.Person{}, errors.New("the token is not one of this service's")
}

// TestIdentify: with Options.Identify every route but the public ones needs a
// person; a refused request gets 401 with the error's message and the configured
// challenge, never the token; the static token still works, as an admin.
func TestIdentify(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{Identify: testPeople, Token: "static-secret",
		IdentifyChallenge: `resource_metadata="http://sb.example/.well-known/oauth-protected-resource"`}})
	r := e.do("GET", "/v1/servers", nil, "Authorization: Bearer forged-token")
	r.want(t, 401, `"code": "unauthorized"`, "the token is not one of this service's")
	if got := r.header.Get("WWW-Authenticate"); got != `Bearer resource_metadata="http://sb.example/.well-known/oauth-protected-resource"` {
		t.Errorf("WWW-Authenticate = %q", got)
	}
	if strings.Contains(r.body, "forged-token") {
		t.Errorf("the 401 quotes the token: %s", r.body)
	}
	e.do("GET", "/v1/servers", nil, "Authorization: Bearer alice-token").want(t, 200, `"clock"`)
	e.do("GET", "/v1/servers", nil, "Authorization: Bearer static-secret").want(t, 200, `"clock"`)
	e.do("GET", "/healthz", nil, "Authorization: Bearer forged-token").want(t, 200)
}
