//go:build unix

package hub_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	want := "server notes needs your sign-in: use the Sign in button of the service's dashboard, in your browser"
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

// TestPerUserExtras: a person's prompts/get, resources/read and completion/complete
// on a "perUser" server go over their own connection, as their tool calls do: the
// server sees their token (alice's read says alice, not the service); a person not
// signed in is refused at once with how to sign in, and no connection is made; a
// request without a person goes over the service's own connection (signed in here
// as "service", which also lists the prompt and the resource for the catalog).
func TestPerUserExtras(t *testing.T) {
	t.Parallel()
	h, hs, notes, _ := perUserHub(t, hub.PerUserOptions{})
	service := fakeauth.NewPerson("notes")
	service.Who = "service"
	if err := hs.Handler(notes).SignIn(t.Context(), service); err != nil {
		t.Fatalf("the service's sign-in: %v", err)
	}
	if _, err := h.Retry("notes"); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if st, err := h.WaitServer(ctx, "notes"); err != nil || st.State != upstream.Ready {
		t.Fatalf("notes once the service signed in: %s, %v; want ready", st.State, err)
	}
	testenv.WaitFor(t, "the prompt and the resource of notes in the catalog", 10*time.Second, func() bool {
		_, ok := h.ResourceServer(fakeauth.PersonURI)
		return ok && len(h.Prompts()) > 0
	})
	signInAs(t, hs, notes, "alice")

	for _, tc := range []struct{ who, want string }{{"alice", "person: alice"}, {"", "person: service"}} {
		rctx := ctx
		if tc.who != "" {
			rctx = as(t, tc.who)
		}
		got, err := extrasOf(rctx, h)
		if err != nil {
			t.Fatalf("as %q: %v", tc.who, err)
		}
		for what, text := range got {
			if text != tc.want {
				t.Errorf("%s as %q: %q, want %q", what, tc.who, text, tc.want)
			}
		}
	}
	if n := notesStatus(t, h).People; n != 1 {
		t.Errorf("%d people connected, want 1 (alice)", n)
	}

	want := "server notes needs your sign-in: use the Sign in button of the service's dashboard, in your browser"
	bob := as(t, "bob")
	_, err := h.ReadResource(bob, &mcp.ReadResourceParams{URI: fakeauth.PersonURI})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("bob's read before his sign-in: %v, want an error saying %q", err, want)
	}
	_, err = h.GetPrompt(bob, &mcp.GetPromptParams{Name: "person"})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("bob's prompt before his sign-in: %v, want an error saying %q", err, want)
	}
	_, err = h.Complete(bob, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "person"}, Argument: mcp.CompleteParamsArgument{Name: "topic"}})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("bob's completion before his sign-in: %v, want an error saying %q", err, want)
	}
	if n := notesStatus(t, h).People; n != 1 {
		t.Errorf("after bob's refusals: %d people connected, want 1 (alice)", n)
	}
}

// extrasOf reads fakeauth's resource PersonURI, gets its prompt "person" and asks
// for a completion of it from ctx: the texts, by what gave them.
func extrasOf(ctx context.Context, h *hub.Hub) (map[string]string, error) {
	out := map[string]string{}
	rr, err := h.ReadResource(ctx, &mcp.ReadResourceParams{URI: fakeauth.PersonURI})
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if len(rr.Contents) != 1 {
		return nil, fmt.Errorf("read: %d contents, want 1", len(rr.Contents))
	}
	out["read"] = rr.Contents[0].Text
	pr, err := h.GetPrompt(ctx, &mcp.GetPromptParams{Name: "person"})
	if err != nil {
		return nil, fmt.Errorf("prompt: %w", err)
	}
	if len(pr.Messages) != 1 {
		return nil, fmt.Errorf("prompt: %d messages, want 1", len(pr.Messages))
	}
	out["prompt"] = tool.Text(&tool.Result{Content: []mcp.Content{pr.Messages[0].Content}})
	cr, err := h.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "person"}, Argument: mcp.CompleteParamsArgument{Name: "topic"}})
	if err != nil {
		return nil, fmt.Errorf("completion: %w", err)
	}
	if len(cr.Completion.Values) != 1 {
		return nil, fmt.Errorf("completion: %v, want one value", cr.Completion.Values)
	}
	out["completion"] = cr.Completion.Values[0]
	return out, nil
}
