package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/sessiontest"
)

// childEnv makes the test binary a helper process (see TestMain): its value is the
// mode, then the database path, then a session id.
const childEnv = "SWITCHBOARD_SQLITE_TEST_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		os.Exit(child(strings.Split(v, "\n")))
	}
	os.Exit(testenv.Main(m))
}

// child runs a helper process's mode: "hold" takes a session's turn and keeps it
// until killed; "append" appends History to a session and waits to be killed; "exit"
// exits at once; "rss" opens the store as a Switchboard process would at start-up
// (open, list, the janitor's stale scan), then waits for stdin to close.
func child(args []string) int {
	if args[0] == "exit" {
		return 3
	}
	ctx := context.Background()
	st, err := Open(args[1])
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	switch args[0] {
	case "hold":
		if _, err := st.Acquire(ctx, args[2]); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
	case "append":
		if err := st.Append(ctx, args[2], llm.Usage{InputTokens: 7}, sessiontest.History()...); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
	case "rss":
		if _, err := st.List(ctx); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
		if _, err := st.Stale(ctx, time.Now().Add(-time.Hour)); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
		runtime.GC()
	}
	os.Stdout.WriteString("ready\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
	_ = st.Close()
	return 0
}

// startChild runs the test binary as a helper in mode, and returns once it is ready.
func startChild(t testing.TB, mode, path, id string) *exec.Cmd {
	t.Helper()
	return testenv.StartChild(t, "ready\n", childEnv+"="+mode+"\n"+path+"\n"+id)
}

func open(t testing.TB, path string) *Store {
	t.Helper()
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestContract(t *testing.T) {
	t.Parallel()
	sessiontest.Run(t, func(t *testing.T) session.Store {
		return open(t, filepath.Join(t.TempDir(), "sub", "sessions.db"))
	})
	sessiontest.RunShared(t, func(t *testing.T) (session.Store, session.Store) {
		path := filepath.Join(t.TempDir(), "sessions.db")
		return open(t, path), open(t, path)
	})
	sessiontest.RunSpoiled(t, func(t *testing.T) session.Store {
		return open(t, filepath.Join(t.TempDir(), "sessions.db"))
	}, func(t *testing.T, st session.Store, id, part string) {
		q := map[string]string{
			sessiontest.PartMetadata: `UPDATE sessions SET metadata = '[1]' WHERE id = ?`,
			sessiontest.PartLoaded:   `UPDATE sessions SET loaded = '{"a":1}' WHERE id = ?`,
			sessiontest.PartMessage:  `UPDATE messages SET body = '"x"' WHERE session_id = ? AND seq = 1`,
		}[part]
		if _, err := st.(*Store).writer.Exec(q, id); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDeadHolderFreesTurn: a process holding a turn is SIGKILLed (no release, no
// Close); its turn is free again.
func TestDeadHolderFreesTurn(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	sessiontest.DeadHolderFreesTurn(t, open(t, path), func(t *testing.T, id string) *exec.Cmd {
		return startChild(t, "hold", path, id)
	}, 10*time.Second)
}

// TestAppendSurvivesCrash: what Append was given is in the file when it returns,
// though the process is SIGKILLed right after (no Close, no checkpoint).
func TestAppendSurvivesCrash(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st := open(t, path)
	s := &session.Session{}
	if err := st.Create(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	writer := startChild(t, "append", path, s.ID)
	if err := writer.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = writer.Wait()
	got, err := open(t, path).Get(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != len(sessiontest.History()) || got.Usage.InputTokens != 7 {
		t.Errorf("after the writer was killed: %d messages, usage %+v; want %d and 7 input tokens",
			len(got.Messages), got.Usage, len(sessiontest.History()))
	}
}

// TestLeaseLiveness: which lease rows of other holders still hold a turn.
func TestLeaseLiveness(t *testing.T) {
	t.Parallel()
	st := open(t, filepath.Join(t.TempDir(), "sessions.db"))
	gone := exec.Command(os.Args[0], "-test.run=^$") // a pid that was, and is no more
	gone.Env = append(os.Environ(), childEnv+"=exit")
	if err := gone.Run(); err == nil {
		t.Fatal("the exiting helper succeeded")
	}
	future, past := time.Now().Add(time.Hour).UnixNano(), time.Now().Add(-time.Second).UnixNano()
	for _, tc := range []struct {
		name    string
		pid     int
		host    string
		expires int64
		busy    bool
	}{
		{"live process, fresh lease", os.Getpid(), st.leases.host, future, true},
		{"dead process", gone.Process.Pid, st.leases.host, future, false},
		{"expired lease of a live process", os.Getpid(), st.leases.host, past, false},
		{"other host, fresh lease", gone.Process.Pid, "elsewhere", future, true},
		{"other host, expired lease", os.Getpid(), "elsewhere", past, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &session.Session{}
			if err := st.Create(t.Context(), s); err != nil {
				t.Fatal(err)
			}
			if _, err := st.writer.Exec(`INSERT INTO turns VALUES (?, 'another store', 1, ?, ?, ?)`, s.ID, tc.pid, tc.host, tc.expires); err != nil {
				t.Fatal(err)
			}
			release, err := st.Acquire(t.Context(), s.ID)
			if tc.busy {
				if !errors.Is(err, session.ErrBusy) {
					t.Fatalf("Acquire: %v, want ErrBusy", err)
				}
				if err := st.Delete(t.Context(), s.ID); !errors.Is(err, session.ErrBusy) {
					t.Fatalf("Delete: %v, want ErrBusy", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Acquire: %v, want the turn", err)
			}
			release()
		})
	}
}

// TestHeartbeat: a refresh moves this store's leases forward and removes rows no turn
// holds.
func TestHeartbeat(t *testing.T) {
	t.Parallel()
	st := open(t, filepath.Join(t.TempDir(), "sessions.db"))
	ctx := t.Context()
	a, b := &session.Session{}, &session.Session{}
	for _, s := range []*session.Session{a, b} {
		if err := st.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	release, err := st.Acquire(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	// A row of this store that no turn holds (as a failed release leaves).
	if _, err := st.writer.Exec(`INSERT INTO turns VALUES (?, ?, 999, ?, ?, ?)`, b.ID, st.leases.owner, os.Getpid(), st.leases.host, time.Now().Add(time.Hour).UnixNano()); err != nil {
		t.Fatal(err)
	}
	st.leases.mu.Lock()
	st.leases.orphans = true
	st.leases.mu.Unlock()
	if _, err := st.writer.Exec(`UPDATE turns SET expires = 0 WHERE session_id = ?`, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.leases.refresh(); err != nil {
		t.Fatal(err)
	}
	var expires int64
	if err := st.writer.QueryRow(`SELECT expires FROM turns WHERE session_id = ?`, a.ID).Scan(&expires); err != nil {
		t.Fatal(err)
	}
	if time.Unix(0, expires).Before(time.Now()) {
		t.Errorf("the held lease expires at %v after a refresh, want in the future", time.Unix(0, expires))
	}
	err = st.writer.QueryRow(`SELECT expires FROM turns WHERE session_id = ?`, b.ID).Scan(&expires)
	if !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("the unheld row is still there after a refresh (%v)", err)
	}
}

func TestSchemaVersion(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(t.Context(), &session.Session{ID: "kept"}); err != nil {
		t.Fatal(err)
	}
	var v int
	if err := st.reader.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Fatalf("schema_version = %d, %v; want %d", v, err, len(migrations))
	}
	if _, err := st.writer.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Open(path)
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open of a newer schema: %v, want it refused, naming the file", err)
	}
	// Reopening the current version keeps what is there.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE schema_version SET version = ?`, len(migrations)); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	if _, err := open(t, path).Get(t.Context(), "kept"); err != nil {
		t.Fatalf("after reopening: %v", err)
	}
}

func TestPragmas(t *testing.T) {
	t.Parallel()
	st := open(t, filepath.Join(t.TempDir(), "sessions.db"))
	for _, db := range []*sql.DB{st.writer, st.reader} {
		for pragma, want := range map[string]string{"journal_mode": "wal", "synchronous": "1", "busy_timeout": "10000"} {
			var got string
			if err := db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil || got != want {
				t.Errorf("PRAGMA %s = %q, %v; want %q", pragma, got, err, want)
			}
		}
	}
}

func TestDefaultPath(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the XDG layout is Linux's")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, tc := range []struct{ xdg, want string }{
		{"", filepath.Join(home, ".local", "state", "switchboard", "sessions.db")},
		{"relative/dir", filepath.Join(home, ".local", "state", "switchboard", "sessions.db")},
		{"/xdg/state", "/xdg/state/switchboard/sessions.db"},
	} {
		t.Setenv("XDG_STATE_HOME", tc.xdg)
		if got, err := DefaultPath(); err != nil || got != tc.want {
			t.Errorf("XDG_STATE_HOME=%q: DefaultPath() = %q, %v; want %q", tc.xdg, got, err, tc.want)
		}
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	sessiontest.RunUsage(t, func(t *testing.T) session.UsageStore {
		return open(t, filepath.Join(t.TempDir(), "sessions.db"))
	})
}
