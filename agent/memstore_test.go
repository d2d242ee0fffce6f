package agent_test

// TEMPORARY: remove this file once session.NewMemory is merged into main; newStore
// (helpers_test.go) then returns session.NewMemory(). It stands in for the memory
// store so that the loop's tests can run before the session helper's branch lands.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

type tempStore struct {
	mu       sync.Mutex
	sessions map[string]*session.Session
	busy     map[string]bool
}

func newTempStore() *tempStore {
	return &tempStore{sessions: map[string]*session.Session{}, busy: map[string]bool{}}
}

func (s *tempStore) Create(_ context.Context, sess *session.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[sess.ID]; ok {
		return fmt.Errorf("session %s: %w", sess.ID, session.ErrExists)
	}
	c := *sess
	c.Messages = slices.Clone(sess.Messages)
	if c.Created.IsZero() {
		c.Created = time.Now()
	}
	c.LastActive = c.Created
	s.sessions[sess.ID] = &c
	return nil
}

func (s *tempStore) Get(_ context.Context, id string) (*session.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("session %s: %w", id, session.ErrNotFound)
	}
	c := *sess
	c.Messages = slices.Clone(sess.Messages)
	return &c, nil
}

func (s *tempStore) List(context.Context) ([]session.Summary, error) { return nil, nil }

func (s *tempStore) Append(_ context.Context, id string, usage llm.Usage, msgs ...llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[id]
	if !ok {
		return fmt.Errorf("session %s: %w", id, session.ErrNotFound)
	}
	sess.Messages = append(sess.Messages, msgs...)
	sess.Usage = sess.Usage.Add(usage)
	sess.LastActive = time.Now()
	return nil
}

func (s *tempStore) SetLoaded(context.Context, string, []string) error { return nil }

func (s *tempStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, id)
	return nil
}

func (s *tempStore) Acquire(_ context.Context, id string) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[id]; !ok {
		return nil, fmt.Errorf("session %s: %w", id, session.ErrNotFound)
	}
	if s.busy[id] {
		return nil, fmt.Errorf("session %s: %w", id, session.ErrBusy)
	}
	s.busy[id] = true
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.busy, id)
			s.mu.Unlock()
		})
	}, nil
}

func (s *tempStore) Stale(context.Context, time.Time) ([]string, error) { return nil, nil }

func (s *tempStore) Close() error { return nil }
