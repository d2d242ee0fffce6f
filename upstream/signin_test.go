//go:build unix

package upstream_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/signin"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// signInHandlers are sign-in handlers over the store in dir, as one process has
// them, looking at the store often.
func signInHandlers(t *testing.T, dir string) *signin.Handlers {
	hs := signin.NewHandlers(signin.NewFiles(dir), &signin.Options{Poll: 20 * time.Millisecond})
	t.Cleanup(hs.Close)
	return hs
}

// TestNeedsSignIn: over Streamable HTTP and SSE, a server that asks for a sign-in
// nobody has made is needs_sign_in after one attempt (no backoff, no attempts
// counted), its calls answer at once with the command to run, and a sign-in made by
// another process over the same store brings it to ready by itself.
func TestNeedsSignIn(t *testing.T) {
	for _, tr := range []config.Transport{config.HTTP, config.SSE} {
		t.Run(string(tr), func(t *testing.T) {
			t.Parallel()
			srv := fakeauth.Start(t, &fakeauth.Options{Scopes: []string{"notes:read"}})
			dir := t.TempDir()
			cfg := config.Server{Name: "notes", Transport: tr, URL: srv.MCPURL, InitTimeout: time.Minute}
			if tr == config.SSE {
				cfg.URL = srv.SSEURL
			}
			// Backoff and the slow retry so long that only the sign-in can heal it
			// within the test.
			opts := &upstream.Options{OAuth: signInHandlers(t, dir).For, BackoffBase: time.Hour, RetryFailed: time.Hour}
			s := start(t, cfg, opts)
			st := s.Status()
			want := "server notes needs a sign-in: run 'switchboard login notes'"
			if st.State != upstream.NeedsSignIn || st.LastError != want {
				t.Fatalf("state %s, error %q; want needs_sign_in, %q", st.State, st.LastError, want)
			}
			if got := srv.Count(fakeauth.Refused); got != 1 {
				t.Errorf("%d refused requests, want 1: nothing is retried until a sign-in", got)
			}
			if _, err := call(t, s, "echo", map[string]string{"text": "x"}); err == nil || err.Error() != want {
				t.Errorf("call: %v, want %q", err, want)
			}

			// switchboard login in another terminal: other handlers, the same store.
			other := signInHandlers(t, dir).Handler(cfg)
			if err := other.SignIn(t.Context(), fakeauth.NewPerson("notes")); err != nil {
				t.Fatalf("SignIn: %v", err)
			}
			testenv.WaitFor(t, "the server to be ready", 10*time.Second, func() bool { return s.State() == upstream.Ready })
			if got := mustText(t, s, "echo", map[string]string{"text": "signed in"}); got != "signed in" {
				t.Errorf("echo = %q", got)
			}
			if p := srv.Problems(); len(p) > 0 {
				t.Errorf("the authorization server saw protocol mistakes: %q", p)
			}
		})
	}
}

// TestRetryAfterSignIn: Retry brings a server that needs a sign-in to connecting at
// once, and to ready once signed in in this process.
func TestRetryAfterSignIn(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, nil)
	hs := signInHandlers(t, t.TempDir())
	cfg := config.Server{Name: "notes", Transport: config.HTTP, URL: srv.MCPURL}
	s := start(t, cfg, &upstream.Options{OAuth: hs.For, RetryFailed: time.Hour})
	if st := s.State(); st != upstream.NeedsSignIn {
		t.Fatalf("state %s, want needs_sign_in", st)
	}
	if err := hs.Handler(cfg).SignIn(t.Context(), fakeauth.NewPerson("notes")); err != nil {
		t.Fatal(err)
	}
	s.Retry()
	testenv.WaitFor(t, "the server to be ready", 10*time.Second, func() bool { return s.State() == upstream.Ready })
	if s.Retry() {
		t.Errorf("Retry of a ready server: true, want false (nothing to do)")
	}
}

// TestStaticCredentialsAreNotSignedIn: a server whose "headers" carry an
// Authorization header is not signed in to: its 401 is refused credentials, at
// once, as before sign-ins.
func TestStaticCredentialsAreNotSignedIn(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, nil)
	hs := signInHandlers(t, t.TempDir())
	cfg := config.Server{Name: "notes", Transport: config.HTTP, URL: srv.MCPURL, Headers: map[string]string{"Authorization": "Bearer wrong"}}
	s := start(t, cfg, &upstream.Options{OAuth: hs.For, RetryFailed: time.Hour})
	st := s.Status()
	if st.State != upstream.Failed || !strings.Contains(st.LastError, `the server refuses the credentials in the server's "headers"`) {
		t.Errorf("state %s, error %q; want failed with the refused headers", st.State, st.LastError)
	}
}
