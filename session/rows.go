package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/llm"
)

// What a session becomes in a database's rows, and back, for the stores kept in one
// (session/sqlite, session/postgres): one JSON row per message, so that Append is an
// insert and never a rewrite of the history. The stores keep their SQL and their
// drivers; the encoding, the loops over rows and the decoding are here, once.

// NotFound is the error for a session id that no session has.
func NotFound(id string) error { return fmt.Errorf("%w: %s", ErrNotFound, id) }

// Exists is the error for creating a session whose id is taken.
func Exists(id string) error { return fmt.Errorf("%w: %s", ErrExists, id) }

// Busy is the error for a session whose turn another holds.
func Busy(id string) error { return fmt.Errorf("%w: %s", ErrBusy, id) }

// EncodeMessages encodes each message as the JSON text of its own row.
func EncodeMessages(id string, msgs []llm.Message) ([]string, error) {
	out := make([]string, len(msgs))
	for i := range msgs {
		b, err := json.Marshal(&msgs[i])
		if err != nil {
			return nil, fmt.Errorf("session %s: message %d: %w", id, i, err)
		}
		out[i] = string(b)
	}
	return out, nil
}

// JSONOrNull encodes v as JSON text, or gives nil (SQL NULL) when it has no elements
// (n is its length).
func JSONOrNull(n int, v any) (any, error) {
	if n == 0 {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// Row is a new session's columns as a database store writes them.
type Row struct {
	Messages         []string // one JSON text per message
	Metadata, Loaded any      // JSON text, or nil for NULL
	// Title is the session's title (see Title), kept in a column of its own so that
	// List reads no message; "" until it has a user message (or a metadata title),
	// when Append sets it (AppendedTitle).
	Title string
}

// NewRow gives a new session an id when it has none and its times (FillTimes), and
// encodes its columns.
func NewRow(in *Session, now time.Time) (Row, error) {
	if in.ID == "" {
		in.ID = NewID()
	}
	FillTimes(in, now)
	var r Row
	var err error
	if r.Messages, err = EncodeMessages(in.ID, in.Messages); err != nil {
		return r, err
	}
	if r.Metadata, err = JSONOrNull(len(in.Metadata), in.Metadata); err != nil {
		return r, err
	}
	r.Loaded, err = JSONOrNull(len(in.Loaded), in.Loaded)
	r.Title = Title(in.Metadata, firstUserBody(r.Messages))
	return r, err
}

// AppendedTitle is the title that appending rows (from EncodeMessages) gives a
// session whose title is "" (no metadata title, no user message yet): the text of
// their first user message, or "". A database store sets it in the same statement
// as its Append, only where the title is "".
func AppendedTitle(rows []string) string {
	return Title(nil, firstUserBody(rows))
}

// firstUserBody is the first of rows that is a user message's, or nil.
func firstUserBody(rows []string) []byte {
	for _, r := range rows {
		if strings.HasPrefix(r, UserRowPrefix) {
			return []byte(r)
		}
	}
	return nil
}

// RowScanner is one row of a query: database/sql's *sql.Row and pgx.Row both are.
type RowScanner interface {
	Scan(dest ...any) error
}

// Rows are the rows of a query: database/sql's *sql.Rows and pgx.Rows both are. The
// caller closes them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// TimeDest gives the Scan destination that fills *t from a time column: t itself
// where the driver scans a time.Time (pgx), a converter where the column holds another
// form (SQLite's Unix nanoseconds). It is what differs by driver in reading a row back.
type TimeDest func(t *time.Time) any

// ScanSession reads a session's row, whose columns are system, metadata, loaded,
// created, last_active, input_tokens, output_tokens, messages (how many) and owner,
// in that order: the session without its messages, and how many it has. The driver's error
// for no row comes back as it is.
func ScanSession(row RowScanner, id string, at TimeDest) (*Session, int, error) {
	s := &Session{ID: id}
	var (
		meta, loaded []byte
		count        int
	)
	if err := row.Scan(&s.System, &meta, &loaded, at(&s.Created), at(&s.LastActive),
		&s.Usage.InputTokens, &s.Usage.OutputTokens, &count, &s.Owner); err != nil {
		return nil, 0, err
	}
	var err error
	if s.Metadata, err = DecodeMetadata(meta); err != nil {
		return nil, 0, fmt.Errorf("metadata: %w", err)
	}
	if loaded != nil {
		if err := json.Unmarshal(loaded, &s.Loaded); err != nil {
			return nil, 0, fmt.Errorf("loaded: %w", err)
		}
	}
	return s, count, nil
}

// ReadMessages reads a session's messages from rows whose columns are seq and body
// (the message's JSON), in order; count, from the session's row, sizes the slice.
func ReadMessages(rows Rows, count int) ([]llm.Message, error) {
	out := make([]llm.Message, 0, count)
	for rows.Next() {
		var (
			seq  int
			body []byte
		)
		if err := rows.Scan(&seq, &body); err != nil {
			return nil, err
		}
		var m llm.Message
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("message %d: %w", seq, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// ReadSummaries reads List's rows, whose columns are id, messages (how many),
// created, last_active, metadata, owner, title and head, in that order; n (0 when
// unknown) sizes the slice. title is the title column, NULL for a session stored
// before the store kept titles; head, read only then (else NULL), is the first
// TitleHead characters of the row of the session's first user message (NULL when it
// has none), from which the title is made.
func ReadSummaries(rows Rows, n int, at TimeDest) ([]Summary, error) {
	out := make([]Summary, 0, n)
	for rows.Next() {
		var (
			sum               Summary
			meta, title, head []byte
		)
		if err := rows.Scan(&sum.ID, &sum.Messages, at(&sum.Created), at(&sum.LastActive), &meta, &sum.Owner, &title, &head); err != nil {
			return nil, err
		}
		var err error
		if sum.Metadata, err = DecodeMetadata(meta); err != nil {
			return nil, fmt.Errorf("%s: metadata: %w", sum.ID, err)
		}
		if title != nil {
			sum.Title = string(title)
		} else {
			sum.Title = Title(sum.Metadata, head)
		}
		out = append(out, sum)
	}
	return out, rows.Err()
}
