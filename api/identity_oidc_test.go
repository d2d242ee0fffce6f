package api_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/fakeidp"
)

// startOIDC starts a fake provider and an API whose people are its tokens' (and
// whose static token is "static-secret"), with the gateway at /mcp.
func startOIDC(t *testing.T, opts *fakeidp.Options, apiOpts api.Options) (*env, *fakeidp.Provider) {
	t.Helper()
	idp, err := fakeidp.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idp.Close() })
	v, err := identity.NewVerifier(context.Background(), &identity.OIDCOptions{
		Issuer: idp.Issuer, Audience: idp.Audience(), Admins: []string{"root"},
	})
	if err != nil {
		t.Fatal(err)
	}
	apiOpts.Identify, apiOpts.Issuer, apiOpts.Token = v.Identify, idp.Issuer, "static-secret"
	e := start(t, setup{opts: apiOpts, gateway: true})
	e.token = "" // each request says who it is
	return e, idp
}

// TestOIDCRefusals: a request without a token the provider signed for this service,
// now, gets 401 saying why, with the challenge that points at the resource metadata,
// never quoting the token; at /mcp too, in JSON-RPC's form.
func TestOIDCRefusals(t *testing.T) {
	t.Parallel()
	e, idp := startOIDC(t, nil, api.Options{})
	other, err := fakeidp.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	now := time.Now()
	cases := []struct {
		name, token, says string
	}{
		{"no token", "", "no bearer token"},
		{"not a JWT", "opaque-access-token", "not a JWT"},
		{"expired", idp.Mint(map[string]any{"exp": now.Add(-time.Hour).Unix()}), "expired"},
		{"not yet valid", idp.Mint(map[string]any{"nbf": now.Add(time.Hour).Unix()}), "not valid yet"},
		{"forged", idp.Forge(nil), "does not publish"},
		{"wrong audience", idp.Mint(map[string]any{"aud": "another-service"}), "does not hold"},
		{"wrong issuer", other.Mint(nil), "not from this service's identity provider"},
	}
	wantChallenge := `Bearer resource_metadata="` + e.url + `/.well-known/oauth-protected-resource"`
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var headers []string
			if c.token != "" {
				headers = append(headers, "Authorization: Bearer "+c.token)
			}
			for _, path := range []string{"/v1/servers", "/v1/me"} {
				r := e.do("GET", path, nil, headers...)
				r.want(t, 401, `"code": "unauthorized"`, c.says)
				if got := r.header.Get("WWW-Authenticate"); got != wantChallenge {
					t.Errorf("WWW-Authenticate = %q, want %q", got, wantChallenge)
				}
				if c.token != "" && strings.Contains(r.body, c.token) {
					t.Errorf("the 401 quotes the token: %s", r.body)
				}
			}
			r := e.do("POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, append(headers, "Content-Type: application/json", "Accept: application/json, text/event-stream")...)
			r.want(t, 401, `"jsonrpc"`, c.says)
			if got := r.header.Get("WWW-Authenticate"); got != wantChallenge {
				t.Errorf("/mcp: WWW-Authenticate = %q", got)
			}
		})
	}
	// The probes and the resource metadata need nothing.
	e.do("GET", "/healthz", nil).want(t, 200)
	e.do("GET", "/.well-known/oauth-protected-resource", nil).want(t, 200)
}

