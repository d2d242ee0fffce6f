package signin

import (
	"context"
	"sync"
)

// Memory is a Store that keeps its records in memory, for a program that signs in
// anew every run (and for tests).
type Memory struct {
	mu   sync.Mutex
	recs map[[3]string]Record
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory store.
func NewMemory() *Memory { return &Memory{recs: map[[3]string]Record{}} }

// Load implements Store.
func (m *Memory) Load(ctx context.Context, server, subject string) ([]*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []*Record{}
	for k, r := range m.recs {
		if k[0] == server && k[1] == subject {
			r := r
			out = append(out, &r)
		}
	}
	sortRecords(out)
	return out, ctx.Err()
}

// Save implements Store.
func (m *Memory) Save(ctx context.Context, rec *Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs[[3]string{rec.Server, rec.Subject, rec.Issuer}] = *rec
	return ctx.Err()
}

// Delete implements Store.
func (m *Memory) Delete(ctx context.Context, server, subject string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.recs {
		if k[0] == server && k[1] == subject {
			delete(m.recs, k)
		}
	}
	return ctx.Err()
}
