package upstream

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/logging"
	"github.com/switchboard-mcp/switchboard/redact"
	"github.com/switchboard-mcp/switchboard/relay"
	"github.com/switchboard-mcp/switchboard/telemetry"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Options tune a Supervisor. The zero value (or nil) gives the defaults, declared in
// defaults.go with where each comes from.
type Options struct {
	Logger *slog.Logger // nil discards the logs
	// ClientInfo is sent to the server as the client implementation.
	ClientInfo *mcp.Implementation
	// Attempts before a server is marked failed (default [DefaultAttempts]).
	Attempts int
	// BackoffBase and BackoffMax bound the exponential backoff between attempts
	// (defaults [DefaultBackoffBase] and [DefaultBackoffMax]); each
	// delay gets ±20% jitter.
	BackoffBase, BackoffMax time.Duration
	// Heartbeat is the health-check interval when the server config has none
	// (default [DefaultHeartbeat]); negative disables heartbeats.
	Heartbeat time.Duration
	// HeartbeatMisses is how many probes in a row may fail before reconnecting
	// (default [DefaultHeartbeatMisses]).
	HeartbeatMisses int
	// RetryFailed is how often a failed server is tried again (default
	// [DefaultRetryFailed]); negative disables.
	RetryFailed time.Duration
	// StopGrace bounds each step of a stdio shutdown (default [DefaultStopGrace]).
	StopGrace time.Duration
	// ListChangedDebounce coalesces bursts of tools/list_changed (default
	// [DefaultListChangedDebounce]).
	ListChangedDebounce time.Duration
	// ProtocolVersion is the MCP version asked for at connect (default
	// [DefaultProtocolVersion]); a server's config's ProtocolVersion wins over it.
	// "latest" asks for the SDK's newest.
	ProtocolVersion string
	// Peer, if set, receives server-to-client requests and notifications (a
	// gateway forwards them to its clients). Without one, requests get the SDK's
	// default answers and notifications are dropped.
	Peer relay.Peer
	// Capabilities are announced to servers at connect (default none; see
	// Supervisor.SetCapabilities).
	Capabilities *mcp.ClientCapabilities
	// OnEvent, if set, is called (from the supervisor's goroutine; keep it quick) on
	// every state change and every change of the tool list.
	OnEvent func(Event)
	// Redactor masks secrets in the server's stderr lines, its errors and the log
	// lines about it; nil: one of the supervisor's own that knows the server's
	// environment, header and URL secrets (a hub passes its own, which knows the
	// whole config's).
	Redactor *redact.Redactor
	// OAuth, if set, gives an HTTP or SSE server the handler that signs in to it
	// when it asks (signin.Handlers.For); nil for a server that needs none. nil: no
	// server is signed in to, and a 401 is an error that names the "headers".
	OAuth func(config.Server) auth.OAuthHandler
	// Log, if set, is where the supervisor logs the server's stderr, its state
	// changes and the rest ([Log]): a hub passes one per server name, which outlives
	// the supervisor when the server is restarted. nil: a new one of
	// [DefaultLogEntries].
	Log *Log
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler) // a library stays quiet unless given a logger
	}
	if r.ClientInfo == nil {
		r.ClientInfo = &mcp.Implementation{Name: "switchboard", Version: "0.1.0"}
	}
	setDefault(&r.Attempts, DefaultAttempts)
	setDefault(&r.HeartbeatMisses, DefaultHeartbeatMisses)
	setDefault(&r.BackoffBase, DefaultBackoffBase)
	setDefault(&r.BackoffMax, DefaultBackoffMax)
	setDefault(&r.Heartbeat, DefaultHeartbeat)
	setDefault(&r.RetryFailed, DefaultRetryFailed)
	setDefault(&r.StopGrace, DefaultStopGrace)
	setDefault(&r.ListChangedDebounce, DefaultListChangedDebounce)
	switch r.ProtocolVersion {
	case "":
		r.ProtocolVersion = DefaultProtocolVersion
	case "latest":
		r.ProtocolVersion = ""
	}
	return r
}

