//go:build unix

package hub_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/signin"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// TestSignInDoesNotDelayOthers: a server that needs a sign-in settles at once as
// needs_sign_in, with a warning that names the command to run; the others are
// served. Once signed in (Retry after a sign-in in this process) it joins the
// catalog, which tells its subscribers.
func TestSignInDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, nil)
	hs := signin.NewHandlers(signin.NewFiles(t.TempDir()), nil)
	t.Cleanup(hs.Close)
	notes := config.Server{Name: "notes", Transport: config.HTTP, URL: srv.MCPURL, InitTimeout: time.Hour}
	other := testserver.Stdio(t, "other")
	up := fast()
	up.OAuth, up.BackoffBase, up.RetryFailed = hs.For, time.Hour, time.Hour
	// With an hour of init timeout and of backoff, Start returns within the test
	// only if it waits for nothing from the server that needs a sign-in.
	h, logs := startHub(t, cfgOf(notes, other), &hub.Options{Upstream: up})
	if st := stateOf(h, "notes"); st != upstream.NeedsSignIn {
		t.Fatalf("notes: state %s, want needs_sign_in", st)
	}
	if st := stateOf(h, "other"); st != upstream.Ready {
		t.Fatalf("other: state %s, want ready", st)
	}
	for _, want := range []string{"(0 failed, 1 need a sign-in)",
		`level=WARN msg="server not ready" server=notes state=needs_sign_in reason="server notes needs a sign-in: run 'switchboard login notes'"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if _, ok := h.Lookup("whoami"); ok {
		t.Errorf("the catalog lists a tool of the server that needs a sign-in")
	}
	changed := h.Changed()
	if err := hs.Handler(notes).SignIn(t.Context(), fakeauth.NewPerson("notes")); err != nil {
		t.Fatal(err)
	}
	// The sign-in wakes the server by itself; Retry makes sure it is under way (it
	// may be already: then Retry has nothing to do).
	if _, err := h.Retry("notes"); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	st, err := h.WaitServer(ctx, "notes")
	if err != nil || st.State != upstream.Ready {
		t.Fatalf("WaitServer: %s, %v; want ready", st.State, err)
	}
	if _, ok := h.Lookup("whoami"); !ok {
		t.Errorf("whoami is not in the catalog once notes is ready")
	}
	select {
	case <-changed:
	default:
		t.Errorf("the catalog's subscribers were not told of the new tools")
	}
}
