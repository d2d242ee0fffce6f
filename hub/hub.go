package hub

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/logging"
	"github.com/switchboard-mcp/switchboard/redact"
	"github.com/switchboard-mcp/switchboard/relay"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// ErrClosed is returned by a hub that has been closed.
var ErrClosed = errors.New("hub: closed")

// Options tune a Hub. nil means defaults.
type Options struct {
	// Logger receives the hub's and its servers' logs; nil discards them (a library
	// stays quiet unless given a logger).
	Logger *slog.Logger
	// Upstream is the template for every server's supervisor; its OnEvent is the hub's.
	Upstream *upstream.Options
	// Naming overrides the config's naming policy when set.
	Naming config.Naming
	// MaxArgumentDepth overrides the config's "maxArgumentDepth" when set: a call
	// whose arguments nest objects and arrays deeper is refused before it reaches a
	// server. 0 means the config's setting, else [tool.DefaultMaxArgumentDepth].
	MaxArgumentDepth int
	// Redactor masks the config's secrets (Config.Secrets: environment and header
	// values, URL credentials, substituted ${VAR} values) in the hub's errors, failed
	// results, status and log lines, whatever handler Logger has. New, Add, Replace
	// and Reload register each config's secrets with it. nil: one of the hub's own
	// ([Hub.Redactor]); a program passes the one its log handler masks with.
	Redactor *redact.Redactor
	// PerUser, when set, gives each person their own connection to the servers
	// whose "oauth" says "perUser" (peruser.go); nil: every call uses the server's.
	PerUser *PerUserOptions
}

// Hub is many upstream MCP servers as one tool.Toolset.
type Hub struct {
	red    *redact.Redactor // Options.Redactor, or the hub's own
	log    *slog.Logger
	base   upstream.Options // the caller's template, before config settings apply
	upOpts upstream.Options
	naming config.Naming
	// fixedNaming: Options.Naming set the policy, so configs (and reloads) do not.
	fixedNaming bool
	// maxDepth is the arguments' nesting bound (0: the default); read by Call without
	// h.mu. fixedDepth: Options set it, so configs do not.
	maxDepth   atomic.Int64
	fixedDepth bool

	mu    sync.Mutex // guards sups, order, closed and catalog rebuilds
	sups  map[string]*upstream.Supervisor
	order []string // server names in config order
	// launched: when Launch started each server, for its init timeout.
	launched map[*upstream.Supervisor]time.Time
	closed   bool
	// promptWarned is the prompt collision last warned about (naming "never").
	promptWarned string
	// pins: the name each tool was exposed under since the start-up, kept while its
	// server stays in the config (see keptNames).
	pins map[tool.Key]string
	// seen is each server's state as the last rebuild read it. A supervisor is
	// ready a moment before the hub's rebuild puts its tools in the catalog; Status
	// reports it ready only once that rebuild has run, so that a server shown ready
	// (in /health, status …) always has its tools listed.
	seen map[string]upstream.State
	// eventHook, set by tests only, runs on every server event before the rebuild.
	eventHook func(upstream.Event)

	cat      atomic.Pointer[catalog]
	ext      atomic.Pointer[extras] // prompts, resources, templates
	notifier tool.Notifier          // tools, prompts, resources or templates changed
	logLevel mcp.LoggingLevel       // the level the servers were asked for; h.mu
	// peers get the servers' requests and notifications (AddPeer); changed under
	// levelMu, which also orders changes of the log level.
	peers    atomic.Pointer[[]*peerLink]
	levelMu  sync.Mutex
	ownLevel mcp.LoggingLevel // set by SetLogLevel; levelMu
	// converted caches each upstream tool's conversion (schema cleaning is the costly
	// part), so that a rebuild per server event costs a map lookup per unchanged tool.
	converted map[*mcp.Tool]tool.Tool
	// tmplRE caches each resource template's compiled matcher the same way.
	tmplRE map[string]*regexp.Regexp

	// errMu guards starting (start-ups under way) and errLogged (the catalog error
	// last logged or returned): see firstReport.
	errMu     sync.Mutex
	starting  int
	errLogged string
	// launchHold: Launch holds the errors back until a Start or WaitTool returns them.
	launchHold bool

	subMu sync.Mutex
	subs  map[int]func(upstream.Event)
	subID int
	// subURIs: the URI each resource subscription was made with, by server and
	// original URI.
	subURIs map[tool.Key]string
	// holds counts the subscriptions made with SubscribeResource, by server and
	// original URI; holdMu also orders subscribing and unsubscribing.
	holdMu sync.Mutex
	holds  map[tool.Key]int

	callObs callObservers             // ObserveCalls
	audit   atomic.Pointer[auditor]   // SetAudit
	usage   atomic.Pointer[usageSink] // SetUsage

	people *people // the persons' own connections (peruser.go); nil without Options.PerUser

	logs map[string]*upstream.Log // each server's log, by name, across restarts (log.go); h.mu
}

