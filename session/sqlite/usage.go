package sqlite

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/session"
)

// usageSchema is migration 4: one row per tool call, read by time range.
const usageSchema = `CREATE TABLE calls (
		time     INTEGER NOT NULL, -- Unix nanoseconds
		tool     TEXT NOT NULL,
		server   TEXT NOT NULL,
		person   TEXT NOT NULL,
		source   TEXT NOT NULL,
		duration INTEGER NOT NULL, -- nanoseconds
		outcome  TEXT NOT NULL
	);
	CREATE INDEX calls_time ON calls (time);`

var _ session.UsageStore = (*Store)(nil)

func (s *Store) AddCalls(ctx context.Context, calls []session.Call) error {
	if len(calls) == 0 {
		return nil
	}
	if err := s.gate.Enter("usage"); err != nil {
		return err
	}
	defer s.gate.Exit()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return s.fail("add calls", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO calls (time, tool, server, person, source, duration, outcome) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return s.fail("add calls", err)
	}
	defer stmt.Close()
	for _, c := range calls {
		if _, err := stmt.ExecContext(ctx, c.Time.UnixNano(), c.Tool, c.Server, c.Person, c.Source, int64(c.Duration), c.Outcome); err != nil {
			return s.fail("add calls", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.fail("add calls", err)
	}
	return nil
}

func (s *Store) Calls(ctx context.Context, q session.CallQuery, limit int) ([]session.Call, bool, error) {
	if err := s.gate.Enter("usage"); err != nil {
		return nil, false, err
	}
	defer s.gate.Exit()
	query := `SELECT time, tool, server, person, source, duration, outcome FROM calls WHERE time >= ? AND time < ?`
	args := []any{q.Since.UnixNano(), q.Until.UnixNano()}
	if q.PersonOnly {
		query += ` AND person = ?`
		args = append(args, q.Person)
	}
	query += ` ORDER BY time`
	if limit > 0 {
		query += ` LIMIT ?`
		args = append(args, limit+1)
	}
	rows, err := s.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, false, s.fail("calls", err)
	}
	defer rows.Close()
	var out []session.Call
	for rows.Next() {
		var c session.Call
		var at, d int64
		if err := rows.Scan(&at, &c.Tool, &c.Server, &c.Person, &c.Source, &d, &c.Outcome); err != nil {
			return nil, false, s.fail("calls", err)
		}
		c.Time, c.Duration = time.Unix(0, at).UTC(), time.Duration(d)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, false, s.fail("calls", err)
	}
	if limit > 0 && len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

func (s *Store) PruneCalls(ctx context.Context, before time.Time) (int64, error) {
	if err := s.gate.Enter("usage"); err != nil {
		return 0, err
	}
	defer s.gate.Exit()
	res, err := s.writer.ExecContext(ctx, `DELETE FROM calls WHERE time < ?`, before.UnixNano())
	if err != nil {
		return 0, s.fail("prune calls", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
