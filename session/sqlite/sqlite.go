// Package sqlite is the embedded session.Store: one SQLite file (modernc.org/sqlite,
// no cgo), shared safely by every Switchboard process on the machine.
//
//	st, err := sqlite.Open(path) // path from DefaultPath, or --data-dir
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//
// The file is in WAL mode with synchronous=NORMAL: a commit is in the WAL when
// Append returns, so a process crash loses nothing (a power loss may lose the last
// commits), and readers never wait for the writer. Each message is a row of its own,
// so Append is an INSERT, never a rewrite of the history. Writes go through one
// connection; other processes wait for the file's write lock up to busy_timeout.
//
// A turn (Acquire) is a lease row naming its holder (store, pid, host) with an
// expiry that the holder's heartbeat pushes forward. A lease is free again when its
// holder releases it, its store closes, its process is gone (checked by pid, which
// is sound because WAL needs every process on one host), or its heartbeat stops for
// LeaseTTL (a frozen process, or a pid namespace we cannot see into).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

// busyTimeout is how long a write waits for another process's write lock.
const busyTimeout = 10 * time.Second

// Store is a session.Store in one SQLite file.
type Store struct {
	path   string
	writer *sql.DB // one connection: every write in this process goes through it
	reader *sql.DB

	gate   session.Gate // so that nothing runs on closed databases
	leases *leases
}

var (
	_ session.Store       = (*Store)(nil)
	_ session.Pinger      = (*Store)(nil)
	_ session.OwnerTeller = (*Store)(nil)
)

// Open opens (creating it and its directory when missing) the session file at path,
// and creates or migrates its schema.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("session store: empty path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("session store %s: %w", path, err)
	}
	pragmas := url.Values{"_pragma": {
		fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()),
		"journal_mode(WAL)",
		// In WAL mode, NORMAL syncs at checkpoints only: commits survive a process
		// crash, not a power loss (docs/architecture.md, "Pitfalls already found").
		"synchronous(NORMAL)",
	}}
	writerQ := url.Values{"_txlock": {"immediate"}}
	writerQ["_pragma"] = pragmas["_pragma"]
	uri := (&url.URL{Scheme: "file", OmitHost: true, Path: path}).String()
	writer, err := sql.Open("sqlite", uri+"?"+writerQ.Encode())
	if err != nil {
		return nil, fmt.Errorf("session store %s: %w", path, err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetConnMaxIdleTime(0)
	reader, err := sql.Open("sqlite", uri+"?"+pragmas.Encode())
	if err != nil {
		_ = writer.Close()
		return nil, fmt.Errorf("session store %s: %w", path, err)
	}
	reader.SetMaxOpenConns(4)
	s := &Store{path: path, writer: writer, reader: reader}
	if err := s.migrate(context.Background()); err != nil {
		_ = writer.Close()
		_ = reader.Close()
		return nil, fmt.Errorf("session store %s: %w", path, err)
	}
	s.leases = startLeases(s)
	return s, nil
}

// Path is the file the store keeps.
func (s *Store) Path() string { return s.path }

// migrations are applied in order; schema_version holds how many have been.
var migrations = []string{
	`CREATE TABLE sessions (
		id            TEXT PRIMARY KEY,
		system        TEXT NOT NULL,
		metadata      TEXT,             -- JSON object, NULL when empty
		loaded        TEXT,             -- JSON array, NULL when empty
		created       INTEGER NOT NULL, -- Unix nanoseconds
		last_active   INTEGER NOT NULL,
		input_tokens  INTEGER NOT NULL,
		output_tokens INTEGER NOT NULL,
		messages      INTEGER NOT NULL  -- how many rows of messages it has
	);
	-- List's order, so that it reads the index instead of sorting.
	CREATE INDEX sessions_last_active ON sessions (last_active DESC, id);
	CREATE TABLE messages (
		session_id TEXT NOT NULL,
		seq        INTEGER NOT NULL,
		body       TEXT NOT NULL,       -- the llm.Message as JSON
		PRIMARY KEY (session_id, seq)
	) WITHOUT ROWID;
	CREATE TABLE turns (
		session_id TEXT PRIMARY KEY,
		owner      TEXT NOT NULL,       -- the holding Store value
		lease      INTEGER NOT NULL,    -- which of its turns
		pid        INTEGER NOT NULL,
		host       TEXT NOT NULL,       -- hostname and pid namespace
		expires    INTEGER NOT NULL     -- Unix nanoseconds
	) WITHOUT ROWID;`,
	// 2: who owns each session (the subject of the person who made it); the
	// sessions made before have none (""), which only an admin sees once
	// identities are on.
	`ALTER TABLE sessions ADD COLUMN owner TEXT NOT NULL DEFAULT ''`,
	// 3: each session's title (session.Title), so that List reads no message; NULL
	// for the sessions made before, whose List makes it from their first user
	// message.
	`ALTER TABLE sessions ADD COLUMN title TEXT`,
	// 4: tool calls' records for usage over time (session.UsageStore, usage.go).
	usageSchema,
	// 5: the application keys (session.KeyStore, keys.go): the hash of each secret,
	// never the secret.
	`CREATE TABLE keys (
		id        TEXT PRIMARY KEY,
		name      TEXT NOT NULL,
		profiles  TEXT NOT NULL,        -- JSON array
		hash      BLOB NOT NULL,        -- SHA-256 of the secret
		created   INTEGER NOT NULL,     -- Unix nanoseconds
		expires   INTEGER,              -- NULL: never
		last_used INTEGER               -- NULL: never used
	)`,
}

func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	version := 0
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if err := session.Migrate(version, migrations, func(stmt string) error {
		_, err := tx.ExecContext(ctx, stmt)
		return err
	}); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, len(migrations)); err != nil {
		return err
	}
	return tx.Commit()
}