// New builds a hub for cfg's servers. Nothing starts until Start.
func New(cfg *config.Config, opts *Options) *Hub {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Redactor == nil {
		o.Redactor = &redact.Redactor{}
	}
	o.Redactor.Add(cfg.Secrets()...)
	o.Logger = slog.New(o.Redactor.Handler(o.Logger.Handler()))
	h := &Hub{
		red:         o.Redactor,
		log:         o.Logger,
		naming:      o.Naming,
		fixedNaming: o.Naming != "",
		fixedDepth:  o.MaxArgumentDepth != 0,
		sups:        map[string]*upstream.Supervisor{},
		subs:        map[int]func(upstream.Event){},
		subURIs:     map[tool.Key]string{},
		holds:       map[tool.Key]int{},
		people:      newPeople(o.PerUser),
	}
	h.peers.Store(&[]*peerLink{})
	h.maxDepth.Store(int64(o.MaxArgumentDepth))
	if o.Upstream != nil {
		h.base = *o.Upstream
	}
	if h.base.Logger == nil {
		h.base.Logger = o.Logger
	}
	h.base.OnEvent = h.onEvent
	h.base.Peer = hubPeer{h}
	h.base.Redactor = h.red
	h.applySettings(cfg.Settings)
	h.cat.Store(&catalog{routes: map[string]route{}})
	h.ext.Store(emptyExtras())
	for _, s := range cfg.Servers {
		h.sups[s.Name] = h.newSupervisor(s)
		h.order = append(h.order, s.Name)
	}
	return h
}

// applySettings derives the options of servers started from now on and the naming
// policy from a config's settings; h.mu must be held (or h not yet shared).
func (h *Hub) applySettings(st config.Settings) {
	h.upOpts = h.base
	if h.upOpts.Heartbeat == 0 {
		h.upOpts.Heartbeat = st.Heartbeat
	}
	if h.upOpts.RetryFailed == 0 {
		h.upOpts.RetryFailed = st.RetryFailed
	}
	if !h.fixedNaming {
		h.naming = st.Naming // "" means auto
	}
	if !h.fixedDepth {
		h.maxDepth.Store(int64(st.MaxArgumentDepth)) // 0 means the default
	}
}

// Start connects every server at once and returns when each is ready, failed,
// disabled, or past its init timeout; servers still trying keep going in the
// background and join the catalog when ready. It fails when a required server is not
// ready, or with a *tool.CollisionError when the naming policy "never" finds a
// collision.
func (h *Hub) Start(ctx context.Context) (err error) {
	done := h.startReporting()
	defer func() { done(err) }()
	if err := h.Launch(); err != nil {
		return err
	}
	_ = h.WaitSettled(ctx) // a caller that gives up still gets the catalog so far
	if err := h.rebuild(); err != nil {
		return err
	}
	return h.startReport()
}

// startReport logs the start-up summary and checks required servers.
func (h *Hub) startReport() error {
	statuses := h.Status()
	failed, tools := 0, len(h.Tools())
	signIn := 0
	for _, st := range statuses {
		switch st.State {
		case upstream.Ready, upstream.Disabled:
		case upstream.NeedsSignIn:
			signIn++
		default:
			failed++
		}
	}
	summary := fmt.Sprintf("MCP initialized: %s, %s (%d failed", count(len(statuses), "server"), count(tools, "tool"), failed)
	if signIn > 0 {
		summary += fmt.Sprintf(", %d need a sign-in", signIn)
	}
	h.log.Info(summary + ")")
	for _, st := range statuses {
		if st.State != upstream.Ready && st.State != upstream.Disabled {
			h.log.Warn("server not ready", logging.KeyServer, st.Name, "state", st.State, "reason", h.NotReadyReason(st))
		}
	}
	return h.requiredErr()
}

