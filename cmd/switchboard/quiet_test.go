package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/sqlite"
)

// TestOneShotQuiet: a one-shot command prints its answer and its warnings, nothing
// else: on a healthy run its stderr is empty (chat's holds the session it made and
// the calls), where it held 5 to 8 INFO lines (the config read, each server
// connecting and ready, the start-up summary, each server closed). --log-level info
// brings them back.
func TestOneShotQuiet(t *testing.T) {
	t.Parallel()
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	cfg := chatConfig(t, s, "openai", fake.URL)
	for _, args := range [][]string{
		{"tools"},
		{"call", "current_time"},
		{"status"},
		{"search", "current", "time"},
		{"check"},
		{"sessions"},
	} {
		r := s.run(append([]string{"--config", cfg}, args...)...)
		r.wantCode(t, exitOK)
		if r.stderr != "" {
			t.Errorf("%v printed more than its answer on stderr\n%s", args, r)
		}
	}
	r := s.run("--config", cfg, "chat", "-m", "call current_time")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "current_time: ")
	lines := nonEmptyLines(r.stderr)
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "session ") || !strings.HasPrefix(lines[1], "→ current_time") || !strings.HasPrefix(lines[2], "← current_time") {
		t.Errorf("chat's stderr: want the session and the call only\n%s", r)
	}

	r = s.run("--config", cfg, "--log-level", "info", "tools")
	r.wantCode(t, exitOK)
	r.wantStderr(t, "level=INFO", `msg="config: `+cfg, "MCP initialized")
}

// TestSessionsNeedNoServers: sessions reads the store only. With no config found it
// says nothing of the demo servers (it said it was using them) and starts none.
func TestSessionsNeedNoServers(t *testing.T) {
	t.Parallel()
	r := newSandbox(t).run("--log-level", "debug", "sessions")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "SESSION")
	for _, unwanted := range []string{"demo", "connecting", "clock", "notes"} {
		if strings.Contains(r.stderr, unwanted) {
			t.Errorf("sessions' log mentions %q: it needs no server\n%s", unwanted, r)
		}
	}
}

// TestSessionsOwners: the sessions of serve's people, kept in the same store, show
// their owners in the list (a column only when some session has one) and in show.
func TestSessionsOwners(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	dir := t.TempDir()
	store, err := sqlite.Open(filepath.Join(dir, "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ss := range []*session.Session{{ID: "alices", Owner: "alice"}, {ID: "shared"}} {
		if err := store.Create(t.Context(), ss); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	r := s.run("sessions", "--data-dir", dir)
	r.wantCode(t, exitOK)
	if !regexp.MustCompile(`(?m)^SESSION\s+OWNER\s+MESSAGES`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^alices\s+alice\s+0\s`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^shared\s+-\s+0\s`).MatchString(r.stdout) {
		t.Errorf("sessions list does not show the owners:\n%s", r.stdout)
	}
	r = s.run("sessions", "--data-dir", dir, "show", "alices")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "owner: alice\n")
}
