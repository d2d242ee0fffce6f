package upstream

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is one live connection (one attempt that succeeded): the session, the child
// process for stdio, and how it ended.
type conn struct {
	client      *mcp.Client
	sess        *mcp.ClientSession
	proc        *process        // stdio only
	writes      *countingWriter // stdio only: the child's stdin
	listChanged chan struct{}   // wakes the watcher: pending has bits
	pending     atomic.Uint32   // lists to fetch again (listTools | listResources | listPrompts)
	// notesRead and notesHandled count ordered notifications (see order.go).
	notesRead, notesHandled atomic.Int64
	noteSignal              chan struct{}
	// ctx lives as long as the connection: HTTP transports tie their streams to it.
	ctx    context.Context
	cancel context.CancelFunc
	// calls ends when the connection is given up or its supervisor closes, before
	// the session is closed: the requests under way end with it (see bound).
	calls    context.Context
	endCalls context.CancelFunc
	// requests counts the requests under way (see bound); when close finds some,
	// settled is closed once they have returned.
	reqMu    sync.Mutex
	requests int
	settled  chan struct{}

	mu     sync.Mutex
	dead   chan struct{}
	reason string
	// refused is the first HTTP error of the attempt that no retry heals (see
	// permanentHTTP), kept because the SDK may not pass it on as it was.
	refused error
}

// refuse records err as the reason the attempt cannot succeed, if it is the first.
func (c *conn) refuse(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refused == nil {
		c.refused = err
	}
}

func (c *conn) refusal() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}

func newConn(parent context.Context) *conn {
	ctx, cancel := context.WithCancel(parent)
	calls, endCalls := context.WithCancel(parent)
	return &conn{dead: make(chan struct{}), listChanged: make(chan struct{}, 1), noteSignal: make(chan struct{}, 1),
		ctx: ctx, cancel: cancel, calls: calls, endCalls: endCalls}
}

// bound returns ctx for a request on c, ended also when c is given up (markDead) or
// its supervisor closes; stop releases it. Over HTTP nothing else would end it: the
// request would wait for its answer, up to the tool timeout, after its connection
// was given up or its hub closed, and closing the session waits for it.
func (c *conn) bound(ctx context.Context) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(c.calls, cancel)
	c.reqMu.Lock()
	c.requests++
	c.reqMu.Unlock()
	return ctx, func() {
		unhook()
		cancel()
		c.reqMu.Lock()
		if c.requests--; c.requests == 0 && c.settled != nil {
			close(c.settled)
			c.settled = nil
		}
		c.reqMu.Unlock()
	}
}

// requestsSettled is closed once no request made with bound is under way.
func (c *conn) requestsSettled() <-chan struct{} {
	c.reqMu.Lock()
	defer c.reqMu.Unlock()
	ch := make(chan struct{})
	if c.requests == 0 {
		close(ch)
	} else {
		c.settled = ch
	}
	return ch
}

// listsChanged records that the server said some of its lists changed.
func (c *conn) listsChanged(bits uint32) {
	c.pending.Or(bits)
	select {
	case c.listChanged <- struct{}{}:
	default:
	}
}

func (c *conn) markDead(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.dead:
	default:
		c.reason = reason
		close(c.dead)
		c.endCalls()
	}
}

func (c *conn) isDead() bool {
	select {
	case <-c.dead:
		return true
	default:
		return false
	}
}

func (c *conn) deathReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reason == "" {
		return "connection closed"
	}
	return c.reason
}

// unstartedGrace is how long a stdio server that never completed initialize gets
// to exit after its stdin is closed, before SIGTERM: it has no session to wind
// down, and one that hangs in start-up (waiting on a network or on a prompt
// nobody sees) would otherwise hold the host's exit for the whole grace.
const unstartedGrace = 200 * time.Millisecond

// close tears the connection down: for stdio the process group first (which also
// breaks the session's pipes, failing calls still in flight), then the session.
func (c *conn) close(grace time.Duration) {
	c.markDead("closed")
	defer c.cancel()
	if c.proc != nil {
		first := grace
		if c.sess == nil {
			first = min(grace, unstartedGrace)
		}
		c.proc.stop(first, grace)
	}
	if c.sess == nil {
		return
	}
	wait, stop := context.WithTimeout(context.Background(), grace) // bounds both waits below
	defer stop()
	// The requests under way were ended by markDead: the SDK hands each its error at
	// once and sends the server its notifications/cancelled on a goroutine. Closing
	// the session only once they have returned keeps the closing (over HTTP, a
	// DELETE that the server may hold until its handlers end) off their goroutines.
	select {
	case <-c.requestsSettled():
	case <-wait.Done():
	}
	// Session.Close waits for calls in flight; over HTTP a hung server could hold it,
	// so the wait is bounded (each call has its own deadline anyway).
	done := make(chan struct{})
	go func() {
		c.sess.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-wait.Done():
	}
}

// countingWriter counts the successful writes to a child's stdin, so that a failed
// call can tell whether any byte was written since it began; and keeps the first
// write that failed, the child having closed its stdin: its size, and how many writes
// had succeeded before it (which request it was).
type countingWriter struct {
	w  io.WriteCloser
	ok atomic.Int64

	mu       sync.Mutex
	failed   int64 // the size of the first failed write; 0: none
	failedAt int64 // the count of successful writes before it
}

func (c *countingWriter) Write(p []byte) (int, error) {
	before := c.ok.Load()
	n, err := c.w.Write(p)
	if n > 0 {
		c.ok.Add(1)
	}
	if err != nil {
		c.mu.Lock()
		if c.failed == 0 {
			c.failed, c.failedAt = int64(len(p)), before
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *countingWriter) Close() error { return c.w.Close() }

// writeFailed returns the size of the message whose write to the child's stdin
// failed, when it was the first one written after since successful writes (the
// request of a call that began then); 0 if it was another, if none failed, or if
// the connection is not stdio. A server that exits after taking a request (a crash)
// fails a later write, not the request's.
func (c *conn) writeFailed(since int64) int64 {
	if c.writes == nil {
		return 0
	}
	c.writes.mu.Lock()
	defer c.writes.mu.Unlock()
	if c.writes.failedAt != since {
		return 0
	}
	return c.writes.failed
}

// written returns the count of successful writes (-1 for non-stdio connections).
func (c *conn) written() int64 {
	if c.writes == nil {
		return -1
	}
	return c.writes.ok.Load()
}
