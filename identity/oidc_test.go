package identity_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/fakeidp"
)

func startIdP(t *testing.T, opts *fakeidp.Options) *fakeidp.Provider {
	t.Helper()
	idp, err := fakeidp.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idp.Close() })
	return idp
}

func newVerifier(t *testing.T, idp *fakeidp.Provider, opts *identity.OIDCOptions) *identity.Verifier {
	t.Helper()
	var o identity.OIDCOptions
	if opts != nil {
		o = *opts
	}
	o.Issuer, o.Audience = idp.Issuer, idp.Audience()
	v, err := identity.NewVerifier(context.Background(), &o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// identify asks v about a request that carries authorization.
func identify(v *identity.Verifier, authorization string) (identity.Person, error) {
	r := httptest.NewRequest("GET", "/v1/me", nil)
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	return v.Identify(r)
}

// TestVerifierRefuses: every way a token is not taken is a *Refusal with its
// reason, and the message never quotes the token.
func TestVerifierRefuses(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	other := startIdP(t, nil)
	v := newVerifier(t, idp, nil)
	now := time.Now()
	cases := []struct {
		name, authorization, reason, says string
	}{
		{"no token", "", identity.ReasonNoToken, "no bearer token"},
		{"basic", "Basic YWxpY2U6c2VjcmV0", identity.ReasonNoToken, "no bearer token"},
		{"not a JWT", "Bearer not-a-jwt", identity.ReasonNotJWT, "not a JWT"},
		{"expired", "Bearer " + idp.Mint(map[string]any{"exp": now.Add(-2 * time.Minute).Unix()}), identity.ReasonExpired, "expired"},
		{"no exp", "Bearer " + idp.Mint(map[string]any{"exp": nil}), identity.ReasonExpired, "expired"},
		{"not yet valid", "Bearer " + idp.Mint(map[string]any{"nbf": now.Add(3 * time.Minute).Unix()}), identity.ReasonNotYetValid, "not valid yet"},
		{"wrong audience", "Bearer " + idp.Mint(map[string]any{"aud": "another-service"}), identity.ReasonAudience, "another service"},
		{"wrong issuer, same key", "Bearer " + idp.Mint(map[string]any{"iss": "https://login.example.com"}), identity.ReasonIssuer, idp.Issuer},
		{"another provider's", "Bearer " + other.Mint(nil), identity.ReasonIssuer, idp.Issuer},
		{"forged", "Bearer " + idp.Forge(nil), identity.ReasonUnknownKey, "does not publish"},
		{"bad signature", "Bearer " + idp.ForgeWithKnownKeyID(nil), identity.ReasonBadSignature, "signature does not verify"},
		{"no subject", "Bearer " + idp.Mint(map[string]any{"sub": nil}), identity.ReasonInvalid, "no subject"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := identify(v, c.authorization)
			var ref *identity.Refusal
			if !errors.As(err, &ref) {
				t.Fatalf("Identify = %+v, %v; want a *Refusal", p, err)
			}
			if ref.Reason != c.reason || !strings.Contains(err.Error(), c.says) {
				t.Errorf("refusal %q: %s; want %q saying %q", ref.Reason, err, c.reason, c.says)
			}
			if tok, ok := strings.CutPrefix(c.authorization, "Bearer "); ok && strings.Contains(err.Error(), tok) {
				t.Errorf("the refusal quotes the token: %s", err)
			}
		})
	}
}

// TestVerifierLeeway: a minute either side of "exp" and "nbf" is taken.
func TestVerifierLeeway(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	v := newVerifier(t, idp, nil)
	now := time.Now()
	for _, claims := range []map[string]any{
		{"exp": now.Add(-30 * time.Second).Unix()},
		{"nbf": now.Add(30 * time.Second).Unix()},
	} {
		if _, err := identify(v, "Bearer "+idp.Mint(claims)); err != nil {
			t.Errorf("%v: %v", claims, err)
		}
	}
}

// TestVerifierPeople: RS256 and ES256 tokens; the name from "name", else
// "preferred_username", else "email"; admins by subject or by the admin claim (a
// string or an array).
func TestVerifierPeople(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	v := newVerifier(t, idp, &identity.OIDCOptions{Admins: []string{"root"}, AdminClaim: "groups", AdminValue: "switchboard-admins"})
	cases := []struct {
		name  string
		token string
		want  identity.Person
	}{
		{"RS256", idp.Mint(map[string]any{"sub": "alice", "name": "Alice"}), identity.Person{Subject: "alice", Name: "Alice"}},
		{"ES256", idp.MintES256(map[string]any{"sub": "bob", "preferred_username": "bobby"}), identity.Person{Subject: "bob", Name: "bobby"}},
		{"email", idp.Mint(map[string]any{"sub": "carol", "email": "carol@example.com"}), identity.Person{Subject: "carol", Name: "carol@example.com", Email: "carol@example.com"}},
		{"aud array", idp.Mint(map[string]any{"sub": "dan", "aud": []string{"other", idp.Audience()}}), identity.Person{Subject: "dan"}},
		{"admin by subject", idp.Mint(map[string]any{"sub": "root"}), identity.Person{Subject: "root", Admin: true}},
		{"admin by group", idp.Mint(map[string]any{"sub": "erin", "groups": []string{"staff", "switchboard-admins"}}), identity.Person{Subject: "erin", Admin: true, Groups: []string{"staff", "switchboard-admins"}}},
		{"admin by string claim", idp.Mint(map[string]any{"sub": "fay", "groups": "switchboard-admins"}), identity.Person{Subject: "fay", Admin: true, Groups: []string{"switchboard-admins"}}},
		{"another group", idp.Mint(map[string]any{"sub": "gus", "groups": []string{"staff"}}), identity.Person{Subject: "gus", Groups: []string{"staff"}}},
		{"groups not strings skipped", idp.Mint(map[string]any{"sub": "hal", "groups": []any{"ops", 7, ""}}), identity.Person{Subject: "hal", Groups: []string{"ops"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := identify(v, "Bearer "+c.token)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, c.want) {
				t.Errorf("Identify = %+v, want %+v", p, c.want)
			}
		})
	}
}

// TestVerifierGroupsClaim: OIDCOptions.GroupsClaim names the claim a person's
// groups come from; "groups" is then just another claim.
func TestVerifierGroupsClaim(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	v := newVerifier(t, idp, &identity.OIDCOptions{GroupsClaim: "roles"})
	p, err := identify(v, "Bearer "+idp.Mint(map[string]any{"sub": "ivy", "roles": []string{"sales"}, "groups": []string{"ops"}}))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"sales"}; !reflect.DeepEqual(p.Groups, want) {
		t.Errorf("Groups = %q, want %q (from \"roles\")", p.Groups, want)
	}
}