func setDefault[T int | time.Duration](v *T, d T) {
	if *v == 0 {
		*v = d
	}
}

// Supervisor owns one connection to one MCP server and keeps it healthy: it connects
// with retries, watches the process and the transport, sends heartbeats, reconnects,
// follows tools/list_changed, and shuts everything down on Close.
type Supervisor struct {
	cfg  config.Server
	opts Options
	log  *slog.Logger
	tail *ring
	logs *Log     // Options.Log, or the supervisor's own
	junk *junkLog // stdout lines dropped, across connections
	// pending are the server's log messages waiting for the logWriter (log.go).
	pending messageQueue

	mu       sync.Mutex
	state    State
	since    time.Time
	lastErr  string
	restarts int
	cur      *conn // the live connection; non-nil only while Ready
	lists    lists // what the server offers, as last listed
	info     *mcp.InitializeResult
	changed  tool.Notifier // wakes callers waiting for a state change
	caps     *mcp.ClientCapabilities
	logLevel mcp.LoggingLevel    // asked for by SetLogLevel; "" = never set
	subs     map[string]struct{} // resource URIs subscribed to

	inflight inflight        // calls under way, for the Peer's context
	httpBase *http.Transport // HTTP and SSE servers: the connection pool
	oauth    auth.OAuthHandler
	retry    chan struct{} // Retry wakes a failed server, or one that needs a sign-in

	ctx     context.Context
	cancel  context.CancelFunc
	started bool
	done    chan struct{} // closed when the run goroutine returns
	settled chan struct{} // closed once the first start-up cycle is over
	once    sync.Once
}

// New returns a supervisor for cfg. Nothing runs until Start.
func New(cfg config.Server, opts *Options) *Supervisor {
	o := opts.withDefaults()
	if o.Redactor == nil {
		o.Redactor = &redact.Redactor{}
		o.Redactor.Add((&config.Config{Servers: []config.Server{cfg}}).Secrets()...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(o.Redactor.Handler(o.Logger.Handler())).With(logging.KeyServer, cfg.Name)
	s := &Supervisor{
		cfg:     cfg,
		opts:    o,
		log:     log,
		tail:    newRing(100),
		logs:    o.Log,
		junk:    newJunkLog(log, junkBurst, junkInterval),
		state:   Connecting,
		since:   time.Now(),
		ctx:     ctx,
		cancel:  cancel,
		done:    make(chan struct{}),
		settled: make(chan struct{}),
		caps:    o.Capabilities,
		subs:    map[string]struct{}{},
		retry:   make(chan struct{}, 1),
	}
	if s.logs == nil {
		s.logs = NewLog(DefaultLogEntries)
	}
	if cfg.Disabled {
		s.state = Disabled
	}
	if cfg.Transport == config.HTTP || cfg.Transport == config.SSE {
		s.httpBase = newHTTPBase()
		if o.OAuth != nil {
			s.oauth = o.OAuth(cfg)
		}
	}
	return s
}

// Name is the configured server name.
func (s *Supervisor) Name() string { return s.cfg.Name }

// Config is the server's configuration.
func (s *Supervisor) Config() config.Server { return s.cfg }

// Start begins connecting in the background. A disabled server does nothing.
func (s *Supervisor) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.state == Closed {
		return
	}
	s.started = true
	if s.cfg.Disabled {
		s.logState("", Disabled, "disabled in the config")
		close(s.done)
		s.settle()
		return
	}
	s.log.Info("connecting", "transport", s.cfg.Transport)
	s.logState("", Connecting, "starting ("+string(s.cfg.Transport)+")")
	go s.run()
}

// Settled returns a channel closed when the first start-up cycle is over: the server
// is ready, failed, disabled or closed.
func (s *Supervisor) Settled() <-chan struct{} { return s.settled }

func (s *Supervisor) settle() { s.once.Do(func() { close(s.settled) }) }

// Close stops the server and waits for everything it started to end.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	started := s.started
	s.started = true // a Start after Close does nothing
	s.mu.Unlock()
	s.cancel()
	if started {
		<-s.done
	}
	s.junk.close()
	if s.httpBase != nil {
		s.httpBase.CloseIdleConnections()
	}
	if started {
		s.setState(Closed, "closed")
	} else {
		// Nothing ran: an INFO "connecting → closed" would say a server was started.
		s.setStateAt(Closed, "closed", slog.LevelDebug)
	}
	s.settle()
	return nil
}

