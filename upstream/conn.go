package upstream

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
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

// Lists a server has; bits of conn.pending.
const (
	listTools uint32 = 1 << iota
	listResources
	listPrompts
)

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

// close tears the connection down: for stdio the process group first (which also
// breaks the session's pipes, failing calls still in flight), then the session.
func (c *conn) close(grace time.Duration) {
	c.markDead("closed")
	defer c.cancel()
	if c.proc != nil {
		c.proc.stop(grace)
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

// connect makes one connection attempt, bounded by the init timeout, and lists the
// server's tools. On success the supervisor is Ready.
func (s *Supervisor) connect() (*conn, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.EffectiveInitTimeout())
	defer cancel()
	c := newConn(s.ctx)
	transport, err := s.transport(c)
	if err != nil {
		c.cancel()
		c.endCalls()
		return nil, err
	}
	if c.proc != nil {
		// A child that dies during the handshake fails the attempt at once, not at
		// the init timeout.
		go func() {
			select {
			case <-c.proc.exited:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	client := mcp.NewClient(s.opts.ClientInfo, &mcp.ClientOptions{
		// What the client may do: nothing by default, so that servers such as
		// server-everything do not wait for roots; a gateway passes its clients' on.
		Capabilities: s.clientCapabilities(),
		// The middleware follows list changes; these handlers only make the SDK ask
		// for them in the 2026-07-28 era (subscriptions/listen).
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) {},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {},
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) {},
		// Input requests in results go to the Peer (roundTrips), not to handlers.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	client.AddReceivingMiddleware(s.middleware(c))
	client.AddSendingMiddleware(s.roundTrips(c))
	c.client = client
	sess, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: s.opts.ProtocolVersion})
	if err == nil {
		c.sess = sess
		var l lists
		if l, err = s.fetchLists(ctx, sess, listTools|listResources|listPrompts, nil); err == nil {
			s.restore(ctx, c)
			s.ready(c, l)
			s.watchDeath(c)
			return c, nil
		}
	}
	c.close(s.opts.StopGrace)
	return nil, s.attemptError(c, ctx, err)
}

// attemptError explains a failed attempt in the terms a user can act on.
func (s *Supervisor) attemptError(c *conn, ctx context.Context, err error) error {
	if refused := c.refusal(); refused != nil {
		return permanent(refused)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && s.ctx.Err() == nil {
		return fmt.Errorf("no answer to initialize within %s", s.cfg.EffectiveInitTimeout())
	}
	if c.proc != nil {
		select {
		case <-c.proc.exited:
			msg := "process " + c.proc.exitDescription() + " during start-up"
			if tail := s.tail.snapshot(); len(tail) > 0 {
				msg += ": " + tail[len(tail)-1]
			}
			return errors.New(msg)
		default:
		}
	}
	return err
}

// transport builds a fresh transport for one attempt; for stdio that means a fresh
// process.
func (s *Supervisor) transport(c *conn) (mcp.Transport, error) {
	switch s.cfg.Transport {
	case config.Stdio:
		p, err := startProcess(&s.cfg, s.log, s.tail)
		if err != nil {
			return nil, err
		}
		c.proc = p
		c.writes = &countingWriter{w: p.stdin}
		// MaxLineLength -1: a tool result may be far larger than the SDK's 16 MiB cap.
		return &mcp.IOTransport{Reader: newJSONLines(p.stdout, s.log, c), Writer: c.writes, MaxLineLength: -1}, nil
	case config.HTTP, config.SSE:
		// config checks the scheme too; a Server built in code may skip config.
		u, err := url.Parse(s.cfg.URL)
		if err != nil {
			return nil, permanent(fmt.Errorf("url does not parse: %v", errors.Unwrap(err)))
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return nil, permanent(fmt.Errorf("url: unsupported scheme %q (want http or https)", u.Scheme))
		}
	}
	switch s.cfg.Transport {
	case config.HTTP:
		return &connScoped{&mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient(c), MaxEventSize: -1}, c}, nil
	case config.SSE:
		return &connScoped{&mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient(c), MaxEventSize: -1}, c}, nil
	}
	return nil, permanent(fmt.Errorf("unknown transport %q", s.cfg.Transport))
}

// permanentError is an attempt's error that the next attempts of the series would meet
// again (a missing command, a certificate nobody trusts): the supervisor fails the
// server at once instead of backing off, and leaves healing to RetryFailed (the user
// may install the command meanwhile). Everything else (refused connections, timeouts,
// a process that exits, HTTP 5xx) is retried with backoff.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

func isPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// permanentStart reports whether starting a process failed for a reason in the
// file system that a retry meets again: the executable or its interpreter is missing
// (ENOENT), not executable or on a noexec mount (EACCES), not a program (ENOEXEC,
// exec format error), or a path is not a directory, loops or is too long. Resource
// shortages (EAGAIN, ENOMEM, EMFILE) and a binary being written (ETXTBSY) pass.
func permanentStart(err error) bool {
	for _, errno := range []syscall.Errno{syscall.ENOENT, syscall.EACCES, syscall.ENOEXEC,
		syscall.ENOTDIR, syscall.EISDIR, syscall.ELOOP, syscall.ENAMETOOLONG} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// permanentHTTP reports whether an HTTP request failed because the server's
// certificate does not verify: untrusted, expired, or for another name. A server
// that is down or overloaded answers otherwise.
func permanentHTTP(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &hostname)
}

// countingWriter counts the successful writes to a child's stdin, so that a failed
// call can tell whether any byte was written since it began.
type countingWriter struct {
	w  io.WriteCloser
	ok atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if n > 0 {
		c.ok.Add(1)
	}
	return n, err
}

func (c *countingWriter) Close() error { return c.w.Close() }

// written returns the count of successful writes (-1 for non-stdio connections).
func (c *conn) written() int64 {
	if c.writes == nil {
		return -1
	}
	return c.writes.ok.Load()
}

// connScoped connects a transport under the connection's own context instead of the
// attempt's. The SSE client opens its event stream with the context given to Connect,
// so the attempt's timeout context would cut the stream as soon as the attempt ends.
// The attempt's deadline still bounds the wait.
type connScoped struct {
	mcp.Transport
	c *conn
}

func (t *connScoped) Connect(ctx context.Context) (mcp.Connection, error) {
	type result struct {
		conn mcp.Connection
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		conn, err := t.Transport.Connect(t.c.ctx)
		ch <- result{conn, err}
	}()
	select {
	case r := <-ch:
		return r.conn, r.err
	case <-ctx.Done():
		t.c.cancel()
		if r := <-ch; r.conn != nil {
			r.conn.Close()
		}
		return nil, ctx.Err()
	}
}

// httpClient is the HTTP client of connection notes, which counts the ordered
// notifications in its event streams (see order.go).
func (s *Supervisor) httpClient(notes *conn) *http.Client {
	return &http.Client{Transport: &headerTransport{headers: s.cfg.Headers, base: s.httpBase, notes: notes}}
}

// newHTTPBase is a server's own connection pool. It keeps up to 64 idle
// connections (http.DefaultTransport keeps 2 per host, so 16 concurrent calls
// opened a new TCP connection for every other call).
func newHTTPBase() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 64
	t.MaxIdleConnsPerHost = 64
	return t
}

