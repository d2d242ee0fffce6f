package session

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/llm"
)

// Memory is a Store that keeps sessions in this process only: for tests, and for a
// chat that need not outlive its process. Messages are kept as their JSON encoding,
// as the database stores keep them, so that a caller changing a message (or a tool
// result) after Append changes nothing stored, and Get hands back what any store
// would.
type Memory struct {
	mu       sync.Mutex
	sessions map[string]*memSession
	keys     map[string]Key
	closed   bool
	turns    uint64 // numbers each turn, so that a stale release frees nothing
	calls    []Call // usage (UsageStore), in time order
}

type memSession struct {
	s        Session // Messages left nil: msgs holds them
	msgs     []json.RawMessage
	turn     uint64 // the turn holding the session, 0 when free
	metadata map[string]string
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{sessions: map[string]*memSession{}, keys: map[string]Key{}}
}

var (
	_ Store       = (*Memory)(nil)
	_ OwnerTeller = (*Memory)(nil)
)

// lookup returns the session id under m.mu, or the error every method gives.
func (m *Memory) lookup(id string) (*memSession, error) {
	if m.closed {
		return nil, fmt.Errorf("session %s: %w", id, ErrClosed)
	}
	ms := m.sessions[id]
	if ms == nil {
		return nil, NotFound(id)
	}
	return ms, nil
}

func (m *Memory) Create(_ context.Context, s *Session) error {
	msgs, err := encodeMessages(s.ID, s.Messages)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("session %s: %w", s.ID, ErrClosed)
	}
	if s.ID == "" {
		s.ID = NewID()
	}
	if _, ok := m.sessions[s.ID]; ok {
		return Exists(s.ID)
	}
	FillTimes(s, time.Now())
	ms := &memSession{s: *s, msgs: msgs, metadata: maps.Clone(s.Metadata)}
	ms.s.Messages = nil
	ms.s.Metadata = nil
	ms.s.Loaded = slices.Clone(s.Loaded)
	m.sessions[s.ID] = ms
	return nil
}

func (m *Memory) Get(_ context.Context, id string) (*Session, error) {
	m.mu.Lock()
	ms, err := m.lookup(id)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	s := ms.s
	s.Metadata = maps.Clone(ms.metadata)
	s.Loaded = slices.Clone(ms.s.Loaded)
	raw := slices.Clone(ms.msgs) // the RawMessages themselves are never changed
	m.mu.Unlock()

	s.Messages = make([]llm.Message, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &s.Messages[i]); err != nil {
			return nil, fmt.Errorf("session %s: message %d: %w", id, i, err)
		}
	}
	return &s, nil
}

func (m *Memory) Owner(_ context.Context, id string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.lookup(id)
	if err != nil {
		return "", err
	}
	return ms.s.Owner, nil
}

func (m *Memory) List(_ context.Context) ([]Summary, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("list sessions: %w", ErrClosed)
	}
	out := make([]Summary, 0, len(m.sessions))
	for _, ms := range m.sessions {
		out = append(out, Summary{
			ID:         ms.s.ID,
			Owner:      ms.s.Owner,
			Title:      Title(ms.metadata, firstUserRow(ms.msgs)),
			Messages:   len(ms.msgs),
			Created:    ms.s.Created,
			LastActive: ms.s.LastActive,
			Metadata:   maps.Clone(ms.metadata),
		})
	}
	SortSummaries(out)
	return out, nil
}

func (m *Memory) Append(_ context.Context, id string, usage llm.Usage, msgs ...llm.Message) error {
	enc, err := encodeMessages(id, msgs)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.lookup(id)
	if err != nil {
		return err
	}
	ms.msgs = append(ms.msgs, enc...)
	ms.s.Usage = ms.s.Usage.Add(usage)
	ms.s.LastActive = time.Now()
	return nil
}

func (m *Memory) SetLoaded(_ context.Context, id string, names []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.lookup(id)
	if err != nil {
		return err
	}
	ms.s.Loaded = slices.Clone(names)
	return nil
}

