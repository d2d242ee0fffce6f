package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/switchboard-mcp/switchboard/session"
)

// The application keys (session.KeyStore) in the table "keys".

func (s *Store) CreateKey(ctx context.Context, k *session.Key) error {
	if err := s.gate.Enter("application key " + k.ID); err != nil {
		return err
	}
	defer s.gate.Exit()
	if err := session.CheckKey(k, time.Now()); err != nil {
		return err
	}
	profiles, err := json.Marshal(k.Profiles)
	if err != nil {
		return err
	}
	res, err := s.writer.ExecContext(ctx, `INSERT INTO keys (id, name, profiles, hash, created, expires, last_used)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		k.ID, k.Name, string(profiles), k.Hash, k.Created.UnixNano(), nullNanos(k.Expires), nullNanos(k.LastUsed))
	if err != nil {
		return s.fail("create application key "+k.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return session.KeyExists(k.ID)
	}
	return nil
}

func (s *Store) Key(ctx context.Context, id string) (*session.Key, error) {
	if err := s.gate.Enter("application key " + id); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	k, err := scanKey(s.reader.QueryRowContext(ctx, `SELECT id, name, profiles, hash, created, expires, last_used
		FROM keys WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, session.KeyNotFound(id)
	}
	if err != nil {
		return nil, s.fail("application key "+id, err)
	}
	return k, nil
}

func (s *Store) Keys(ctx context.Context) ([]session.Key, error) {
	if err := s.gate.Enter("application keys"); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	rows, err := s.reader.QueryContext(ctx, `SELECT id, name, profiles, NULL, created, expires, last_used
		FROM keys ORDER BY created, id`)
	if err != nil {
		return nil, s.fail("application keys", err)
	}
	defer rows.Close()
	out := []session.Key{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, s.fail("application keys", err)
		}
		out = append(out, *k)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("application keys", err)
	}
	return out, nil
}

func (s *Store) DeleteKey(ctx context.Context, id string) error {
	return s.keyUpdate(ctx, "delete application key", id, `DELETE FROM keys WHERE id = ?`, id)
}

func (s *Store) TouchKey(ctx context.Context, id string, at time.Time) error {
	return s.keyUpdate(ctx, "touch application key", id, `UPDATE keys SET last_used = ? WHERE id = ?`, at.UnixNano(), id)
}

// keyUpdate runs one statement on key id's row: ErrKeyNotFound when it changed none.
func (s *Store) keyUpdate(ctx context.Context, what, id, stmt string, args ...any) error {
	if err := s.gate.Enter("application key " + id); err != nil {
		return err
	}
	defer s.gate.Exit()
	res, err := s.writer.ExecContext(ctx, stmt, args...)
	if err != nil {
		return s.fail(what+" "+id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return session.KeyNotFound(id)
	}
	return nil
}

// scanKey reads a row of id, name, profiles, hash, created, expires, last_used.
func scanKey(row interface{ Scan(...any) error }) (*session.Key, error) {
	var (
		k                 session.Key
		profiles          string
		created           int64
		expires, lastUsed sql.NullInt64
	)
	if err := row.Scan(&k.ID, &k.Name, &profiles, &k.Hash, &created, &expires, &lastUsed); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(profiles), &k.Profiles); err != nil {
		return nil, err
	}
	k.Created = time.Unix(0, created)
	if expires.Valid {
		k.Expires = time.Unix(0, expires.Int64)
	}
	if lastUsed.Valid {
		k.LastUsed = time.Unix(0, lastUsed.Int64)
	}
	return &k, nil
}

// nullNanos is t in Unix nanoseconds, or NULL for the zero time.
func nullNanos(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}
