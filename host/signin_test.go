package host_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/signin"
	pgsignin "github.com/switchboard-mcp/switchboard/signin/postgres"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// TestSignIn: a Host signs in to a server that asks, through the Redirect given,
// keeping the sign-in under its DataDir (0700): a later Host over the same DataDir
// finds the server ready at its start, asking nothing of the authorization server.
func TestSignIn(t *testing.T) {
	srv := fakeauth.Start(t, nil)
	dataDir := t.TempDir()
	cfg := &config.Config{Servers: []config.Server{{Name: "notes", Transport: config.HTTP, URL: srv.MCPURL}}}
	h := host.New(cfg, &host.Options{DataDir: dataDir})
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := h.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if st := h.Hub().Status()[0]; st.State != upstream.NeedsSignIn {
		t.Fatalf("state %s, want needs_sign_in", st.State)
	}
	st, err := h.SignIn(ctx, "notes", fakeauth.NewPerson("notes"))
	if err != nil || st.State != upstream.Ready {
		t.Fatalf("SignIn: %s, %v; want ready", st.State, err)
	}
	h.Close()
	if fi, err := os.Stat(filepath.Join(dataDir, signin.DirName)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the sign-in directory: %v, %v; want it 0700 under the data directory", fi, err)
	}

	later := host.New(cfg, &host.Options{DataDir: dataDir})
	t.Cleanup(func() { later.Close() })
	if err := later.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if st := later.Hub().Status()[0]; st.State != upstream.Ready {
		t.Errorf("a later host: state %s (%s), want ready", st.State, st.LastError)
	}
	if got := srv.Count(fakeauth.Authorize) + srv.Count(fakeauth.Register); got != 2 {
		t.Errorf("%d registrations and authorizations in all, want 2 (one each)", got)
	}
	if _, err := later.SignIn(ctx, "nope", fakeauth.NewPerson("nope")); err == nil {
		t.Errorf("SignIn of an unknown server: no error")
	}
}

// TestSignInsInPostgres: with the sessions in PostgreSQL, the sign-ins are kept in the
// database, sealed with $SWITCHBOARD_SECRET_KEY: a sign-in made by one replica serves
// another at its start. Without the key, Start refuses with a *SettingsError that
// says what to set.
func TestSignInsInPostgres(t *testing.T) {
	srv := fakeauth.Start(t, nil)
	cfg := &config.Config{Servers: []config.Server{{Name: "notes", Transport: config.HTTP, URL: srv.MCPURL}}}
	cfg.Settings.Sessions = config.SessionSettings{Store: "postgres", DSN: "postgres://nobody@127.0.0.1:1/none"}
	t.Setenv(pgsignin.KeyEnv, "")
	h := host.New(cfg, &host.Options{DataDir: t.TempDir()})
	t.Cleanup(func() { h.Close() })
	var se *host.SettingsError
	if err := h.Start(t.Context(), nil); !errors.As(err, &se) || !strings.Contains(err.Error(), "SWITCHBOARD_SECRET_KEY") {
		t.Fatalf("Start without a key: %v, want a *SettingsError naming SWITCHBOARD_SECRET_KEY", err)
	}
	h.Close()

	dsn := testenv.Postgres(t)
	if dsn == "" {
		return
	}
	cfg.Settings.Sessions.DSN = dsn
	t.Setenv(pgsignin.KeyEnv, "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWY=") // 32 bytes
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	a := host.New(cfg, &host.Options{DataDir: t.TempDir()})
	t.Cleanup(func() { a.Close() })
	if err := a.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if st, err := a.SignIn(ctx, "notes", fakeauth.NewPerson("notes")); err != nil || st.State != upstream.Ready {
		t.Fatalf("SignIn: %s, %v", st.State, err)
	}
	b := host.New(cfg, &host.Options{DataDir: t.TempDir()}) // another replica: nothing on disk
	t.Cleanup(func() { b.Close() })
	if err := b.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if st := b.Hub().Status()[0]; st.State != upstream.Ready {
		t.Errorf("the other replica: %s (%s), want ready", st.State, st.LastError)
	}
}
