package session

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard-mcp/switchboard/llm"
)

// What a session becomes in a database's rows, for the stores kept in one
// (session/sqlite, session/postgres): one JSON row per message, so that Append is an
// insert and never a rewrite of the history.

// NotFound is the error for a session id that no session has.
func NotFound(id string) error { return fmt.Errorf("%w: %s", ErrNotFound, id) }

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
	return r, err
}
