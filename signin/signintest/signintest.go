// Package signintest is the contract every signin.Store passes: run [Run] from a
// store's tests with a function that opens a new, empty store (registering whatever
// it must close with t.Cleanup).
package signintest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/signin"
)

// Run checks the store contract on stores that open makes, each case on a store of
// its own.
func Run(t *testing.T, open func(t *testing.T) signin.Store) {
	t.Helper()
	cases := []struct {
		name string
		fn   func(*testing.T, signin.Store)
	}{
		{"Empty", empty},
		{"RoundTrip", roundTrip},
		{"Replace", replace},
		{"Issuers", issuers},
		{"ServersApart", serversApart},
		{"Delete", deleteAll},
		{"Subjects", subjects},
		{"Concurrent", concurrent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.fn(t, open(t))
		})
	}
}

// Record returns a complete record of server at issuer, updated at, for tests.
func Record(server, issuer string, at time.Time) *signin.Record {
	tok := &oauth2.Token{AccessToken: "at-" + issuer, TokenType: "Bearer", RefreshToken: "rt-" + issuer,
		Expiry: at.Add(time.Hour)}
	return &signin.Record{
		Server: server, Issuer: issuer, Resource: server,
		Client: signin.Client{ID: "client-" + issuer, Secret: "secret-" + issuer, AuthMethod: "client_secret_basic",
			RedirectURI: "http://127.0.0.1:33418/callback", Dynamic: true, SecretExpiresAt: at.Add(24 * time.Hour)},
		TokenURL: issuer + "/token", RevocationURL: issuer + "/revoke",
		Token: tok, Scopes: []string{"read", "write"}, Updated: at,
	}
}

// base is a time that every store keeps exactly (whole microseconds, UTC).
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func load(t *testing.T, st signin.Store, server string) []*signin.Record {
	t.Helper()
	return loadFor(t, st, server, "")
}

// loadFor loads the records of server for subject.
func loadFor(t *testing.T, st signin.Store, server, subject string) []*signin.Record {
	t.Helper()
	recs, err := st.Load(t.Context(), server, subject)
	if err != nil {
		t.Fatalf("Load(%q, %q): %v", server, subject, err)
	}
	return recs
}

func save(t *testing.T, st signin.Store, rec *signin.Record) {
	t.Helper()
	if err := st.Save(t.Context(), rec); err != nil {
		t.Fatalf("Save(%s, %s): %v", rec.Server, rec.Issuer, err)
	}
}

// same compares two records field by field, times by the instant they name.
func same(t *testing.T, got, want *signin.Record) {
	t.Helper()
	g, w := *got, *want
	if !g.Updated.Equal(w.Updated) {
		t.Errorf("Updated = %v, want %v", g.Updated, w.Updated)
	}
	if !g.Client.SecretExpiresAt.Equal(w.Client.SecretExpiresAt) {
		t.Errorf("Client.SecretExpiresAt = %v, want %v", g.Client.SecretExpiresAt, w.Client.SecretExpiresAt)
	}
	g.Updated, w.Updated = time.Time{}, time.Time{}
	g.Client.SecretExpiresAt, w.Client.SecretExpiresAt = time.Time{}, time.Time{}
	if (g.Token == nil) != (w.Token == nil) {
		t.Fatalf("Token = %v, want %v", g.Token, w.Token)
	}
	if g.Token != nil {
		gt, wt := *g.Token, *w.Token
		if !gt.Expiry.Equal(wt.Expiry) {
			t.Errorf("Token.Expiry = %v, want %v", gt.Expiry, wt.Expiry)
		}
		if gt.AccessToken != wt.AccessToken || gt.RefreshToken != wt.RefreshToken || gt.TokenType != wt.TokenType {
			t.Errorf("Token = %+v, want %+v", gt, wt)
		}
		g.Token, w.Token = nil, nil
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("record =\n  %+v\nwant\n  %+v", g, w)
	}
}

func empty(t *testing.T, st signin.Store) {
	if recs := load(t, st, "https://never.example/mcp"); len(recs) != 0 {
		t.Errorf("a new store holds %d record(s) for a server never saved", len(recs))
	}
}

func roundTrip(t *testing.T, st signin.Store) {
	want := Record("https://mcp.example/mcp", "https://auth.example", base)
	save(t, st, want)
	recs := load(t, st, want.Server)
	if len(recs) != 1 {
		t.Fatalf("Load: %d records, want 1", len(recs))
	}
	same(t, recs[0], want)

	// A registration without tokens (a sign-in not yet made, or logged out of).
	reg := Record("https://reg.example/mcp", "https://auth.example", base)
	reg.Token, reg.Scopes, reg.Client.SecretExpiresAt = nil, nil, time.Time{}
	save(t, st, reg)
	recs = load(t, st, reg.Server)
	if len(recs) != 1 {
		t.Fatalf("Load: %d records, want 1", len(recs))
	}
	same(t, recs[0], reg)
}