// Lists is a server's state and what it offers, as last listed, read at one moment.
type Lists struct {
	State     State
	Tools     []*mcp.Tool
	Prompts   []*mcp.Prompt
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
}

// Lists returns the server's state and lists together, so that they agree with one
// another (nil lists unless it has been ready).
func (s *Supervisor) Lists() Lists {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Lists{State: s.state, Tools: s.lists.tools, Prompts: s.lists.prompts, Resources: s.lists.resources, Templates: s.lists.templates}
}

// Capabilities are the server's, as announced at its last connect (nil before).
func (s *Supervisor) Capabilities() *mcp.ServerCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.info == nil {
		return nil
	}
	return s.info.Capabilities
}

// State is the current lifecycle state.
func (s *Supervisor) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Status reports the server's state for display.
func (s *Supervisor) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{
		Name:      s.cfg.Name,
		State:     s.state,
		Transport: s.cfg.Transport,
		Tools:     len(s.lists.tools),
		Resources: len(s.lists.resources),
		Templates: len(s.lists.templates),
		Prompts:   len(s.lists.prompts),
		Since:     s.since,
		Restarts:  s.restarts,
		LastError: s.lastErr,
		Stderr:    s.tail.snapshot(),
	}
	if s.info != nil {
		st.Protocol = s.info.ProtocolVersion
		if s.info.ServerInfo != nil {
			st.ServerName, st.ServerVersion = s.info.ServerInfo.Name, s.info.ServerInfo.Version
		}
	}
	return st
}

func (s *Supervisor) setState(st State, reason string) {
	level := slog.LevelInfo
	if st == Failed || st == Reconnecting || st == NeedsSignIn {
		level = slog.LevelWarn
	}
	s.setStateAt(st, reason, level)
}

// setStateAt is setState logging the change at level.
func (s *Supervisor) setStateAt(st State, reason string, level slog.Level) {
	s.mu.Lock()
	if s.state == st || s.state == Closed {
		s.mu.Unlock()
		return
	}
	prev := s.state
	s.state, s.since = st, time.Now()
	if st == Failed || st == Reconnecting || st == NeedsSignIn {
		s.lastErr = reason
	}
	s.mu.Unlock()
	s.changed.Notify()
	s.log.Log(context.Background(), level, "state "+string(prev)+" → "+string(st), "reason", reason)
	s.logState(prev, st, reason)
	// Entering Ready always follows a fresh tools/list.
	s.emit(Event{Server: s.cfg.Name, State: st, Reason: reason, ToolsChanged: st == Ready})
}

func (s *Supervisor) emit(e Event) {
	if s.opts.OnEvent != nil {
		s.opts.OnEvent(e)
	}
}

