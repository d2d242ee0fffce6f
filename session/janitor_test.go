package session

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/llm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitFor polls cond for up to 10 s: of the bubble's clock in a synctest test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestJanitor runs in a synctest bubble: the janitor's ticker and the store's clock
// are the bubble's, so the sessions idle out and the sweeps come as soon as every
// goroutine waits, not after 400 ms of the machine's time.
func TestJanitor(t *testing.T) { synctest.Test(t, testJanitor) }

func testJanitor(t *testing.T) {
	ctx := t.Context()
	var (
		mu                 sync.Mutex
		created, destroyed []string
	)
	was := func(list *[]string, id string) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			return slices.Contains(*list, id)
		}
	}
	const timeout = 400 * time.Millisecond
	j := NewJanitor(NewMemory(), &JanitorOptions{
		Timeout:   timeout,
		OnCreate:  func(s *Session) { mu.Lock(); created = append(created, s.ID); mu.Unlock() },
		OnDestroy: func(id string) { mu.Lock(); destroyed = append(destroyed, id); mu.Unlock() },
	})
	t.Cleanup(func() { _ = j.Close() })
	st := j.Store()
	old := time.Now().Add(-time.Hour)
	idle, held, fresh := &Session{LastActive: old}, &Session{LastActive: old}, &Session{}
	for _, s := range []*Session{idle, held, fresh} {
		if err := j.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		if !was(&created, s.ID)() || s.ID == "" {
			t.Fatalf("OnCreate was not called with %q", s.ID)
		}
	}
	release, err := st.Acquire(ctx, held.ID)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the idle session's removal", was(&destroyed, idle.ID))
	if _, err := st.Get(ctx, idle.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("idle session after OnDestroy: %v, want ErrNotFound", err)
	}
	// The fresh session goes once it has idled for the timeout.
	waitFor(t, "the fresh session's removal once idle", was(&destroyed, fresh.ID))
	// The held one stays, sweep after sweep.
	n := j.sweeps.Load()
	waitFor(t, "two more sweeps", func() bool { return j.sweeps.Load() >= n+2 })
	if _, err := st.Get(ctx, held.ID); err != nil || was(&destroyed, held.ID)() {
		t.Fatalf("a session whose turn is held was removed (%v)", err)
	}
	// A turn that appends keeps its session.
	if err := st.Append(ctx, held.ID, llm.Usage{}, llm.Message{Role: llm.RoleUser, Text: "still here"}); err != nil {
		t.Fatal(err)
	}
	release()
	waitFor(t, "the released session's removal once idle", was(&destroyed, held.ID))

	// Destroy: ErrBusy (and no callback) during a turn, then the callback.
	d := &Session{}
	if err := j.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	release, err = st.Acquire(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Destroy(ctx, d.ID); !errors.Is(err, ErrBusy) || was(&destroyed, d.ID)() {
		t.Fatalf("Destroy during a turn: %v (callback: %v), want ErrBusy and no callback", err, was(&destroyed, d.ID)())
	}
	release()
	if err := j.Destroy(ctx, d.ID); err != nil || !was(&destroyed, d.ID)() {
		t.Fatalf("Destroy: %v (callback: %v)", err, was(&destroyed, d.ID)())
	}
	if err := j.Destroy(ctx, d.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Destroy: %v, want ErrNotFound", err)
	}

	// Close stops the goroutine (goleak checks) and closes the store.
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := st.List(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("List after the janitor closed: %v, want ErrClosed", err)
	}
}

// TestJanitorSweepSparesNewActivity: a session that Stale listed but that a turn
// appended to since is not removed.
func TestJanitorSweepSparesNewActivity(t *testing.T) {
	ctx := t.Context()
	st := &appendOnStale{Memory: NewMemory()}
	j := NewJanitor(st, &JanitorOptions{Timeout: time.Hour})
	t.Cleanup(func() { _ = j.Close() })
	s := &Session{LastActive: time.Now().Add(-2 * time.Hour)}
	if err := j.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	st.id = s.ID
	removed, err := j.Sweep(ctx)
	if err != nil || len(removed) != 0 {
		t.Fatalf("Sweep = %q, %v; want nothing removed", removed, err)
	}
	if _, err := st.Get(ctx, s.ID); err != nil {
		t.Fatalf("the session active since Stale was removed: %v", err)
	}
}

// appendOnStale appends to session id right after each Stale, as a turn that
// arrives during a sweep does.
type appendOnStale struct {
	*Memory
	id string
}

func (a *appendOnStale) Stale(ctx context.Context, before time.Time) ([]string, error) {
	ids, err := a.Memory.Stale(ctx, before)
	if err == nil {
		err = a.Memory.Append(ctx, a.id, llm.Usage{}, llm.Message{Role: llm.RoleUser, Text: "back"})
	}
	return ids, err
}

func TestJanitorDefaults(t *testing.T) {
	j := NewJanitor(NewMemory(), nil)
	t.Cleanup(func() { _ = j.Close() })
	if j.opts.Timeout != DefaultTimeout || DefaultTimeout != time.Hour {
		t.Errorf("default timeout %v, want DefaultTimeout (1 h)", j.opts.Timeout)
	}
	off := NewJanitor(NewMemory(), &JanitorOptions{Timeout: -1})
	if err := off.Close(); err != nil {
		t.Error(err)
	}
}
