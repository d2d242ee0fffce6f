package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultTimeout is JanitorOptions.Timeout's default (and the config's
// "sessions.timeout"): a chat session idle this long is removed. From Logicore.
const DefaultTimeout = time.Hour

// JanitorOptions configure a Janitor; the zero value is usable.
type JanitorOptions struct {
	// Timeout: a session idle (no Append) longer than this is removed. Default
	// [DefaultTimeout] (1 h); negative never removes any.
	Timeout time.Duration
	// OnCreate is called after a session is created, with the session as stored.
	OnCreate func(s *Session)
	// OnDestroy is called after a session is removed: by Destroy, or for idling.
	OnDestroy func(id string)
	// Logger receives a line for each session removed for idling and each failed
	// sweep; nil is silent.
	Logger *slog.Logger
}

// Janitor owns a Store: it creates and destroys sessions with their callbacks, and
// runs a goroutine that removes the sessions idle longer than Timeout, checking every
// min(Timeout/4, 1 min). A session whose turn is held is never removed. Close stops
// the goroutine, waits for it, and closes the Store.
type Janitor struct {
	store Store
	opts  JanitorOptions

	stop   context.CancelFunc
	done   chan struct{}
	once   sync.Once
	sweeps atomic.Int64 // sweeps finished, for tests
}

// NewJanitor starts a Janitor over store, which it now owns.
func NewJanitor(store Store, opts *JanitorOptions) *Janitor {
	j := &Janitor{store: store, done: make(chan struct{})}
	if opts != nil {
		j.opts = *opts
	}
	if j.opts.Timeout == 0 {
		j.opts.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	j.stop = cancel
	if j.opts.Timeout < 0 {
		close(j.done)
		return j
	}
	go j.run(ctx, min(j.opts.Timeout/4, time.Minute))
	return j
}

// Store is the store the Janitor owns, for everything else (Get, Append, Acquire …).
func (j *Janitor) Store() Store { return j.store }

// Create creates s (see Store.Create), then calls OnCreate.
func (j *Janitor) Create(ctx context.Context, s *Session) error {
	if err := j.store.Create(ctx, s); err != nil {
		return err
	}
	if j.opts.OnCreate != nil {
		j.opts.OnCreate(s)
	}
	return nil
}

// Destroy deletes session id (ErrBusy while a turn holds it), then calls OnDestroy.
func (j *Janitor) Destroy(ctx context.Context, id string) error {
	if err := j.store.Delete(ctx, id); err != nil {
		return err
	}
	if j.opts.OnDestroy != nil {
		j.opts.OnDestroy(id)
	}
	return nil
}

func (j *Janitor) run(ctx context.Context, every time.Duration) {
	defer close(j.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := j.Sweep(ctx); err != nil && ctx.Err() == nil && j.opts.Logger != nil {
				j.opts.Logger.Warn("session janitor: sweep failed", "err", err)
			}
			j.sweeps.Add(1)
		}
	}
}

// Sweep removes the sessions idle longer than Timeout now, and returns their ids. The
// goroutine calls it; call it yourself to sweep at a time of your choosing.
func (j *Janitor) Sweep(ctx context.Context) ([]string, error) {
	if j.opts.Timeout < 0 {
		return nil, nil
	}
	cutoff := time.Now().Add(-j.opts.Timeout)
	ids, err := j.store.Stale(ctx, cutoff)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, id := range ids {
		ok, err := j.removeIdle(ctx, id, cutoff)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			removed = append(removed, id)
		}
	}
	return removed, errors.Join(errs...)
}

// removeIdle removes session id if it is still idle and no turn holds it. Taking the
// turn first means a turn that appended since Stale looked is seen (LastActive moved)
// and one running now keeps its session (ErrBusy).
func (j *Janitor) removeIdle(ctx context.Context, id string, cutoff time.Time) (bool, error) {
	release, err := j.store.Acquire(ctx, id)
	if errors.Is(err, ErrBusy) || errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s, err := j.store.Get(ctx, id)
	release()
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !s.LastActive.Before(cutoff) {
		return false, nil
	}
	// Delete refuses (ErrBusy) if a turn began since the release.
	if err := j.store.Delete(ctx, id); err != nil {
		if errors.Is(err, ErrBusy) || errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return false, fmt.Errorf("remove idle session: %w", err)
	}
	if j.opts.Logger != nil {
		j.opts.Logger.Info("session removed after idling", "session", id, "lastActive", s.LastActive, "timeout", j.opts.Timeout)
	}
	if j.opts.OnDestroy != nil {
		j.opts.OnDestroy(id)
	}
	return true, nil
}

// Close stops the sweeping goroutine, waits for it, and closes the Store. A second
// Close does nothing.
func (j *Janitor) Close() error {
	var err error
	j.once.Do(func() {
		j.stop()
		<-j.done
		err = j.store.Close()
	})
	return err
}