// count is n and noun, in the plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Close shuts every server down concurrently and waits for all of them.
func (h *Hub) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	sups := h.supervisors()
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range sups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Close()
		}()
	}
	wg.Wait()
	h.people.close()
	h.cat.Store(&catalog{routes: map[string]route{}})
	h.ext.Store(emptyExtras())
	h.notifier.Notify()
	return nil
}

// supervisors returns the supervisors in config order; h.mu must be held.
func (h *Hub) supervisors() []*upstream.Supervisor {
	out := make([]*upstream.Supervisor, 0, len(h.order))
	for _, name := range h.order {
		out = append(out, h.sups[name])
	}
	return out
}

func (h *Hub) supervisor(name string) *upstream.Supervisor {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sups[name]
}

// Server returns the configuration the named server runs with now (after any Reload),
// and false when the hub has no such server.
func (h *Hub) Server(name string) (config.Server, bool) {
	s := h.supervisor(name)
	if s == nil {
		return config.Server{}, false
	}
	return s.Config(), true
}

// Tools returns the current catalog snapshot.
func (h *Hub) Tools() []tool.Tool { return h.cat.Load().tools }

// Changed returns a channel closed when the catalog next changes.
func (h *Hub) Changed() <-chan struct{} { return h.notifier.Changed() }

// Lookup finds a tool by exposed name.
func (h *Hub) Lookup(name string) (tool.Tool, bool) {
	cat := h.cat.Load()
	r, ok := cat.routes[name]
	if !ok {
		return tool.Tool{}, false
	}
	return cat.tools[r.index], true
}

// Call routes one call by exposed name. Unknown tools, arguments nested past the
// bound (see [Hub.CheckArguments]) and server failures come back as error results
// that name the server; a Go error means the hub is closed.
func (h *Hub) Call(ctx context.Context, name string, args json.RawMessage) (*tool.Result, error) {
	start := time.Now()
	r, ok := h.cat.Load().routes[name]
	if !ok {
		h.mu.Lock()
		closed := h.closed
		h.mu.Unlock()
		if closed {
			h.auditCall(ctx, name, "", "", args, start, OutcomeFailed)
			return nil, ErrClosed
		}
		h.auditCall(ctx, name, "", "", args, start, OutcomeRefused)
		return tool.ErrorResult("%s", h.UnknownTool(name).Error()), nil
	}
	if err := h.CheckArguments(args); err != nil {
		h.auditCall(ctx, name, r.sup.Name(), r.original, args, start, OutcomeRefused)
		return tool.ErrorResult("server %q, tool %q: %s", r.sup.Name(), r.original, err), nil
	}
	res, err := h.callRoute(ctx, r, args)
	h.auditCall(ctx, name, r.sup.Name(), r.original, args, start, outcomeOf(ctx, err == nil && res.IsError, err))
	var rpcErr *jsonrpc.Error
	if _, ok := relay.InputRoundOf(ctx); ok && errors.As(err, &rpcErr) {
		// A caller of 2026-07-28 (a gateway's client) gets the server's error as it
		// is: its code says what the client must do (-32021: declare a capability;
		// an invalid request state: start again).
		h.callObs.report(CallEvent{Server: r.sup.Name(), Tool: r.original, Name: name, Duration: time.Since(start), IsError: true})
		return nil, rpcErr
	}
	if err != nil {
		res = tool.ErrorResult("server %q, tool %q: %s", r.sup.Name(), r.original, h.red.String(err.Error()))
	} else {
		h.exposeContent(r.sup.Name(), res.Content...)
		if res.IsError {
			h.maskErrorText(res)
		}
	}
	h.callObs.report(CallEvent{Server: r.sup.Name(), Tool: r.original, Name: name, Duration: time.Since(start), IsError: res.IsError})
	return res, nil
}

// CheckArguments returns a *[tool.DepthError] when args nest objects and arrays
// deeper than the hub's bound (Options.MaxArgumentDepth, else the config's
// "maxArgumentDepth", else 64). Call refuses such arguments with an error result
// before anything is sent; a caller that answers its own client (an HTTP API, a
// command line) checks first to tell the client its request was wrong.
func (h *Hub) CheckArguments(args json.RawMessage) error {
	return tool.CheckDepth(args, int(h.maxDepth.Load()))
}

