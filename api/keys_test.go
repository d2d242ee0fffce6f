package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestKeys: an admin makes an application key (201, the key shown once, "sbk_"),
// lists it (never the key), and the key is a bearer token: GET /v1/me names it (its
// subject "key:<id>", its name, its profiles, not an admin), it reaches /v1/tools and
// the gateway at /mcp, and records its last use; it is no admin's (403 on the keys'
// endpoints). People who are not admins get 403 there too. Once revoked, the very
// next request with it is 401, and so is a key whose secret is changed, or one of
// an unknown id; a 401 never quotes the key, and neither does the log.
func TestKeys(t *testing.T) {
	t.Parallel()
	e := start(t, setup{gateway: true, opts: api.Options{Identify: testPeople, Token: "static-secret",
		Profiles: func() []string { return []string{"ci", "docs"} }}})
	admin := "Authorization: Bearer carol-token"

	for _, who := range []string{"alice-token", "bob-token"} {
		e.do("POST", "/v1/keys", `{"name": "x", "profiles": ["ci"]}`, "Authorization: Bearer "+who).want(t, 403, `"forbidden"`, "only an admin")
		e.do("GET", "/v1/keys", nil, "Authorization: Bearer "+who).want(t, 403, `"forbidden"`)
		e.do("DELETE", "/v1/keys/abc", nil, "Authorization: Bearer "+who).want(t, 403, `"forbidden"`)
	}
	e.do("GET", "/v1/keys", nil, admin).want(t, 200, `"keys": []`)

	r := e.do("POST", "/v1/keys", `{"name": "ci-bot", "profiles": ["ci", "docs"], "expiresIn": "30d"}`, admin)
	r.want(t, 201, `"name": "ci-bot"`, `"profiles": [`, `"expires": `)
	var made apiwire.NewKey
	r.decode(t, &made)
	if !strings.HasPrefix(made.Secret, "sbk_"+made.ID+"_") || len(made.Secret) != len("sbk_")+16+1+64 {
		t.Fatalf("the key %q is not sbk_<id>_<secret> for id %q", made.Secret, made.ID)
	}
	if d := time.Until(made.Expires); d < 29*24*time.Hour || d > 30*24*time.Hour {
		t.Errorf("a key of 30 days expires at %v", made.Expires)
	}
	key := "Authorization: Bearer " + made.Secret

	list := e.do("GET", "/v1/keys", nil, admin)
	list.want(t, 200, `"id": "`+made.ID+`"`, `"name": "ci-bot"`, `"created": `)
	if strings.Contains(list.body, made.Secret[len("sbk_"+made.ID+"_"):]) || strings.Contains(list.body, `"key"`) || strings.Contains(list.body, "lastUsed") {
		t.Errorf("GET /v1/keys before any use: %s (want no key, no last use)", list.body)
	}

	// The key at work.
	e.do("GET", "/v1/me", nil, key).want(t, 200, `"subject": "key:`+made.ID+`"`, `"name": "ci-bot"`, `"admin": false`,
		`"keyId": "`+made.ID+`"`, `"profiles": [
    "ci",
    "docs"
  ]`)
	e.do("GET", "/v1/tools", nil, key).want(t, 200, `"name": "current_time"`)
	e.do("GET", "/v1/keys", nil, key).want(t, 403, "only an admin")
	e.do("POST", "/v1/keys", `{"name": "child", "profiles": ["ci"]}`, key).want(t, 403, "only an admin")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	lt, err := mcpClient(t, e, made.Secret).ListTools(ctx, nil)
	if err != nil || len(lt.Tools) == 0 {
		t.Fatalf("tools/list at /mcp with the key: %v %+v", err, lt)
	}
	e.do("GET", "/v1/keys", nil, admin).want(t, 200, `"lastUsed": `)

	// Refused: a changed secret, an unknown id, then the key once revoked.
	last := "0"
	if strings.HasSuffix(made.Secret, "0") {
		last = "1"
	}
	forged := made.Secret[:len(made.Secret)-1] + last
	var refusals []response
	for _, tok := range []string{forged, "sbk_0000000000000000_" + strings.Repeat("a", 64), "sbk_nounderscore"} {
		r := e.do("GET", "/v1/tools", nil, "Authorization: Bearer "+tok)
		r.want(t, 401, `"unauthorized"`, "unknown or revoked application key")
		refusals = append(refusals, r)
	}
	e.do("DELETE", "/v1/keys/"+made.ID, nil, admin).want(t, 204)
	r = e.do("GET", "/v1/tools", nil, key)
	r.want(t, 401, "unknown or revoked application key")
	refusals = append(refusals, r)
	c := mcp.NewClient(&mcp.Implementation{Name: "keys-test", Version: "1"}, nil)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	if cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.url + "/mcp",
		HTTPClient: &http.Client{Transport: headerRT{"Bearer " + made.Secret, tr}}, MaxRetries: -1}, nil); err == nil {
		cs.Close()
		t.Errorf("the revoked key still connects at /mcp")
	}
	e.do("DELETE", "/v1/keys/"+made.ID, nil, admin).want(t, 404, `"not_found"`)
	e.do("GET", "/v1/keys", nil, admin).want(t, 200, `"keys": []`)
	for _, r := range refusals {
		if strings.Contains(r.body, made.Secret[len("sbk_"+made.ID+"_"):len(made.Secret)-1]) {
			t.Errorf("a refusal quotes the key: %s", r.body)
		}
	}
	if strings.Contains(e.logs.String(), made.Secret[len("sbk_"+made.ID+"_"):]) {
		t.Errorf("the log shows the key")
	}
	if !strings.Contains(e.logs.String(), `"application key created"`) || !strings.Contains(e.logs.String(), `"application key revoked"`) {
		t.Errorf("the log does not say the key was made and revoked")
	}
}