func (m *Memory) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.lookup(id)
	if err != nil {
		return err
	}
	if ms.turn != 0 {
		return Busy(id)
	}
	delete(m.sessions, id)
	return nil
}

func (m *Memory) Acquire(_ context.Context, id string) (func(), error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.lookup(id)
	if err != nil {
		return nil, err
	}
	if ms.turn != 0 {
		return nil, Busy(id)
	}
	m.turns++
	turn := m.turns
	ms.turn = turn
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if ms.turn == turn {
			ms.turn = 0
		}
	}, nil
}

func (m *Memory) Stale(_ context.Context, before time.Time) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("stale sessions: %w", ErrClosed)
	}
	var ids []string
	for id, ms := range m.sessions {
		if ms.s.LastActive.Before(before) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Close drops every session.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.sessions = nil
	m.keys = nil
	return nil
}

func (m *Memory) CreateKey(_ context.Context, k *Key) error {
	if err := CheckKey(k, time.Now()); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("application key %s: %w", k.ID, ErrClosed)
	}
	if _, ok := m.keys[k.ID]; ok {
		return KeyExists(k.ID)
	}
	c := *k
	c.Profiles, c.Hash = slices.Clone(k.Profiles), slices.Clone(k.Hash)
	m.keys[k.ID] = c
	return nil
}

// key is key id under m.mu, or the error every key method gives.
func (m *Memory) key(id string) (Key, error) {
	if m.closed {
		return Key{}, fmt.Errorf("application key %s: %w", id, ErrClosed)
	}
	k, ok := m.keys[id]
	if !ok {
		return Key{}, KeyNotFound(id)
	}
	return k, nil
}

func (m *Memory) Key(_ context.Context, id string) (*Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, err := m.key(id)
	if err != nil {
		return nil, err
	}
	k.Profiles, k.Hash = slices.Clone(k.Profiles), slices.Clone(k.Hash)
	return &k, nil
}

func (m *Memory) Keys(_ context.Context) ([]Key, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("application keys: %w", ErrClosed)
	}
	out := make([]Key, 0, len(m.keys))
	for _, k := range m.keys {
		k.Profiles, k.Hash = slices.Clone(k.Profiles), nil
		out = append(out, k)
	}
	SortKeys(out)
	return out, nil
}

func (m *Memory) DeleteKey(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.key(id); err != nil {
		return err
	}
	delete(m.keys, id)
	return nil
}

func (m *Memory) TouchKey(_ context.Context, id string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, err := m.key(id)
	if err != nil {
		return err
	}
	k.LastUsed = at
	m.keys[id] = k
	return nil
}

// firstUserRow is the encoding of the first user message of msgs, or nil. (The
// memory store makes titles as it lists: the database stores keep them in a column.)
func firstUserRow(msgs []json.RawMessage) []byte {
	for _, m := range msgs {
		if bytes.HasPrefix(m, []byte(UserRowPrefix)) {
			return m
		}
	}
	return nil
}

// FillTimes sets s's zero Created and LastActive to now, as Create does: a store's
// helper.
func FillTimes(s *Session, now time.Time) {
	if s.Created.IsZero() {
		s.Created = now
	}
	if s.LastActive.IsZero() {
		s.LastActive = now
	}
}

// SortSummaries orders summaries as List returns them: most recently active first,
// ties by id (CompareSummaries).
func SortSummaries(ss []Summary) {
	slices.SortFunc(ss, CompareSummaries)
}

// CompareSummaries is List's order, as slices.SortFunc takes it: a before b (-1) when
// a was active more recently, or at the same time with a smaller id (by bytes).
func CompareSummaries(a, b Summary) int {
	if c := b.LastActive.Compare(a.LastActive); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// encodeMessages is each message's JSON encoding; a message that does not encode
// (a structured result holding a channel, say) fails the whole call.
func encodeMessages(id string, msgs []llm.Message) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(msgs))
	for i := range msgs {
		b, err := json.Marshal(&msgs[i])
		if err != nil {
			return nil, fmt.Errorf("session %s: message %d: %w", id, i, err)
		}
		out[i] = b
	}
	return out, nil
}