// maskErrorText masks the configured secrets in a failed result's text, as in the
// text of a failed call's error: a server that quotes its key in an error ("the
// vault refused key …") must not show it to the model, the API's clients or the
// stored history. A successful result is the tool's answer and stays as it is.
func (h *Hub) maskErrorText(res *tool.Result) {
	for i, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			if masked := h.red.String(tc.Text); masked != tc.Text {
				cp := *tc
				cp.Text = masked
				res.Content[i] = &cp
			}
		}
	}
}

// Redactor is the hub's redactor (Options.Redactor, or its own): it knows the
// secrets of every config the hub was given, for a program to mask its own output
// with (an error it prints, an API answer).
func (h *Hub) Redactor() *redact.Redactor { return h.red }

// Status reports every server in config order. A server whose supervisor has just
// become ready is still reported in its previous state until the catalog lists its
// tools.
func (h *Hub) Status() []upstream.Status {
	h.mu.Lock()
	sups := h.supervisors()
	seen := h.seen
	h.mu.Unlock()
	out := make([]upstream.Status, len(sups))
	for i, s := range sups {
		out[i] = s.Status()
		h.annotate(&out[i], s)
		if st := &out[i]; st.State == upstream.Ready && seen[st.Name] != upstream.Ready {
			st.State = cmp.Or(seen[st.Name], upstream.Connecting)
		}
	}
	return out
}

// status is one server's status as Status reports it.
func (h *Hub) status(s *upstream.Supervisor) upstream.Status {
	h.mu.Lock()
	seen := h.seen[s.Name()]
	h.mu.Unlock()
	st := s.Status()
	h.annotate(&st, s)
	if st.State == upstream.Ready && seen != upstream.Ready {
		st.State = cmp.Or(seen, upstream.Connecting)
	}
	return st
}

// Subscribe registers fn for every server event (state changes, tool changes). The
// returned function unsubscribes. fn runs on a supervisor's goroutine: keep it quick.
func (h *Hub) Subscribe(fn func(upstream.Event)) (cancel func()) {
	h.subMu.Lock()
	defer h.subMu.Unlock()
	h.subID++
	id := h.subID
	h.subs[id] = fn
	return func() {
		h.subMu.Lock()
		defer h.subMu.Unlock()
		delete(h.subs, id)
	}
}

// onEvent rebuilds the catalog on every server event: a new tool list, or a state
// change that adds or drops a server's tools. Unchanged tools cost a map lookup.
func (h *Hub) onEvent(e upstream.Event) {
	if h.eventHook != nil {
		h.eventHook(e)
	}
	if err := h.rebuild(); h.firstReport(err) {
		msg := "catalog not updated"
		if errors.As(err, new(*tool.CollisionError)) {
			msg = "colliding tools left out of the catalog"
		}
		h.log.Error(msg, logging.KeyServer, e.Server, "err", err)
	}
	h.subMu.Lock()
	subs := make([]func(upstream.Event), 0, len(h.subs))
	for _, fn := range h.subs {
		subs = append(subs, fn)
	}
	h.subMu.Unlock()
	for _, fn := range subs {
		fn(e)
	}
}

// firstReport tells whether err (of a rebuild after a server event) should be logged:
// not while Start runs (it returns the error), and once until the catalog builds again,
// instead of once per server event.
func (h *Hub) firstReport(err error) bool {
	h.errMu.Lock()
	defer h.errMu.Unlock()
	if err == nil {
		h.errLogged = ""
		return false
	}
	if h.starting > 0 || err.Error() == h.errLogged {
		return false
	}
	h.errLogged = err.Error()
	return true
}

// startReporting holds the catalog errors of server events back from the log while a
// start-up waits (its caller gets them); the returned function ends that, noting err
// as already told.
func (h *Hub) startReporting() (done func(err error)) {
	h.errMu.Lock()
	h.starting++
	h.errMu.Unlock()
	return func(err error) {
		h.errMu.Lock()
		defer h.errMu.Unlock()
		h.starting--
		if h.launchHold {
			h.launchHold = false
			h.starting--
		}
		if err != nil {
			h.errLogged = err.Error()
		}
	}
}