// TestMe: GET /v1/me is the caller: a person of the provider, an admin by the
// configured subjects, the static token's admin; a service without identities
// answers as for an admin with no subject.
func TestMe(t *testing.T) {
	t.Parallel()
	e, idp := startOIDC(t, nil, api.Options{})
	cases := []struct {
		name, token string
		want        identity.Person
	}{
		{"person", idp.Mint(map[string]any{"sub": "alice", "name": "Alice"}), identity.Person{Subject: "alice", Name: "Alice"}},
		{"ES256", idp.MintES256(map[string]any{"sub": "bob", "email": "bob@example.com"}), identity.Person{Subject: "bob", Name: "bob@example.com", Email: "bob@example.com"}},
		{"groups", idp.Mint(map[string]any{"sub": "carol", "groups": []string{"sales"}}), identity.Person{Subject: "carol", Groups: []string{"sales"}}},
		{"admin", idp.Mint(map[string]any{"sub": "root"}), identity.Person{Subject: "root", Admin: true}},
		{"static token", "static-secret", identity.Person{Admin: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("GET", "/v1/me", nil, "Authorization: Bearer "+c.token)
			r.want(t, 200)
			var got identity.Person
			r.decode(t, &got)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("/v1/me = %+v, want %+v", got, c.want)
			}
		})
	}
	plain := start(t, setup{})
	r := plain.do("GET", "/v1/me", nil)
	r.want(t, 200, `"subject": ""`, `"admin": true`)
}

// TestResourceMetadata: both paths name the gateway at /mcp (where the request
// reached the service, or Options.PublicURL) and the provider; without a provider
// they are 404.
func TestResourceMetadata(t *testing.T) {
	t.Parallel()
	e, idp := startOIDC(t, nil, api.Options{})
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		r := e.do("GET", path, nil)
		r.want(t, 200)
		var prm oauthex.ProtectedResourceMetadata
		r.decode(t, &prm)
		if prm.Resource != e.url+"/mcp" || !slices.Equal(prm.AuthorizationServers, []string{idp.Issuer}) ||
			!slices.Equal(prm.BearerMethodsSupported, []string{"header"}) || !slices.Contains(prm.ScopesSupported, "openid") {
			t.Errorf("%s = %s", path, r.body)
		}
	}

	pub, _ := startOIDC(t, nil, api.Options{PublicURL: "https://sb.example.com/team/"})
	r := pub.do("GET", "/.well-known/oauth-protected-resource", nil)
	r.want(t, 200, `"resource": "https://sb.example.com/team/mcp"`)
	if got, want := pub.do("GET", "/v1/me", nil).header.Get("WWW-Authenticate"), `Bearer resource_metadata="https://sb.example.com/team/.well-known/oauth-protected-resource"`; got != want {
		t.Errorf("WWW-Authenticate = %q, want %q", got, want)
	}

	plain := start(t, setup{})
	plain.do("GET", "/.well-known/oauth-protected-resource", nil).want(t, 404, "no identity provider")
	plain.do("GET", "/.well-known/oauth-protected-resource/mcp", nil).want(t, 404)
}

// TestOIDCMCPHostSignIn: an MCP host (the Go SDK's client with its authorization
// code handler) that meets the 401 at /mcp reads the resource metadata, registers
// at the provider, signs its person in (authorization code with PKCE), and lists
// the tools with the access token it gets.
func TestOIDCMCPHostSignIn(t *testing.T) {
	t.Parallel()
	e, idp := startOIDC(t, &fakeidp.Options{Claims: map[string]any{"name": "Alice"}}, api.Options{})
	const redirect = "http://127.0.0.1:1/callback" // never visited: Approve stops at the redirect
	approvals := 0
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "test host",
			GrantTypes: []string{"authorization_code"}, ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: "none",
		}},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			approvals++
			q, err := fakeidp.Approve(ctx, args.URL)
			if err != nil {
				return nil, err
			}
			if q.Get("code") == "" {
				return nil, errors.New("no code: " + q.Encode())
			}
			// The whole answer, as a host takes it: the provider names its issuer (RFC 9207).
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := mcp.NewClient(&mcp.Implementation{Name: "test host", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.url + "/mcp", OAuthHandler: h, HTTPClient: &http.Client{Transport: tr}}, nil)
	if err != nil {
		t.Fatalf("connect: %v (provider's problems: %v)", err, idp.Problems())
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) == 0 {
		t.Error("no tools listed")
	}
	if approvals != 1 {
		t.Errorf("%d sign-ins, want 1", approvals)
	}
	if p := idp.Problems(); len(p) > 0 {
		t.Errorf("the provider saw problems: %v", p)
	}
}
