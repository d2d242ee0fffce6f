package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	pgsignin "github.com/switchboard-mcp/switchboard/signin/postgres"
)

// people is an api.Options.Identify over fixed bearer tokens: alice, bob, and carol
// an admin (as api's tests have it).
func people(r *http.Request) (identity.Person, error) {
	switch r.Header.Get("Authorization") {
	case "Bearer alice-token":
		return identity.Person{Subject: "alice"}, nil
	case "Bearer bob-token":
		return identity.Person{Subject: "bob"}, nil
	case "Bearer carol-token":
		return identity.Person{Subject: "carol", Admin: true}, nil
	}
	return identity.Person{}, errors.New("the token is not one of this service's")
}

// replica is one host's API, served on loopback until the test ends.
type replica struct {
	t    *testing.T
	base string
}

func startReplica(t *testing.T, ctx context.Context, o *host.Options) *replica {
	t.Helper()
	h := host.New(&config.Config{}, o)
	t.Cleanup(func() { h.Close() })
	if err := h.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	srv, err := h.API(ctx, &api.Options{Identify: people})
	if err != nil {
		t.Fatal(err)
	}
	return &replica{t: t, base: serveAPI(t, srv)}
}

// do sends one request as tok and returns the status and body.
func (r *replica) do(tok, method, path, body string) (int, string) {
	r.t.Helper()
	req, err := http.NewRequest(method, r.base+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Minute}
	res, err := client.Do(req)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// listed is the ids GET /v1/sessions lists to tok, with their owners.
func (r *replica) listed(tok string) map[string]string {
	r.t.Helper()
	code, body := r.do(tok, "GET", "/v1/sessions", "")
	var l struct {
		Sessions []struct{ ID, Owner string } `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(body), &l); code != 200 || err != nil {
		r.t.Fatalf("GET /v1/sessions: %d %s", code, body)
	}
	out := map[string]string{}
	for _, s := range l.Sessions {
		out[s.ID] = s.Owner
	}
	return out
}

// TestOwnersReplicas: two replicas (hosts, each with its API given an
// Options.Identify through host.API) over one PostgreSQL database. Alice's session,
// made on A and continued on B, is invisible to bob on either replica (not listed,
// and 404 on every route, as a session that does not exist), and carol, an admin,
// lists it with its owner and reads it on both.
func TestOwnersReplicas(t *testing.T) {
	dsn := testenv.Postgres(t)
	if dsn == "" {
		return
	}
	t.Setenv(pgsignin.KeyEnv, "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWY=") // the sign-ins' store, in the same database
	t.Setenv("HOST_TEST_MODEL_KEY", "model-key-Ow3")
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := func() *host.Options {
		return &host.Options{
			DataDir:  t.TempDir(),
			Model:    &config.ModelSettings{Name: "m", APIKeyEnv: "HOST_TEST_MODEL_KEY", BaseURL: fake.URL},
			Sessions: &config.SessionSettings{Store: "postgres", DSN: dsn},
		}
	}
	a, b := startReplica(t, ctx, opts()), startReplica(t, ctx, opts())

	code, body := a.do("alice-token", "POST", "/v1/sessions", `{}`)
	var sess struct{ ID, Owner string }
	if err := json.Unmarshal([]byte(body), &sess); code != 201 || err != nil || sess.Owner != "alice" {
		t.Fatalf("alice's session on A: %d %s", code, body)
	}
	id := sess.ID
	for _, r := range []*replica{a, b} {
		if code, body := r.do("alice-token", "POST", "/v1/sessions/"+id+"/messages", `{"content": "on `+r.base+`"}`); code != 200 || !strings.Contains(body, "You said: on "+r.base) {
			t.Fatalf("alice's turn on %s: %d %s", r.base, code, body)
		}
	}

	missing := `"message": "session not found: ` + id + `"`
	for _, r := range []*replica{a, b} {
		if got := r.listed("bob-token"); len(got) != 0 {
			t.Errorf("bob lists %v on %s, want none", got, r.base)
		}
		if got := r.listed("alice-token"); len(got) != 1 || got[id] != "alice" {
			t.Errorf("alice lists %v on %s, want hers", got, r.base)
		}
		if got := r.listed("carol-token"); len(got) != 1 || got[id] != "alice" {
			t.Errorf("carol lists %v on %s, want alice's with its owner", got, r.base)
		}
		for _, req := range [][2]string{
			{"GET", "/v1/sessions/" + id},
			{"POST", "/v1/sessions/" + id + "/messages"},
			{"DELETE", "/v1/sessions/" + id},
		} {
			code, body := r.do("bob-token", req[0], req[1], `{"content": "bob's"}`)
			if code != 404 || !strings.Contains(body, `"code": "not_found"`) || !strings.Contains(body, missing) {
				t.Errorf("bob's %s %s on %s: %d %s, want the 404 of a missing session", req[0], req[1], r.base, code, body)
			}
		}
		if code, body := r.do("carol-token", "GET", "/v1/sessions/"+id, ""); code != 200 || !strings.Contains(body, `"owner": "alice"`) ||
			!strings.Contains(body, "You said: on "+a.base) || !strings.Contains(body, "You said: on "+b.base) {
			t.Errorf("carol's GET on %s: %d %s, want alice's session with both turns", r.base, code, body)
		}
	}
	if code, body := b.do("carol-token", "DELETE", "/v1/sessions/"+id, ""); code != 204 {
		t.Errorf("carol's DELETE on B: %d %s", code, body)
	}
	if code, _ := a.do("alice-token", "GET", "/v1/sessions/"+id, ""); code != 404 {
		t.Errorf("alice's GET on A after carol's delete on B: %d, want 404", code)
	}
}