// Ping reads one row of the sessions table: the file is there and readable (a
// database/sql ping alone may not even open it).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.gate.Enter("ping"); err != nil {
		return err
	}
	defer s.gate.Exit()
	var one int
	err := s.reader.QueryRowContext(ctx, `SELECT 1 FROM sessions LIMIT 1`).Scan(&one)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return s.fail("ping", err)
	}
	return nil
}

func (s *Store) fail(what string, err error) error {
	return fmt.Errorf("session store %s: %s: %w", s.path, what, err)
}

func (s *Store) Create(ctx context.Context, in *session.Session) error {
	if err := s.gate.Enter("session " + in.ID); err != nil {
		return err
	}
	defer s.gate.Exit()
	row, err := session.NewRow(in, time.Now())
	if err != nil {
		return err
	}
	bodies, meta, loaded := row.Messages, row.Metadata, row.Loaded
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return s.fail("create "+in.ID, err)
	}
	defer tx.Rollback() //nolint:errcheck
	res, err := tx.ExecContext(ctx, `INSERT INTO sessions
		(id, system, metadata, loaded, created, last_active, input_tokens, output_tokens, messages, owner, title)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		in.ID, in.System, meta, loaded, in.Created.UnixNano(), in.LastActive.UnixNano(),
		in.Usage.InputTokens, in.Usage.OutputTokens, len(bodies), in.Owner, row.Title)
	if err != nil {
		return s.fail("create "+in.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return session.Exists(in.ID)
	}
	if err := insertMessages(ctx, tx, in.ID, 0, bodies); err != nil {
		return s.fail("create "+in.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return s.fail("create "+in.ID, err)
	}
	return nil
}

func (s *Store) Get(ctx context.Context, id string) (*session.Session, error) {
	if err := s.gate.Enter("session " + id); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	// One read transaction: the session row and its messages from one snapshot.
	tx, err := s.reader.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.fail("get "+id, err)
	}
	defer tx.Rollback() //nolint:errcheck
	out, count, err := session.ScanSession(tx.QueryRowContext(ctx, `SELECT system, metadata, loaded, created, last_active,
		input_tokens, output_tokens, messages, owner FROM sessions WHERE id = ?`, id), id, nanos)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, session.NotFound(id)
	}
	if err != nil {
		return nil, s.fail("get "+id, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, body FROM messages WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, s.fail("get "+id, err)
	}
	defer rows.Close()
	if out.Messages, err = session.ReadMessages(rows, count); err != nil {
		return nil, s.fail("get "+id, err)
	}
	return out, nil
}

func (s *Store) Owner(ctx context.Context, id string) (string, error) {
	if err := s.gate.Enter("session " + id); err != nil {
		return "", err
	}
	defer s.gate.Exit()
	var owner string
	err := s.reader.QueryRowContext(ctx, `SELECT owner FROM sessions WHERE id = ?`, id).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", session.NotFound(id)
	}
	if err != nil {
		return "", s.fail("owner of "+id, err)
	}
	return owner, nil
}

func (s *Store) List(ctx context.Context) ([]session.Summary, error) {
	if err := s.gate.Enter("list sessions"); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	tx, err := s.reader.BeginTx(ctx, nil) // the count and the rows from one snapshot
	if err != nil {
		return nil, s.fail("list", err)
	}
	defer tx.Rollback() //nolint:errcheck
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n); err != nil {
		return nil, s.fail("list", err)
	}
	// A session stored before titles were kept has none: its first user message's
	// row, found by its prefix, makes it.
	rows, err := tx.QueryContext(ctx, `SELECT id, messages, created, last_active, metadata, owner, title,
		CASE WHEN title IS NULL THEN (SELECT substr(m.body, 1, ?) FROM messages m
			WHERE m.session_id = s.id AND substr(m.body, 1, ?) = ? ORDER BY m.seq LIMIT 1) END
		FROM sessions s ORDER BY last_active DESC, id`,
		session.TitleHead, len(session.UserRowPrefix), session.UserRowPrefix)
	if err != nil {
		return nil, s.fail("list", err)
	}
	defer rows.Close()
	out, err := session.ReadSummaries(rows, n, nanos)
	if err != nil {
		return nil, s.fail("list", err)
	}
	return out, nil
}

func (s *Store) Append(ctx context.Context, id string, usage llm.Usage, msgs ...llm.Message) error {
	if err := s.gate.Enter("session " + id); err != nil {
		return err
	}
	defer s.gate.Exit()
	bodies, err := session.EncodeMessages(id, msgs)
	if err != nil {
		return err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return s.fail("append to "+id, err)
	}
	defer tx.Rollback() //nolint:errcheck
	var count int
	err = tx.QueryRowContext(ctx, `UPDATE sessions SET messages = messages + ?, input_tokens = input_tokens + ?,
		output_tokens = output_tokens + ?, last_active = ?, title = CASE WHEN title = '' THEN ? ELSE title END
		WHERE id = ? RETURNING messages`,
		len(bodies), usage.InputTokens, usage.OutputTokens, time.Now().UnixNano(), session.AppendedTitle(bodies), id).Scan(&count)
	if errors.Is(err, sql.ErrNoRows) {
		return session.NotFound(id)
	}
	if err != nil {
		return s.fail("append to "+id, err)
	}
	if err := insertMessages(ctx, tx, id, count-len(bodies), bodies); err != nil {
		return s.fail("append to "+id, err)
	}
	if err := tx.Commit(); err != nil {
		return s.fail("append to "+id, err)
	}
	return nil
}

func (s *Store) SetLoaded(ctx context.Context, id string, names []string) error {
	if err := s.gate.Enter("session " + id); err != nil {
		return err
	}
	defer s.gate.Exit()
	loaded, err := session.JSONOrNull(len(names), names)
	if err != nil {
		return err
	}
	res, err := s.writer.ExecContext(ctx, `UPDATE sessions SET loaded = ? WHERE id = ?`, loaded, id)
	if err != nil {
		return s.fail("set loaded tools of "+id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return session.NotFound(id)
	}
	return nil
}

func (s *Store) Delete(ctx context.Context, id string) error {
	if err := s.gate.Enter("session " + id); err != nil {
		return err
	}
	defer s.gate.Exit()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return s.fail("delete "+id, err)
	}
	defer tx.Rollback() //nolint:errcheck
	var exists int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = ?`, id).Scan(&exists); err != nil {
		return s.fail("delete "+id, err)
	}
	if exists == 0 {
		return session.NotFound(id)
	}
	busy, err := s.leases.busy(ctx, tx, id)
	if err != nil {
		return s.fail("delete "+id, err)
	}
	if busy {
		return session.Busy(id)
	}
	for _, q := range []string{
		`DELETE FROM messages WHERE session_id = ?`,
		`DELETE FROM turns WHERE session_id = ?`,
		`DELETE FROM sessions WHERE id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return s.fail("delete "+id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.fail("delete "+id, err)
	}
	return nil
}

func (s *Store) Acquire(ctx context.Context, id string) (func(), error) {
	if err := s.gate.Enter("session " + id); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	return s.leases.acquire(ctx, id)
}

func (s *Store) Stale(ctx context.Context, before time.Time) ([]string, error) {
	if err := s.gate.Enter("stale sessions"); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	rows, err := s.reader.QueryContext(ctx, `SELECT id FROM sessions WHERE last_active < ? ORDER BY id`, before.UnixNano())
	if err != nil {
		return nil, s.fail("stale", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, s.fail("stale", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("stale", err)
	}
	return ids, nil
}

// Close gives up the store's turns and closes the file. It waits for calls under
// way; a second Close does nothing.
func (s *Store) Close() error {
	return s.gate.Close(func() error {
		if err := errors.Join(s.leases.stop(), s.writer.Close(), s.reader.Close()); err != nil {
			return s.fail("close", err)
		}
		return nil
	})
}

func insertMessages(ctx context.Context, tx *sql.Tx, id string, first int, bodies []string) error {
	if len(bodies) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO messages (session_id, seq, body) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, b := range bodies {
		// As text, so that the sqlite3 shell and json_extract read it.
		if _, err := stmt.ExecContext(ctx, id, first+i, b); err != nil {
			return err
		}
	}
	return nil
}

// unixNanos scans a time column, which holds Unix nanoseconds, into the time.Time it
// points at.
type unixNanos time.Time

func (t *unixNanos) Scan(src any) error {
	n, ok := src.(int64)
	if !ok {
		return fmt.Errorf("a time column holds %T, want Unix nanoseconds", src)
	}
	*t = unixNanos(time.Unix(0, n))
	return nil
}

// nanos is the session.TimeDest of this store's time columns.
func nanos(t *time.Time) any { return (*unixNanos)(t) }