// headerTransport sends the configured headers on every request, and has notes
// count the ordered notifications in event streams.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
	notes   *conn
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	resp, err := lingerRoundTrip(t.base, r)
	if err != nil && permanentHTTP(err) {
		t.notes.refuse(err)
	}
	if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &noteCounter{ReadCloser: resp.Body, c: t.notes}
	}
	return resp, err
}

// lists are what a server offers, as last listed.
type lists struct {
	tools     []*mcp.Tool
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
}

// fetchLists lists what the bits ask for (every page), keeping prev's other lists.
// Resources and prompts are listed only when the server has them. A failed
// tools/list is an error; failed resource or prompt lists are only logged (the
// server still serves its tools).
func (s *Supervisor) fetchLists(ctx context.Context, sess *mcp.ClientSession, bits uint32, prev *lists) (lists, error) {
	var l lists
	if prev != nil {
		l = *prev
	}
	caps := &mcp.ServerCapabilities{}
	if r := sess.InitializeResult(); r != nil && r.Capabilities != nil {
		caps = r.Capabilities
	}
	var err error
	if bits&listTools != 0 {
		if l.tools, err = collect(sess.Tools(ctx, nil)); err != nil {
			return l, fmt.Errorf("tools/list: %w", err)
		}
	}
	soft := func(what string, err error) {
		s.log.Warn(what+" failed; serving the server without them", "err", s.redact(err.Error()))
	}
	if bits&listResources != 0 && caps.Resources != nil {
		if l.resources, err = collect(sess.Resources(ctx, nil)); err != nil {
			soft("resources/list", err)
		}
		if l.templates, err = collect(sess.ResourceTemplates(ctx, nil)); err != nil {
			soft("resources/templates/list", err)
		}
	}
	if bits&listPrompts != 0 && caps.Prompts != nil {
		if l.prompts, err = collect(sess.Prompts(ctx, nil)); err != nil {
			soft("prompts/list", err)
		}
	}
	return l, nil
}