// TestKeyRequests: what POST /v1/keys refuses (400, saying why) — no name, no
// profile, a profile the config does not have (naming those it has), one twice, an
// expiry that is not a duration or not ahead — and a key whose time is up is
// refused (401, saying it expired). The static token's admin makes keys too.
func TestKeyRequests(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{Token: "static-secret", Profiles: func() []string { return []string{"ci", "docs"} }}})
	for body, why := range map[string]string{
		`{"profiles": ["ci"]}`:                                   `"name" is required`,
		`{"name": "  ", "profiles": ["ci"]}`:                     `"name" is required`,
		`{"name": "x"}`:                                          `"profiles" is required`,
		`{"name": "x", "profiles": []}`:                          `"profiles" is required`,
		`{"name": "x", "profiles": ["sales"]}`:                   `no profile "sales" in the config (there are ci, docs)`,
		`{"name": "x", "profiles": ["ci", "ci"]}`:                `names "ci" twice`,
		`{"name": "x", "profiles": [""]}`:                        `"profiles"[0] is empty`,
		`{"name": "x", "profiles": ["ci"], "expiresIn": "soon"}`: `"expiresIn": "soon" is not a number of days`,
		`{"name": "x", "profiles": ["ci"], "expiresIn": "-1h"}`:  `is not after now`,
		`{"name": "x", "profiles": ["ci"], "key": "mine"}`:       `unknown field "key"`,
	} {
		r := e.do("POST", "/v1/keys", body)
		if r.status != 400 {
			t.Errorf("POST /v1/keys %s: %d %s, want 400", body, r.status, r.body)
			continue
		}
		if _, msg, _ := r.errorOf(t); !strings.Contains(msg, why) {
			t.Errorf("POST /v1/keys %s: %q, want it to say %s", body, msg, why)
		}
	}
	r := e.do("POST", "/v1/keys", `{"name": "brief", "profiles": ["docs"], "expiresIn": "2s"}`)
	r.want(t, 201)
	var made apiwire.NewKey
	r.decode(t, &made)
	e.do("GET", "/v1/me", nil, "Authorization: Bearer "+made.Secret).want(t, 200, `"keyId": "`+made.ID+`"`)
	var last response
	testenv.WaitFor(t, "the key to expire", 10*time.Second, func() bool {
		last = e.do("GET", "/v1/me", nil, "Authorization: Bearer "+made.Secret)
		return last.status != 200
	})
	last.want(t, 401, "the application key "+made.ID+" expired at")
}

// TestKeysNeedTokens: a service that takes no token (loopback, --no-token) makes no
// key, which would change nothing there (501), and one without sessions keeps none.
func TestKeysNeedTokens(t *testing.T) {
	t.Parallel()
	e := start(t, setup{})
	e.do("POST", "/v1/keys", `{"name": "x", "profiles": ["ci"]}`).want(t, 501, `"not_supported"`, "takes no tokens")
	e.do("GET", "/v1/keys", nil).want(t, 200, `"keys": []`)
}

// TestKeySubjectReserved: a provider's token whose subject is shaped as a key's
// person's ("key:<id>") is refused, so that nobody owns what a key made.
func TestKeySubjectReserved(t *testing.T) {
	t.Parallel()
	people := func(r *http.Request) (identity.Person, error) {
		if r.Header.Get("Authorization") == "Bearer mimic-token" {
			return identity.Person{Subject: "key:3f9c2a61b0d4e8a7"}, nil
		}
		return testPeople(r)
	}
	e := start(t, setup{opts: api.Options{Identify: people, Token: "static-secret"}})
	e.token = ""
	e.do("GET", "/v1/me", nil, "Authorization: Bearer mimic-token").want(t, 401, "names application keys here")
	e.do("GET", "/v1/me", nil, "Authorization: Bearer alice-token").want(t, 200, `"subject": "alice"`)
}