// run is the supervisor's goroutine: connect, watch, reconnect, until Close (and its
// logWriter's, which logs the server's log messages).
func (s *Supervisor) run() {
	defer close(s.done)
	defer s.logWriter()()
	failures := 0
	for s.ctx.Err() == nil {
		c, err := s.connect()
		if err != nil {
			if s.ctx.Err() != nil {
				return
			}
			failures++
			msg := s.redact(err.Error())
			s.mu.Lock()
			s.lastErr = msg
			s.mu.Unlock()
			if errors.As(err, new(*signInError)) {
				// Nothing heals by itself: no backoff, no attempts counted. The
				// others are served meanwhile; this one connects once signed in.
				s.setState(NeedsSignIn, msg)
				s.settle()
				if !s.awaitSignIn() {
					return
				}
				failures = 0
				s.setState(Connecting, "trying again after a sign-in")
				continue
			}
			final := isPermanent(err)
			if final {
				s.log.Warn("connection attempt failed; not retrying, the next attempt would fail the same way", "attempt", failures, "err", msg)
				s.logNotice(fmt.Sprintf("connection attempt %d failed (not retried: the next would fail the same way): %s", failures, msg))
			} else {
				s.log.Warn("connection attempt failed", "attempt", failures, "of", s.opts.Attempts, "err", msg)
				s.logNotice(fmt.Sprintf("connection attempt %d of %d failed: %s", failures, s.opts.Attempts, msg))
			}
			if failures < s.opts.Attempts && !final {
				if !s.sleep(s.backoff(failures)) {
					return
				}
				continue
			}
			s.setState(Failed, msg)
			s.settle()
			if !s.sleepFailed() {
				return
			}
			failures = 0
			s.setState(Connecting, "retrying failed server")
			continue
		}
		failures = 0
		s.settle()
		reason := s.watch(c)
		s.mu.Lock()
		s.cur = nil
		s.mu.Unlock()
		c.close(s.opts.StopGrace)
		if s.ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		s.restarts++
		s.mu.Unlock()
		s.setState(Reconnecting, reason)
		failures = 1 // the lost connection counts as the first failure of this cycle
		if !s.sleep(s.backoff(1)) {
			return
		}
	}
}

// redact masks secrets in a message about this server. Transport errors quote the
// server's URL, whose query string may carry a token: it is replaced by its masked form.
func (s *Supervisor) redact(msg string) string {
	if s.cfg.URL != "" {
		safe := s.opts.Redactor.URL(s.cfg.URL)
		msg = strings.ReplaceAll(msg, s.cfg.URL, safe)
		if u, err := url.Parse(s.cfg.URL); err == nil {
			msg = strings.ReplaceAll(msg, u.Redacted(), safe)
		}
	}
	return s.opts.Redactor.String(msg)
}

// backoff is BackoffBase·2^(n-1), capped at BackoffMax, with ±20% jitter.
func (s *Supervisor) backoff(n int) time.Duration {
	d := s.opts.BackoffBase
	for i := 1; i < n && d < s.opts.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, s.opts.BackoffMax)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// sleepFailed waits, in the Failed state, for the slow retry (RetryFailed; forever
// when negative) or for Retry; false means closed.
func (s *Supervisor) sleepFailed() bool {
	var slow <-chan time.Time
	if s.opts.RetryFailed >= 0 {
		t := time.NewTimer(s.opts.RetryFailed)
		defer t.Stop()
		slow = t.C
	}
	select {
	case <-slow:
		return true
	case <-s.retry:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// sleep waits d or until Close; false means closed.
func (s *Supervisor) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// Call runs one tool on this server. It waits (within ctx and the tool timeout) for a
// server that is connecting or reconnecting. A call is sent again after a reconnect
// only when it provably never reached the server.
func (s *Supervisor) Call(ctx context.Context, name string, args json.RawMessage) (_ *mcp.CallToolResult, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.ToolTimeout())
	defer cancel()
	var arguments any
	if len(args) > 0 {
		arguments = args
	}
	defer s.inflight.begin(ctx)()
	ctx, span := s.startCall(ctx, name)
	defer func() { telemetry.End(span, err) }()
	meta := tool.MetaFromContext(ctx)
	for {
		c, err := s.waitReady(ctx)
		if err != nil {
			return nil, err
		}
		if span.IsRecording() {
			span.SetAttributes(callAttributes(c)...)
		}
		before := c.written()
		// A copy of _meta: the SDK adds its own keys to the map it is given, and the
		// call may be sent twice. It carries the span's traceparent too.
		callCtx, stop := c.bound(ctx)
		params := &mcp.CallToolParams{Meta: telemetry.InjectMeta(ctx, maps.Clone(meta)), Name: name, Arguments: arguments}
		if r, ok := relay.InputRoundOf(ctx); ok { // the caller's answers to the server's last round
			params.InputResponses, params.RequestState = r.Responses, r.State
		}
		res, err := c.sess.CallTool(callCtx, params)
		stop()
		if err == nil {
			return res, nil
		}
		if ctx.Err() == nil && (errors.Is(err, mcp.ErrConnectionClosed) || (before >= 0 && c.written() == before)) {
			// The request provably never reached the server: the SDK refused to send
			// on a connection already shutting down, or not one byte went to the
			// child's stdin since this call began. It can go to the next connection.
			c.markDead("connection closed")
			continue
		}
		if ue := s.giveUp(ctx, c, err); ue != nil {
			if notDialled(ue) {
				// Not one byte left for the server: the call goes to the next connection.
				continue
			}
			return nil, s.lostError(c, "call")
		}
		if size := c.writeFailed(before); ctx.Err() == nil && size > 0 {
			return nil, s.closedOnWrite(c, size)
		}
		if ctx.Err() == nil && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || c.calls.Err() != nil) {
			return nil, s.lostError(c, "call")
		}
		return nil, s.callError(ctx, err)
	}
}