func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (s *Supervisor) ready(c *conn, l lists) {
	s.mu.Lock()
	s.cur, s.lists, s.info = c, l, c.sess.InitializeResult()
	s.mu.Unlock()
	s.setState(Ready, fmt.Sprintf("%d tools", len(l.tools)))
}

// watchDeath marks c dead as soon as its session ends or its process exits. When
// both happen, the process's exit status is the better explanation.
func (s *Supervisor) watchDeath(c *conn) {
	go func() {
		c.sess.Wait()
		if c.proc != nil {
			select {
			case <-c.proc.exited:
				c.markDead("process " + c.proc.exitDescription())
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
		c.markDead("connection closed by the server")
	}()
	if c.proc != nil {
		go func() {
			select {
			case <-c.proc.exited:
				c.markDead("process " + c.proc.exitDescription())
			case <-c.dead:
			}
		}()
	}
}

// watch blocks while c is healthy and returns why it stopped being so. It sends the
// heartbeats and follows tools/list_changed.
func (s *Supervisor) watch(c *conn) string {
	interval := s.cfg.Heartbeat
	if interval == 0 {
		interval = s.opts.Heartbeat
	}
	var tick <-chan time.Time
	if interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	defer debounce.Stop()
	misses := 0
	for {
		select {
		case <-s.ctx.Done():
			return "closed"
		case <-c.dead:
			return c.deathReason()
		case <-tick:
			if err := s.probe(c, interval/2); err != nil {
				misses++
				s.log.Warn("heartbeat missed", "misses", misses, "err", err)
				if misses >= s.opts.HeartbeatMisses {
					return fmt.Sprintf("heartbeat: %d probes in a row failed (%v)", misses, err)
				}
			} else {
				misses = 0
			}
		case <-c.listChanged:
			debounce.Reset(s.opts.ListChangedDebounce)
		case <-debounce.C:
			s.relist(c, c.pending.Swap(0))
		}
	}
}

// probe checks that the server answers. Any JSON-RPC response proves it alive, so a
// server of the 2026-07-28 era, which has no ping, answering with an error is healthy
// too. Only silence (the timeout) or a broken transport is a miss.
func (s *Supervisor) probe(c *conn, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	err := c.sess.Ping(ctx, nil)
	var rpcErr *jsonrpc.Error
	if err == nil || errors.As(err, &rpcErr) {
		return nil
	}
	return err
}

func (s *Supervisor) relist(c *conn, bits uint32) {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.EffectiveInitTimeout())
	defer cancel()
	s.mu.Lock()
	prev := s.lists
	s.mu.Unlock()
	l, err := s.fetchLists(ctx, c.sess, bits, &prev)
	if err != nil {
		s.log.Warn("re-listing after list_changed failed", "err", err)
		return
	}
	s.mu.Lock()
	s.lists = l
	s.mu.Unlock()
	e := Event{Server: s.cfg.Name, State: Ready}
	if bits&listTools != 0 {
		e.ToolsChanged = true
		s.log.Info("tools changed", "tools", len(l.tools))
	}
	if bits&listResources != 0 {
		e.ResourcesChanged = true
		s.log.Info("resources changed", "resources", len(l.resources), "templates", len(l.templates))
	}
	if bits&listPrompts != 0 {
		e.PromptsChanged = true
		s.log.Info("prompts changed", "prompts", len(l.prompts))
	}
	s.emit(e)
}
