package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-mcp/switchboard/session"
)

// usageSchema is migration 4: one row per tool call, read by time range.
const usageSchema = `CREATE TABLE switchboard_calls (
		time     timestamptz NOT NULL,
		tool     text NOT NULL,
		server   text NOT NULL,
		person   text NOT NULL,
		source   text NOT NULL,
		duration bigint NOT NULL, -- nanoseconds
		outcome  text NOT NULL
	);
	CREATE INDEX switchboard_calls_time ON switchboard_calls (time);`

var _ session.UsageStore = (*Store)(nil)

func (s *Store) AddCalls(ctx context.Context, calls []session.Call) error {
	if len(calls) == 0 {
		return nil
	}
	if err := s.gate.Enter("usage"); err != nil {
		return err
	}
	defer s.gate.Exit()
	rows := make([][]any, len(calls))
	for i, c := range calls {
		rows[i] = []any{c.Time.UTC(), c.Tool, c.Server, c.Person, c.Source, int64(c.Duration), c.Outcome}
	}
	_, err := s.pool.CopyFrom(ctx, pgx.Identifier{"switchboard_calls"},
		[]string{"time", "tool", "server", "person", "source", "duration", "outcome"}, pgx.CopyFromRows(rows))
	if err != nil {
		return s.fail("add calls", err)
	}
	return nil
}

func (s *Store) Calls(ctx context.Context, q session.CallQuery, limit int) ([]session.Call, bool, error) {
	if err := s.gate.Enter("usage"); err != nil {
		return nil, false, err
	}
	defer s.gate.Exit()
	query := `SELECT time, tool, server, person, source, duration, outcome FROM switchboard_calls WHERE time >= $1 AND time < $2`
	args := []any{q.Since.UTC(), q.Until.UTC()}
	if q.PersonOnly {
		args = append(args, q.Person)
		query += ` AND person = $3`
	}
	query += ` ORDER BY time`
	if limit > 0 {
		args = append(args, limit+1)
		query += fmt.Sprintf(` LIMIT $%d`, len(args))
	}
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, false, s.fail("calls", err)
	}
	defer rows.Close()
	var out []session.Call
	for rows.Next() {
		var c session.Call
		var d int64
		if err := rows.Scan(&c.Time, &c.Tool, &c.Server, &c.Person, &c.Source, &d, &c.Outcome); err != nil {
			return nil, false, s.fail("calls", err)
		}
		c.Time, c.Duration = c.Time.UTC(), time.Duration(d)
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
	tag, err := s.pool.Exec(ctx, `DELETE FROM switchboard_calls WHERE time < $1`, before.UTC())
	if err != nil {
		return 0, s.fail("prune calls", err)
	}
	return tag.RowsAffected(), nil
}
