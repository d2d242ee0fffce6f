// Package usage keeps how the tools are used over time: a record of every tool call
// (when, which tool of which server, for whom, from where, how long, how it ended)
// in the session store, and the figures over time that GET /v1/usage and the
// dashboard's Usage view show: counts, errors and the median and 95th percentile
// of the duration, per tool, server, person or source and per time bucket.
//
// A Recorder takes each call's record from the hub (hub.Hub.SetUsage) without
// making the call wait on the store: records go to a bounded buffer that one
// goroutine writes in batches, and that it drops (and counts) when the store
// cannot keep up rather than slow the calls down. The same goroutine removes the
// records older than the retention. See docs/api.md for the figures' wire format.
package usage

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
)

// DefaultRetention is how long the records are kept when Options.Retention is 0.
const DefaultRetention = 30 * 24 * time.Hour

// Defaults of Options.
const (
	defaultBuffer   = 4096
	defaultBatch    = 256
	defaultInterval = time.Second
	pruneEvery      = time.Hour
	writeTimeout    = 10 * time.Second
)

// Options tune a Recorder; the zero value is the defaults.
type Options struct {
	// Retention is how long a record is kept; 0: DefaultRetention.
	Retention time.Duration
	// Log gets the failures to write or prune (never a record's content); nil:
	// slog.Default().
	Log *slog.Logger
	// Buffer bounds the records waiting to be written; Interval is the longest a
	// record waits before its batch is written. 0: 4096 and 1 s.
	Buffer   int
	Interval time.Duration
}

// Recorder writes calls' records to a store in batches. Its methods are safe for
// concurrent use; Close stops its goroutine.
type Recorder struct {
	store     session.UsageStore
	log       *slog.Logger
	retention time.Duration
	interval  time.Duration
	in        chan session.Call
	flush     chan chan error
	quit      chan struct{}
	done      chan struct{}
	dropped   atomic.Int64
	closeOnce sync.Once
	now       func() time.Time
}

// NewRecorder starts a Recorder over store: its goroutine runs until Close. opts
// nil means the defaults.
func NewRecorder(store session.UsageStore, opts *Options) *Recorder {
	if opts == nil {
		opts = &Options{}
	}
	r := &Recorder{
		store:     store,
		log:       opts.Log,
		retention: opts.Retention,
		interval:  opts.Interval,
		flush:     make(chan chan error),
		quit:      make(chan struct{}),
		done:      make(chan struct{}),
		now:       time.Now,
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.retention <= 0 {
		r.retention = DefaultRetention
	}
	if r.interval <= 0 {
		r.interval = defaultInterval
	}
	n := opts.Buffer
	if n <= 0 {
		n = defaultBuffer
	}
	r.in = make(chan session.Call, n)
	go r.run()
	return r
}

type sourceKey struct{}

// WithSource returns ctx whose calls are recorded as coming from source
// (session.SourceAPI …). A call of a context without one is recorded as the
// CLI's.
func WithSource(ctx context.Context, source string) context.Context {
	return context.WithValue(ctx, sourceKey{}, source)
}

// SourceOf is the source WithSource put in ctx, session.SourceCLI without one.
func SourceOf(ctx context.Context) string {
	if s, ok := ctx.Value(sourceKey{}).(string); ok {
		return s
	}
	return session.SourceCLI
}

// PersonOf is whom a call of ctx is recorded for: the person's subject, "key:ID"
// for an application key without one, "" without a person.
func PersonOf(ctx context.Context) string {
	p, _ := identity.FromContext(ctx)
	if p.Subject == "" && p.KeyID != "" {
		return "key:" + p.KeyID
	}
	return p.Subject
}

// Record takes one call's record (its Time, Tool, Server, Duration and Outcome;
// the person and the source come from ctx) without waiting: when the buffer is
// full, the record is dropped and counted (Dropped).
func (r *Recorder) Record(ctx context.Context, c session.Call) {
	c.Person, c.Source = PersonOf(ctx), SourceOf(ctx)
	select {
	case r.in <- c:
	default:
		if r.dropped.Add(1) == 1 {
			r.log.Warn("usage: the store does not keep up with the calls; records are dropped (counted in switchboard_usage_dropped_total)")
		}
	}
}

// Dropped is how many records the full buffer dropped since the start.
func (r *Recorder) Dropped() int64 { return r.dropped.Load() }

// errClosed is Flush's error once the Recorder is closed.
var errClosed = errors.New("usage: recorder closed")

// Flush writes the records taken so far, and returns once they are in the store:
// a report read after it counts every call recorded before it.
func (r *Recorder) Flush(ctx context.Context) error {
	ack := make(chan error, 1)
	select {
	case r.flush <- ack:
	case <-r.done:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-ack:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes what is buffered and stops the goroutine. It does not close the
// store.
func (r *Recorder) Close() error {
	r.closeOnce.Do(func() { close(r.quit) })
	<-r.done
	return nil
}

func (r *Recorder) run() {
	defer close(r.done)
	tick := time.NewTicker(r.interval)
	defer tick.Stop()
	r.prune()
	lastPrune := r.now()
	batch := make([]session.Call, 0, defaultBatch)
	write := func() error {
		err := r.write(batch)
		batch = batch[:0]
		return err
	}
	for {
		select {
		case c := <-r.in:
			if batch = append(batch, c); len(batch) >= defaultBatch {
				write() //nolint:errcheck // logged by write
			}
		case <-tick.C:
			write() //nolint:errcheck
			if r.now().Sub(lastPrune) >= pruneEvery {
				r.prune()
				lastPrune = r.now()
			}
		case ack := <-r.flush:
			batch = r.drain(batch)
			ack <- write()
		case <-r.quit:
			batch = r.drain(batch)
			write() //nolint:errcheck
			return
		}
	}
}

// drain appends every record waiting in the buffer to batch.
func (r *Recorder) drain(batch []session.Call) []session.Call {
	for {
		select {
		case c := <-r.in:
			batch = append(batch, c)
		default:
			return batch
		}
	}
}

func (r *Recorder) write(batch []session.Call) error {
	if len(batch) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	err := r.store.AddCalls(ctx, batch)
	if err != nil {
		r.log.Warn("usage: records not kept", "calls", len(batch), "err", err)
	}
	return err
}

func (r *Recorder) prune() {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	n, err := r.store.PruneCalls(ctx, r.now().Add(-r.retention))
	switch {
	case err != nil:
		r.log.Warn("usage: old records not removed", "err", err)
	case n > 0:
		r.log.Debug("usage: old records removed", "calls", n, "retention", r.retention)
	}
}
