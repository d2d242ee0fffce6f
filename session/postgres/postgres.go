// Package postgres is the session.Store for several Switchboard hosts sharing their
// sessions: one PostgreSQL database, through a pgx connection pool.
//
//	st, err := postgres.Open(ctx, "postgres://switchboard@db.internal/switchboard")
//	if err != nil {
//		return err
//	}
//	defer st.Close()
//
// Open creates the tables (switchboard_sessions, switchboard_messages,
// switchboard_schema_version: prefixed, since the database may be shared) or migrates
// them. Each message is a row of its own, so Append is one INSERT, committed (durable)
// when it returns.
//
// A turn (Acquire) is a session-level advisory lock (pg_try_advisory_lock) on a key
// derived from the session id, held on a pooled connection set aside until release:
// another host's Acquire gets ErrBusy at once, and when a host dies its connection
// closes and the server frees the lock (at once for a killed process; for a host
// that vanishes from the network, when the server's TCP keepalive gives up on it).
// Every running turn holds one connection, so the pool's size (pool_max_conns in the
// DSN, default 32 here) bounds the turns one host runs at once.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

// DefaultMaxConns is the pool's size when the DSN sets no pool_max_conns: pgxpool's
// own default (4, or the CPU count) would cap a host at a few running turns.
const DefaultMaxConns = 32

// Store is a session.Store in a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
	host string // the server, for errors; never the password

	gate session.Gate

	turnsMu sync.Mutex
	turns   map[*turn]struct{} // held now: Close gives them back
}

// turn is one held advisory lock and the connection that holds it.
type turn struct {
	key  int64
	conn *pgxpool.Conn
}

var (
	_ session.Store       = (*Store)(nil)
	_ session.Pinger      = (*Store)(nil)
	_ session.OwnerTeller = (*Store)(nil)
)

// Open connects to the database at dsn (a URL or key=value string, as pgx takes) and
// creates or migrates the schema.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx quotes the DSN with its password masked.
		return nil, fmt.Errorf("session store: %w", err)
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
	}
	host := fmt.Sprintf("postgres %s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("session store %s: %w", host, err)
	}
	s := &Store{pool: pool, host: host, turns: map[*turn]struct{}{}}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, s.fail("schema", err)
	}
	return s, nil
}

// migrationLock is the advisory lock key that serializes hosts migrating at once.
const migrationLock = 0x5357_4244_5343_4845 // "SWBDSCHE"

var migrations = []string{
	`CREATE TABLE switchboard_sessions (
		id            text PRIMARY KEY,
		system        text NOT NULL,
		metadata      json,
		loaded        json,
		created       timestamptz NOT NULL,
		last_active   timestamptz NOT NULL,
		input_tokens  bigint NOT NULL,
		output_tokens bigint NOT NULL,
		messages      integer NOT NULL
	);
	CREATE INDEX switchboard_sessions_last_active ON switchboard_sessions (last_active);
	CREATE TABLE switchboard_messages (
		session_id text NOT NULL REFERENCES switchboard_sessions (id) ON DELETE CASCADE,
		seq        integer NOT NULL,
		body       json NOT NULL, -- json, not jsonb: kept as written, \u0000 included
		PRIMARY KEY (session_id, seq)
	);`,
	// 2: who owns each session (the subject of the person who made it); the
	// sessions made before have none (''), which only an admin sees once identities
	// are on. A constant default: PostgreSQL adds the column without rewriting the
	// table.
	`ALTER TABLE switchboard_sessions ADD COLUMN owner text NOT NULL DEFAULT ''`,
	// 3: each session's title (session.Title), so that List reads no message; NULL
	// for the sessions made before, whose List makes it from their first user
	// message.
	`ALTER TABLE switchboard_sessions ADD COLUMN title text`,
	// 4: tool calls' records for usage over time (session.UsageStore, usage.go).
	usageSchema,
	// 5: the application keys (session.KeyStore, keys.go): the hash of each secret,
	// never the secret.
	`CREATE TABLE switchboard_keys (
		id        text PRIMARY KEY,
		name      text NOT NULL,
		profiles  text[] NOT NULL,
		hash      bytea NOT NULL, -- SHA-256 of the secret
		created   timestamptz NOT NULL,
		expires   timestamptz,    -- NULL: never
		last_used timestamptz     -- NULL: never used
	)`,
}

