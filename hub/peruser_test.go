//go:build unix

package hub_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/signin"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// perUserHub starts a hub whose server "notes" (the fake authorization server's
// protected MCP server) is "perUser", its sign-ins in a store of the test's;
// nobody signed the service itself in.
func perUserHub(t *testing.T, po hub.PerUserOptions) (*hub.Hub, *signin.Handlers, config.Server, *fakeauth.Server) {
	t.Helper()
	srv := fakeauth.Start(t, &fakeauth.Options{People: true})
	hs := signin.NewHandlers(signin.NewMemory(), nil)
	t.Cleanup(hs.Close)
	notes := config.Server{Name: "notes", Transport: config.HTTP, URL: srv.MCPURL, OAuth: &config.OAuth{PerUser: true}}
	up := fast()
	up.OAuth, up.RetryFailed = hs.For, time.Hour
	po.OAuth = func(s config.Server, subject string) auth.OAuthHandler {
		if h := hs.Person(s, subject); h != nil {
			return h
		}
		return nil
	}
	h, _ := startHub(t, cfgOf(notes), &hub.Options{Upstream: up, PerUser: &po})
	return h, hs, notes, srv
}

// as is a context of a call made by the person subject.
func as(t *testing.T, subject string) context.Context {
	ctx, cancel := context.WithTimeout(identity.NewContext(context.Background(), identity.Person{Subject: subject}), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// signInAs makes subject's own sign-in to s, in their browser.
func signInAs(t *testing.T, hs *signin.Handlers, s config.Server, subject string) {
	t.Helper()
	p := fakeauth.NewPerson(s.Name)
	p.Who = subject
	if err := hs.Person(s, subject).SignIn(t.Context(), p); err != nil {
		t.Fatalf("%s's sign-in: %v", subject, err)
	}
}

func callAs(t *testing.T, h *hub.Hub, subject, name string) *tool.Result {
	t.Helper()
	ctx := context.Background()
	if subject != "" {
		ctx = as(t, subject)
	}
	res, err := h.Call(ctx, name, []byte(`{}`))
	if err != nil {
		t.Fatalf("call %s as %q: Go error %v", name, subject, err)
	}
	return res
}

func notesStatus(t *testing.T, h *hub.Hub) upstream.Status {
	t.Helper()
	st, ok := status(h, "notes")
	if !ok {
		t.Fatal("no status of notes")
	}
	return st
}

// TestPerUser: on a "perUser" server each person signs in for themselves and their
// calls carry their own token: alice's call runs as alice, bob's gets at once an
// error result that says how to sign in, then, signed in, runs as bob; a call
// without a person uses the service's own sign-in (none here). The catalog learns
// the tools from alice's connection; the status says perUser and how many people
// are connected; the store holds a sign-in per person and none of the service's.
func TestPerUser(t *testing.T) {
	t.Parallel()
	h, hs, notes, srv := perUserHub(t, hub.PerUserOptions{})
	if st := notesStatus(t, h); st.State != upstream.NeedsSignIn || !st.PerUser || st.People != 0 {
		t.Fatalf("notes before any sign-in: %s, perUser %v, %d people; want needs_sign_in, true, 0", st.State, st.PerUser, st.People)
	}
	if _, ok := h.Lookup("person"); ok {
		t.Fatal("the catalog lists a tool of a server nobody signed in to")
	}

	signInAs(t, hs, notes, "alice")
	st, err := h.ConnectPerson(as(t, "alice"), "notes")
	if err != nil || st.State != upstream.Ready {
		t.Fatalf("ConnectPerson(alice): %s, %v; want ready", st.State, err)
	}
	testenv.WaitFor(t, "the tools of alice's connection in the catalog", 10*time.Second, func() bool {
		_, ok := h.Lookup("person")
		return ok
	})
	if res := callAs(t, h, "alice", "person"); res.IsError || tool.Text(res) != "person: alice" {
		t.Fatalf("alice's call: %q (error %v), want person: alice", tool.Text(res), res.IsError)
	}

	res := callAs(t, h, "bob", "person")
	want := "server notes needs your sign-in: use the dashboard's Sign in button or POST /v1/servers/notes/login"
	if !res.IsError || !strings.Contains(tool.Text(res), want) {
		t.Fatalf("bob's call before his sign-in: %q (error %v), want an error saying %q", tool.Text(res), res.IsError, want)
	}
	if res := callAs(t, h, "", "person"); !res.IsError || !strings.Contains(tool.Text(res), "server notes needs a sign-in") {
		t.Fatalf("a call without a person: %q (error %v), want the service's own needs-a-sign-in", tool.Text(res), res.IsError)
	}

	signInAs(t, hs, notes, "bob")
	if res := callAs(t, h, "bob", "person"); res.IsError || tool.Text(res) != "person: bob" {
		t.Fatalf("bob's call after his sign-in: %q (error %v), want person: bob", tool.Text(res), res.IsError)
	}
	if res := callAs(t, h, "alice", "person"); tool.Text(res) != "person: alice" {
		t.Fatalf("alice's call after bob's sign-in: %q", tool.Text(res))
	}
	if st := notesStatus(t, h); !st.PerUser || st.People != 2 {
		t.Errorf("notes: perUser %v, %d people; want true, 2", st.PerUser, st.People)
	}
	for _, who := range []string{"alice", "bob"} {
		if ok, per := h.PersonSignedIn(as(t, who), "notes"); !ok || !per {
			t.Errorf("PersonSignedIn(%s) = %v, %v; want true, true", who, ok, per)
		}
	}
	if ok, per := h.PersonSignedIn(as(t, "carol"), "notes"); ok || !per {
		t.Errorf("PersonSignedIn(carol) = %v, %v; want false, true", ok, per)
	}
	for _, who := range []string{"alice", "bob"} {
		recs, err := hs.Store().Load(t.Context(), notes.URL, who)
		if err != nil || len(recs) != 1 || srv.PersonOf(recs[0].Token.AccessToken) != who {
			t.Errorf("the store's sign-in of %s: %d records, %v; want one with a token of theirs", who, len(recs), err)
		}
	}
	if recs, _ := hs.Store().Load(t.Context(), notes.URL, ""); len(recs) != 0 {
		t.Errorf("the persons' sign-ins went to the service's own: %d records", len(recs))
	}
}

// TestPerUserIdle: a person's connection unused for Idle closes; the tools stay in
// the catalog, and the person's next call connects again.
func TestPerUserIdle(t *testing.T) {
	t.Parallel()
	h, hs, notes, _ := perUserHub(t, hub.PerUserOptions{Idle: 50 * time.Millisecond})
	signInAs(t, hs, notes, "alice")
	if _, err := h.ConnectPerson(as(t, "alice"), "notes"); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "alice's idle connection closed", 10*time.Second, func() bool { return notesStatus(t, h).People == 0 })
	if _, ok := h.Lookup("person"); !ok {
		t.Fatal("the tools left the catalog with alice's connection")
	}
	if res := callAs(t, h, "alice", "person"); tool.Text(res) != "person: alice" {
		t.Fatalf("alice's call after her connection idled out: %q", tool.Text(res))
	}
}

// TestPerUserBound: past PerUserOptions.Max connections, the least recently used
// idle one closes to make room.
func TestPerUserBound(t *testing.T) {
	t.Parallel()
	h, hs, notes, _ := perUserHub(t, hub.PerUserOptions{Max: 1})
	for _, who := range []string{"alice", "bob"} {
		signInAs(t, hs, notes, who)
	}
	if _, err := h.ConnectPerson(as(t, "alice"), "notes"); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "the tools in the catalog", 10*time.Second, func() bool {
		_, ok := h.Lookup("person")
		return ok
	})
	for _, who := range []string{"bob", "alice", "bob"} {
		if res := callAs(t, h, who, "person"); tool.Text(res) != "person: "+who {
			t.Fatalf("%s's call: %q", who, tool.Text(res))
		}
		if n := notesStatus(t, h).People; n != 1 {
			t.Fatalf("after %s's call: %d people connected, want 1 (the bound)", who, n)
		}
	}
}

