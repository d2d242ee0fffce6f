package postgres

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/sessiontest"
)

// childEnv makes the test binary a helper process that takes a session's turn and
// holds it until killed: its value is the DSN, a newline, and the session id.
const childEnv = "SWITCHBOARD_POSTGRES_TEST_HOLD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		os.Exit(hold(v))
	}
	code := testenv.Main(m)
	testenv.StopPostgres()
	os.Exit(code)
}

func hold(v string) int {
	dsn, id, _ := strings.Cut(v, "\n")
	ctx := context.Background()
	st, err := Open(ctx, dsn)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	if _, err := st.Acquire(ctx, id); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	os.Stdout.WriteString("ready\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until killed
	return 0
}

func open(t testing.TB, dsn string) *Store {
	t.Helper()
	st, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestContract(t *testing.T) {
	t.Parallel()
	sessiontest.Run(t, func(t *testing.T) session.Store {
		return open(t, testenv.Postgres(t))
	})
	// Two pools on one database stand for two hosts.
	sessiontest.RunShared(t, func(t *testing.T) (session.Store, session.Store) {
		dsn := testenv.Postgres(t)
		return open(t, dsn), open(t, dsn)
	})
	sessiontest.RunSpoiled(t, func(t *testing.T) session.Store {
		return open(t, testenv.Postgres(t))
	}, func(t *testing.T, st session.Store, id, part string) {
		q := map[string]string{
			sessiontest.PartMetadata: `UPDATE switchboard_sessions SET metadata = '[1]' WHERE id = $1`,
			sessiontest.PartLoaded:   `UPDATE switchboard_sessions SET loaded = '{"a":1}' WHERE id = $1`,
			sessiontest.PartMessage:  `UPDATE switchboard_messages SET body = '"x"' WHERE session_id = $1 AND seq = 1`,
		}[part]
		if _, err := st.(*Store).pool.Exec(t.Context(), q, id); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDeadHostFreesTurn: a process holding a turn is SIGKILLed; its connection
// closes and the server frees the turn.
func TestDeadHostFreesTurn(t *testing.T) {
	t.Parallel()
	dsn := testenv.Postgres(t)
	sessiontest.DeadHolderFreesTurn(t, open(t, dsn), func(t *testing.T, id string) *exec.Cmd {
		return testenv.StartChild(t, "ready\n", childEnv+"="+dsn+"\n"+id)
	}, 20*time.Second)
}

func TestSchemaVersion(t *testing.T) {
	t.Parallel()
	dsn := testenv.Postgres(t)
	st := open(t, dsn)
	if _, err := st.pool.Exec(t.Context(), `UPDATE switchboard_schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), dsn)
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") {
		t.Fatalf("Open of a newer schema: %v, want it refused", err)
	}
	if _, err := st.pool.Exec(t.Context(), `UPDATE switchboard_schema_version SET version = $1`, len(migrations)); err != nil {
		t.Fatal(err)
	}
	open(t, dsn) // the current version opens again
}

// TestDSNPasswordNotInErrors: an error about the DSN says what is wrong, never the
// password (pgx masks it; this keeps it so).
func TestDSNPasswordNotInErrors(t *testing.T) {
	t.Parallel()
	for _, dsn := range []string{"postgres://u:s3cret@host:notaport/db", "host=h password=s3cret port=x"} {
		_, err := Open(t.Context(), dsn)
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "invalid port") {
			t.Errorf("Open(bad DSN): %v; want the problem named, without the password", err)
		}
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	sessiontest.RunUsage(t, func(t *testing.T) session.UsageStore {
		return open(t, testenv.Postgres(t))
	})
}