func (s *Store) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS switchboard_schema_version (version integer NOT NULL)`); err != nil {
			return err
		}
		version := 0
		err := tx.QueryRow(ctx, `SELECT version FROM switchboard_schema_version`).Scan(&version)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if _, err := tx.Exec(ctx, `INSERT INTO switchboard_schema_version VALUES (0)`); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		if err := session.Migrate(version, migrations, func(stmt string) error {
			_, err := tx.Exec(ctx, stmt)
			return err
		}); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE switchboard_schema_version SET version = $1`, len(migrations))
		return err
	})
}

func (s *Store) fail(what string, err error) error {
	return fmt.Errorf("session store %s: %s: %w", s.host, what, err)
}

// lockKey is session id's advisory lock key: 64 bits of FNV-1a, so that two ids share
// a key (and exclude each other's turns) with odds of about one in 2^64 per pair.
func lockKey(id string) int64 {
	h := fnv.New64a()
	h.Write([]byte("switchboard/session/"))
	h.Write([]byte(id))
	return int64(h.Sum64())
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
	var created bool
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO switchboard_sessions
			(id, system, metadata, loaded, created, last_active, input_tokens, output_tokens, messages, owner, title)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
			in.ID, in.System, meta, loaded, in.Created, in.LastActive, in.Usage.InputTokens, in.Usage.OutputTokens, len(bodies), in.Owner, row.Title)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		created = true
		_, err = tx.Exec(ctx, `INSERT INTO switchboard_messages (session_id, seq, body)
			SELECT $1, m.ord - 1, m.body FROM unnest($2::json[]) WITH ORDINALITY AS m(body, ord)`, in.ID, bodies)
		return err
	})
	if err != nil {
		return s.fail("create "+in.ID, err)
	}
	if !created {
		return session.Exists(in.ID)
	}
	return nil
}

