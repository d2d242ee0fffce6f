package postgres

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/session/sessiontest"
)

// TestUpgradeOwners: a database an older Switchboard made (schema version 1, before
// sessions had owners) is upgraded in place when opened: its sessions keep their
// history and have no owner (sessiontest.CheckUpgraded).
func TestUpgradeOwners(t *testing.T) {
	t.Parallel()
	dsn := testenv.Postgres(t)
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		migrations[0],
		`CREATE TABLE switchboard_schema_version (version integer NOT NULL)`,
		`INSERT INTO switchboard_schema_version VALUES (1)`,
		`INSERT INTO switchboard_sessions (id, system, created, last_active, input_tokens, output_tokens, messages)
			VALUES ('old-1', '', now(), now(), 0, 0, 1), ('old-2', 'sys', now(), now(), 0, 0, 1)`,
		`INSERT INTO switchboard_messages (session_id, seq, body) VALUES
			('old-1', 0, '{"role":"user","text":"before owners"}'), ('old-2', 0, '{"role":"user","text":"before owners"}')`,
	} {
		if _, err := conn.Exec(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := conn.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := open(t, dsn)
	sessiontest.CheckUpgraded(t, st, "old-1", "old-2")
	var v int
	if err := st.pool.QueryRow(t.Context(), `SELECT version FROM switchboard_schema_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Errorf("schema version after the upgrade = %d, %v; want %d", v, err, len(migrations))
	}
}
