package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/session/sessiontest"
)

// TestUpgradeOwners: a file an older Switchboard made (schema version 1, before
// sessions had owners) is upgraded in place when opened: its sessions keep their
// history and have no owner (sessiontest.CheckUpgraded).
func TestUpgradeOwners(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		migrations[0],
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		`INSERT INTO schema_version VALUES (1)`,
		`INSERT INTO sessions (id, system, created, last_active, input_tokens, output_tokens, messages)
			VALUES ('old-1', '', 1, 1, 0, 0, 1), ('old-2', 'sys', 2, 2, 0, 0, 1)`,
		`INSERT INTO messages (session_id, seq, body) VALUES
			('old-1', 0, '{"role":"user","text":"before owners"}'), ('old-2', 0, '{"role":"user","text":"before owners"}')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st := open(t, path)
	sessiontest.CheckUpgraded(t, st, "old-1", "old-2")
	var v int
	if err := st.reader.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Errorf("schema_version after the upgrade = %d, %v; want %d", v, err, len(migrations))
	}
}