// TestPerUserBoundBusy: past PerUserOptions.Max connections with every one busy, a
// new person's call gets an error result that says so, and the busy call goes on;
// once it ended, the next person's call gets through.
func TestPerUserBoundBusy(t *testing.T) {
	t.Parallel()
	h, hs, notes, srv := perUserHub(t, hub.PerUserOptions{Max: 1})
	t.Cleanup(srv.ReleaseHolds) // before the hub closes: a session's end waits for its calls
	for _, who := range []string{"alice", "bob"} {
		signInAs(t, hs, notes, who)
	}
	if _, err := h.ConnectPerson(as(t, "alice"), "notes"); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "the tools in the catalog", 10*time.Second, func() bool {
		_, ok := h.Lookup("hold")
		return ok
	})
	held, ctx := make(chan *tool.Result, 1), as(t, "alice")
	go func() {
		res, _ := h.Call(ctx, "hold", []byte(`{}`))
		held <- res
	}()
	testenv.WaitFor(t, "alice's call under way", 10*time.Second, func() bool { return srv.Count(fakeauth.Hold) == 1 })
	res := callAs(t, h, "bob", "person")
	if !res.IsError || !strings.Contains(tool.Text(res), "too many people") {
		t.Errorf("bob's call past the bound, alice's busy: %q (error %v), want an error saying too many people", tool.Text(res), res.IsError)
	}
	srv.ReleaseHolds()
	if res := <-held; res == nil || tool.Text(res) != "released" {
		t.Errorf("alice's busy call: %v, want its answer", res)
	}
	if res := callAs(t, h, "bob", "person"); tool.Text(res) != "person: bob" {
		t.Errorf("bob's call once alice's ended: %q", tool.Text(res))
	}
}

// TestPerUserAfterRestart: after a restart, with the service itself not signed in,
// nobody's connection has listed a "perUser" server's tools; a signed-in person's
// WaitTool (what the API's call does first) opens their connection, and the tool is
// found and runs as them; a person not signed in still learns nothing.
func TestPerUserAfterRestart(t *testing.T) {
	t.Parallel()
	h1, hs1, notes, _ := perUserHub(t, hub.PerUserOptions{})
	signInAs(t, hs1, notes, "alice")
	h1.Close()

	hs := signin.NewHandlers(hs1.Store(), nil) // the next run's, over the same store
	t.Cleanup(hs.Close)
	up := fast()
	up.OAuth, up.RetryFailed = hs.For, time.Hour
	h, _ := startHub(t, cfgOf(notes), &hub.Options{Upstream: up, PerUser: &hub.PerUserOptions{OAuth: hs.ForPerson}})
	if _, ok := h.Lookup("person"); ok {
		t.Fatal("the catalog lists the tools before anyone's connection did")
	}
	if _, err := h.WaitTool(as(t, "bob"), "person"); err == nil {
		t.Fatal("bob, not signed in, found the tool")
	}
	if _, err := h.WaitTool(as(t, "alice"), "person"); err != nil {
		t.Fatalf("alice's WaitTool: %v", err)
	}
	if res := callAs(t, h, "alice", "person"); tool.Text(res) != "person: alice" {
		t.Fatalf("alice's call: %q", tool.Text(res))
	}
}