func replace(t *testing.T, st signin.Store) {
	const server, issuer = "https://mcp.example/mcp", "https://auth.example"
	save(t, st, Record(server, issuer, base))
	newer := Record(server, issuer, base.Add(time.Minute))
	newer.Token.AccessToken, newer.Token.RefreshToken = "at-refreshed", "rt-rotated"
	save(t, st, newer)
	recs := load(t, st, server)
	if len(recs) != 1 {
		t.Fatalf("two saves for one (server, issuer): %d records, want 1", len(recs))
	}
	same(t, recs[0], newer)
}

func issuers(t *testing.T, st signin.Store) {
	const server = "https://mcp.example/mcp"
	older := Record(server, "https://old-auth.example", base)
	newer := Record(server, "https://new-auth.example", base.Add(time.Hour))
	save(t, st, newer)
	save(t, st, older)
	recs := load(t, st, server)
	if len(recs) != 2 {
		t.Fatalf("Load: %d records, want one per issuer (2)", len(recs))
	}
	same(t, recs[0], newer) // the most recently updated first
	same(t, recs[1], older)
}

func serversApart(t *testing.T, st signin.Store) {
	a := Record("https://a.example/mcp", "https://auth.example", base)
	b := Record("https://a.example/mcp/", "https://auth.example", base) // another URL
	save(t, st, a)
	save(t, st, b)
	for _, want := range []*signin.Record{a, b} {
		recs := load(t, st, want.Server)
		if len(recs) != 1 {
			t.Fatalf("Load(%s): %d records, want 1", want.Server, len(recs))
		}
		same(t, recs[0], want)
	}
}

func deleteAll(t *testing.T, st signin.Store) {
	const server = "https://mcp.example/mcp"
	keep := Record("https://other.example/mcp", "https://auth.example", base)
	save(t, st, Record(server, "https://auth1.example", base))
	save(t, st, Record(server, "https://auth2.example", base))
	save(t, st, keep)
	if err := st.Delete(t.Context(), server, ""); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if recs := load(t, st, server); len(recs) != 0 {
		t.Errorf("after Delete: %d record(s) left", len(recs))
	}
	if recs := load(t, st, keep.Server); len(recs) != 1 {
		t.Errorf("Delete of one server took another's records: %d left, want 1", len(recs))
	}
	if err := st.Delete(t.Context(), server, ""); err != nil {
		t.Errorf("Delete of nothing: %v", err)
	}
}

func concurrent(t *testing.T, st signin.Store) {
	const server, n = "https://mcp.example/mcp", 8
	var wg sync.WaitGroup
	errs := make(chan error, n*2)
	for i := range n {
		wg.Go(func() {
			issuer := fmt.Sprintf("https://auth%d.example", i)
			for j := range 2 { // two writers of one record at once, as two processes may
				rec := Record(server, issuer, base.Add(time.Duration(j)*time.Second))
				if err := st.Save(t.Context(), rec); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Save: %v", err)
	}
	if recs := load(t, st, server); len(recs) != n {
		t.Errorf("Load after concurrent saves: %d records, want %d", len(recs), n)
	}
}

// subjects: a person's own sign-in (Record.Subject) is kept apart from the
// service's own and from everyone else's: each loads only its own, a save of one
// replaces nothing of another's, and a Delete forgets one subject's records only.
func subjects(t *testing.T, st signin.Store) {
	const server, issuer = "https://mcp.example/mcp", "https://auth.example"
	shared := Record(server, issuer, base)
	alice := Record(server, issuer, base.Add(time.Minute))
	alice.Subject, alice.Token.AccessToken, alice.Token.RefreshToken = "alice@example.com", "at-alice", "rt-alice"
	bob := Record(server, issuer, base.Add(2*time.Minute))
	bob.Subject, bob.Token.AccessToken, bob.Token.RefreshToken = "bob", "at-bob", "rt-bob"
	for _, rec := range []*signin.Record{shared, alice, bob} {
		save(t, st, rec)
	}
	for _, want := range []*signin.Record{shared, alice, bob} {
		recs := loadFor(t, st, server, want.Subject)
		if len(recs) != 1 {
			t.Fatalf("Load(%s, %q): %d records, want 1 (one per subject)", server, want.Subject, len(recs))
		}
		same(t, recs[0], want)
	}
	if recs := loadFor(t, st, server, "carol"); len(recs) != 0 {
		t.Errorf("a person who never signed in loads %d record(s)", len(recs))
	}
	if recs := loadFor(t, st, "https://other.example/mcp", "alice@example.com"); len(recs) != 0 {
		t.Errorf("a person's record of one server loads for another: %d record(s)", len(recs))
	}
	if err := st.Delete(t.Context(), server, "alice@example.com"); err != nil {
		t.Fatalf("Delete(alice): %v", err)
	}
	if recs := loadFor(t, st, server, "alice@example.com"); len(recs) != 0 {
		t.Errorf("after Delete of alice's: %d record(s) of hers left", len(recs))
	}
	if len(loadFor(t, st, server, "")) != 1 || len(loadFor(t, st, server, "bob")) != 1 {
		t.Errorf("Delete of alice's sign-in took the service's or bob's")
	}
	if err := st.Delete(t.Context(), server, ""); err != nil {
		t.Fatalf("Delete(service's own): %v", err)
	}
	if recs := loadFor(t, st, server, "bob"); len(recs) != 1 {
		t.Errorf("Delete of the service's own sign-in took bob's: %d left, want 1", len(recs))
	}
}