// TestVerifierRotation: after the provider rotates its keys, a token of the new key
// is taken without a new Verifier (the keys are fetched again, once), and one of the
// old key no more.
func TestVerifierRotation(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	v := newVerifier(t, idp, nil)
	old := idp.Mint(nil)
	if _, err := identify(v, "Bearer "+old); err != nil {
		t.Fatal(err)
	}
	if n := idp.KeyFetches(); n != 1 {
		t.Fatalf("%d fetches of the keys before the rotation, want 1", n)
	}
	if err := idp.Rotate(); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{idp.Mint(nil), idp.MintES256(nil)} {
		if _, err := identify(v, "Bearer "+tok); err != nil {
			t.Fatalf("a token of the new key: %v", err)
		}
	}
	if n := idp.KeyFetches(); n != 2 {
		t.Errorf("%d fetches of the keys after the rotation, want 2", n)
	}
	if _, err := identify(v, "Bearer "+old); err == nil {
		t.Error("a token of the retired key is still taken")
	}
}

// TestVerifierKeyFetchesBounded: a flood of tokens with key ids the provider does
// not publish costs one fetch of its keys, not one per request.
func TestVerifierKeyFetchesBounded(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	v := newVerifier(t, idp, nil)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if _, err := identify(v, "Bearer "+idp.Forge(nil)); err == nil {
				t.Error("a forged token is taken")
			}
		})
	}
	wg.Wait()
	// The one at the start, and at most one for the flood.
	if n := idp.KeyFetches(); n > 2 {
		t.Errorf("%d fetches of the keys for 50 forged tokens, want at most 2", n)
	}
	// Past the bound, a rotation waits for the next refresh: a token of the new key
	// is refused as of an unknown key meanwhile.
	if err := idp.Rotate(); err != nil {
		t.Fatal(err)
	}
	_, err := identify(v, "Bearer "+idp.Mint(nil))
	var ref *identity.Refusal
	if !errors.As(err, &ref) || ref.Reason != identity.ReasonUnknownKey {
		t.Errorf("a new key's token within the refresh bound: %v, want an unknown key", err)
	}
}

// TestNewVerifierUnreachable: a provider that cannot be reached is an error that
// names its issuer.
func TestNewVerifierUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	issuer := srv.URL
	srv.Close()
	_, err := identity.NewVerifier(context.Background(), &identity.OIDCOptions{Issuer: issuer, Audience: "switchboard"})
	if err == nil || !strings.Contains(err.Error(), issuer) {
		t.Errorf("NewVerifier = %v, want an error naming %s", err, issuer)
	}
	idp := startIdP(t, nil)
	_, err = identity.NewVerifier(context.Background(), &identity.OIDCOptions{Issuer: idp.Issuer + "/other", Audience: "switchboard"})
	if err == nil || !strings.Contains(err.Error(), idp.Issuer+"/other") {
		t.Errorf("NewVerifier of a wrong issuer = %v, want an error naming it", err)
	}
}

// TestVerifierTimeClaims: a time claim ("exp", "nbf", "iat") that is not a JSON
// number is refused, never skipped: a string "nbf" an hour ahead was read as no
// "nbf" at all, so a token valid later passed now. A string of digits (which
// go-oidc takes for a number), a word, null, an object: each refused with its
// claim named. Numbers still pass.
func TestVerifierTimeClaims(t *testing.T) {
	t.Parallel()
	idp := startIdP(t, nil)
	v := newVerifier(t, idp, nil)
	now := time.Now()
	later := now.Add(time.Hour).Unix()
	for _, claim := range []string{"exp", "nbf", "iat"} {
		for _, val := range []any{strconv.FormatInt(later, 10), "soon", map[string]any{"t": later}, []any{later}, true} {
			t.Run(fmt.Sprintf("%s=%v", claim, val), func(t *testing.T) {
				p, err := identify(v, "Bearer "+idp.Mint(map[string]any{claim: val}))
				var ref *identity.Refusal
				if !errors.As(err, &ref) {
					t.Fatalf("Identify = %+v, %v; want a *Refusal", p, err)
				}
				if ref.Reason != identity.ReasonBadDate || !strings.Contains(err.Error(), `"`+claim+`" is not a number`) {
					t.Errorf("refusal %q: %s; want %q naming %q", ref.Reason, err, identity.ReasonBadDate, claim)
				}
			})
		}
	}
	if _, err := identify(v, "Bearer "+idp.Mint(map[string]any{"nbf": now.Unix(), "iat": float64(now.Unix()) + 0.5})); err != nil {
		t.Errorf("numbers refused: %v", err)
	}
}
