package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-mcp/switchboard/session"
)

// The application keys (session.KeyStore) in the table switchboard_keys, which every
// replica reads: nothing of them is cached, so a key deleted on one is refused by all.

func (s *Store) CreateKey(ctx context.Context, k *session.Key) error {
	if err := s.gate.Enter("application key " + k.ID); err != nil {
		return err
	}
	defer s.gate.Exit()
	if err := session.CheckKey(k, time.Now()); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO switchboard_keys (id, name, profiles, hash, created, expires, last_used)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
		k.ID, k.Name, k.Profiles, k.Hash, k.Created, nullTime(k.Expires), nullTime(k.LastUsed))
	if err != nil {
		return s.fail("create application key "+k.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return session.KeyExists(k.ID)
	}
	return nil
}

func (s *Store) Key(ctx context.Context, id string) (*session.Key, error) {
	if err := s.gate.Enter("application key " + id); err != nil {
		return nil, err
	}
	defer s.gate.Exit()
	k, err := scanKey(s.pool.QueryRow(ctx, `SELECT id, name, profiles, hash, created, expires, last_used
		FROM switchboard_keys WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
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
	rows, err := s.pool.Query(ctx, `SELECT id, name, profiles, NULL::bytea, created, expires, last_used
		FROM switchboard_keys ORDER BY created, id`)
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
	return s.keyUpdate(ctx, "delete application key", id, `DELETE FROM switchboard_keys WHERE id = $1`, id)
}

func (s *Store) TouchKey(ctx context.Context, id string, at time.Time) error {
	return s.keyUpdate(ctx, "touch application key", id, `UPDATE switchboard_keys SET last_used = $2 WHERE id = $1`, id, at)
}

// keyUpdate runs one statement on key id's row: ErrKeyNotFound when it changed none.
func (s *Store) keyUpdate(ctx context.Context, what, id, stmt string, args ...any) error {
	if err := s.gate.Enter("application key " + id); err != nil {
		return err
	}
	defer s.gate.Exit()
	tag, err := s.pool.Exec(ctx, stmt, args...)
	if err != nil {
		return s.fail(what+" "+id, err)
	}
	if tag.RowsAffected() == 0 {
		return session.KeyNotFound(id)
	}
	return nil
}

// scanKey reads a row of id, name, profiles, hash, created, expires, last_used.
func scanKey(row pgx.Row) (*session.Key, error) {
	var (
		k                 session.Key
		expires, lastUsed *time.Time
	)
	if err := row.Scan(&k.ID, &k.Name, &k.Profiles, &k.Hash, &k.Created, &expires, &lastUsed); err != nil {
		return nil, err
	}
	if expires != nil {
		k.Expires = *expires
	}
	if lastUsed != nil {
		k.LastUsed = *lastUsed
	}
	return &k, nil
}

// nullTime is t, or NULL for the zero time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}