func (s *Store) Get(ctx context.Context, id string) (*session.Session, error) {
	if err := s.gate.Enter("session " + id); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	var out *session.Session
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var count int
		var err error
		out, count, err = session.ScanSession(tx.QueryRow(ctx, `SELECT system, metadata, loaded, created, last_active,
			input_tokens, output_tokens, messages, owner FROM switchboard_sessions WHERE id = $1`, id), id, timestamp)
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT seq, body::text FROM switchboard_messages WHERE session_id = $1 ORDER BY seq`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		out.Messages, err = session.ReadMessages(rows, count)
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, session.NotFound(id)
	}
	if err != nil {
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
	err := s.pool.QueryRow(ctx, `SELECT owner FROM switchboard_sessions WHERE id = $1`, id).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
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
	// A session stored before titles were kept has none: its first user message's
	// row, found by its prefix as text (no row's JSON is parsed here), makes it.
	rows, err := s.pool.Query(ctx, `SELECT id, messages, created, last_active, metadata, owner, title,
		CASE WHEN title IS NULL THEN (SELECT left(m.body::text, $1) FROM switchboard_messages m
			WHERE m.session_id = s.id AND left(m.body::text, $2) = $3 ORDER BY m.seq LIMIT 1) END
		FROM switchboard_sessions s ORDER BY last_active DESC, id`,
		session.TitleHead, len(session.UserRowPrefix), session.UserRowPrefix)
	if err != nil {
		return nil, s.fail("list", err)
	}
	defer rows.Close()
	out, err := session.ReadSummaries(rows, 0, timestamp)
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
	// One statement, so one round trip and its own transaction: the count moves and
	// the rows go in together.
	var count int
	err = s.pool.QueryRow(ctx, `WITH s AS (
			UPDATE switchboard_sessions SET messages = messages + $2, input_tokens = input_tokens + $3,
				output_tokens = output_tokens + $4, last_active = $5,
				title = CASE WHEN title = '' THEN $7 ELSE title END
			WHERE id = $1 RETURNING messages
		), ins AS (
			INSERT INTO switchboard_messages (session_id, seq, body)
			SELECT $1, s.messages - $2 + m.ord - 1, m.body FROM s, unnest($6::json[]) WITH ORDINALITY AS m(body, ord)
		)
		SELECT messages FROM s`,
		id, len(bodies), usage.InputTokens, usage.OutputTokens, time.Now(), bodies, session.AppendedTitle(bodies)).Scan(&count)
	if errors.Is(err, pgx.ErrNoRows) {
		return session.NotFound(id)
	}
	if err != nil {
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
	tag, err := s.pool.Exec(ctx, `UPDATE switchboard_sessions SET loaded = $2 WHERE id = $1`, id, loaded)
	if err != nil {
		return s.fail("set loaded tools of "+id, err)
	}
	if tag.RowsAffected() == 0 {
		return session.NotFound(id)
	}
	return nil
}

func (s *Store) Delete(ctx context.Context, id string) error {
	if err := s.gate.Enter("session " + id); err != nil {
		return err
	}
	defer s.gate.Exit()
	var busy, found bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The turn's lock, for this transaction only: a turn that starts now waits
		// for nothing and finds no session.
		var free bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, lockKey(id)).Scan(&free); err != nil {
			return err
		}
		if !free {
			busy = true
			return nil
		}
		tag, err := tx.Exec(ctx, `DELETE FROM switchboard_sessions WHERE id = $1`, id)
		found = tag.RowsAffected() > 0
		return err
	})
	switch {
	case err != nil:
		return s.fail("delete "+id, err)
	case busy:
		return session.Busy(id)
	case !found:
		return session.NotFound(id)
	}
	return nil
}

func (s *Store) Acquire(ctx context.Context, id string) (func(), error) {
	if err := s.gate.Enter("session " + id); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, s.fail("acquire "+id, err)
	}
	t := &turn{key: lockKey(id), conn: conn}
	var locked bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, t.key).Scan(&locked); err != nil {
		discard(conn)
		return nil, s.fail("acquire "+id, err)
	}
	if !locked {
		conn.Release()
		return nil, session.Busy(id)
	}
	// Under the lock, Delete cannot run: the session found now stays for the turn.
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM switchboard_sessions WHERE id = $1)`, id).Scan(&exists); err != nil || !exists {
		s.unlock(t)
		if err != nil {
			return nil, s.fail("acquire "+id, err)
		}
		return nil, session.NotFound(id)
	}
	s.turnsMu.Lock()
	s.turns[t] = struct{}{}
	s.turnsMu.Unlock()
	return func() {
		s.turnsMu.Lock()
		_, held := s.turns[t]
		delete(s.turns, t)
		s.turnsMu.Unlock()
		if held { // not released before, nor by Close
			s.unlock(t)
		}
	}, nil
}

// unlock gives a turn's lock and connection back; a connection that cannot unlock is
// closed, which frees the lock too.
func (s *Store) unlock(t *turn) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ok bool
	if err := t.conn.QueryRow(ctx, `SELECT pg_advisory_unlock($1)`, t.key).Scan(&ok); err != nil || !ok {
		discard(t.conn)
		return
	}
	t.conn.Release()
}

// discard closes a pooled connection instead of returning it to the pool.
func discard(c *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.Conn().Close(ctx)
	c.Release() // the pool drops a closed connection
}

func (s *Store) Stale(ctx context.Context, before time.Time) ([]string, error) {
	if err := s.gate.Enter("stale sessions"); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	rows, err := s.pool.Query(ctx, `SELECT id FROM switchboard_sessions WHERE last_active < $1 ORDER BY id`, before)
	if err != nil {
		return nil, s.fail("stale", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.fail("stale", err)
	}
	return ids, nil
}

// Ping checks that the database answers, on a pooled connection (a dead one is
// dropped, so the next call dials afresh): what /readyz asks.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.gate.Enter("ping"); err != nil {
		return err
	}
	defer s.gate.Exit()
	if err := s.pool.Ping(ctx); err != nil {
		return s.fail("ping", err)
	}
	return nil
}

// Close gives up the store's turns and closes the pool, after the calls under way; a
// second Close does nothing.
func (s *Store) Close() error {
	return s.gate.Close(func() error {
		s.turnsMu.Lock()
		held := s.turns
		s.turns = map[*turn]struct{}{}
		s.turnsMu.Unlock()
		for t := range held {
			s.unlock(t)
		}
		s.pool.Close() // waits for every connection to come back
		return nil
	})
}

// timestamp is the session.TimeDest of this store's timestamptz columns, which pgx
// scans into a time.Time.
func timestamp(t *time.Time) any { return t }