// lostError is the error of a request (what) whose connection c was lost or given
// up while it was under way.
func (s *Supervisor) lostError(c *conn, what string) error {
	// Give the watchers a moment to say how it died (exit status, signal).
	select {
	case <-c.dead:
	case <-time.After(200 * time.Millisecond):
	}
	return fmt.Errorf("connection lost during the %s: %s", what, s.redact(c.deathReason()))
}

// closedOnWrite is the error of a request to a stdio server that closed its stdin
// while a message of size bytes was written to it: as a rule a message too large for
// it (the official SDKs read at most 16 MiB a line), which it says on stderr as it
// exits. The error was "write |1: broken pipe".
func (s *Supervisor) closedOnWrite(c *conn, size int64) error {
	msg := "the server closed the connection while a request was written to it"
	if size >= 1<<20 {
		msg = fmt.Sprintf("the server closed the connection on a %.1f MB request", float64(size)/(1<<20))
	}
	if p := c.proc; p != nil && p.waitExit(time.Second) {
		select {
		case <-p.stderrDone:
		case <-time.After(200 * time.Millisecond):
		}
		why := "process " + p.exitDescription()
		if line := p.failure(); line != "" {
			why += ": " + line
		}
		msg += " (" + why + ")"
	}
	if size >= 1<<20 {
		msg += "; it may take no message that large"
	}
	return errors.New(s.redact(msg))
}

// callError is the error of a request to the server that failed with err within
// ctx: a timeout names the tool timeout, a cancellation is ctx's error, and any
// other error is redacted.
func (s *Supervisor) callError(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("timed out after %s", s.ToolTimeout())
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if rpcErr := (*jsonrpc.Error)(nil); errors.As(err, &rpcErr) {
		// The server's own error: it reads as before, and its code and data stay
		// within reach (a gateway's client of 2026-07-28 gets it as it is).
		return serverError{errors.New(s.redact(err.Error())), &jsonrpc.Error{Code: rpcErr.Code, Message: s.redact(rpcErr.Message), Data: rpcErr.Data}}
	}
	return errors.New(s.redact(err.Error()))
}

// serverError is a server's JSON-RPC error to a call: it reads as the SDK's error
// does, and unwraps to the server's.
type serverError struct {
	error
	rpc *jsonrpc.Error
}

func (e serverError) Unwrap() error { return e.rpc }

// waitReady returns the live connection, waiting while the server is connecting or
// reconnecting. Failed, disabled and closed servers, and those that need a sign-in,
// answer at once.
func (s *Supervisor) waitReady(ctx context.Context) (*conn, error) {
	for {
		s.mu.Lock()
		st, c, lastErr := s.state, s.cur, s.lastErr
		if st == Ready && c != nil && !c.isDead() {
			s.mu.Unlock()
			return c, nil
		}
		wake := s.changed.Changed()
		s.mu.Unlock()
		switch {
		case st == Failed:
			return nil, fmt.Errorf("server is failed: %s", lastErr)
		case st == NeedsSignIn:
			return nil, errors.New(lastErr)
		case st == Disabled:
			return nil, errors.New("server is disabled")
		case st == Closed:
			return nil, errors.New("server is closed")
		}
		select {
		case <-wake:
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("timed out waiting for the server to become ready (state %s)", st)
			}
			return nil, ctx.Err()
		}
	}
}
