package gateway

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/relay"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Options configure a Gateway; nil means defaults.
type Options struct {
	// Name and Version identify the gateway to its clients (default "switchboard").
	Name, Version string
	// Instructions are sent to clients that initialize.
	Instructions string
	Logger       *slog.Logger
	// Upstreams, if set, is what the gateway forwards beyond tools. By default it is
	// the toolset itself when that implements relay.Upstreams (a *hub.Hub does, and
	// checks it at compile time); a toolset that does not (a union, a filter) is
	// served as tools only, which New logs at debug level. Set it to proxy a hub
	// behind a wrapped toolset.
	Upstreams relay.Upstreams
	// InputWait is how long a multi-round-trip call of a 2026-07-28 client waits
	// for the client to come back with its answers before it gives up: the upstream
	// call is cancelled and the server's requests get errors (default 10 minutes).
	InputWait time.Duration
	// Start, if set, runs once, when the first client sends its first request, with
	// that client's capabilities (those the gateway can forward: sampling,
	// elicitation, roots). Requests other than initialize and ping wait for it.
	// `switchboard mcp` over stdio starts its hub here, so that servers which offer
	// tools according to their client's capabilities see the real client's. An
	// error is logged, and requests fail with it.
	Start func(ctx context.Context, caps *mcp.ClientCapabilities) error
	// Deferred, if set, serves the toolset in deferred mode under this policy (see
	// deferred.go): each client session lists the search tools, tool_call (always
	// offered: CallTool is set), the pinned tools and what its own searches found,
	// and may call any tool of the toolset by its exact name. A search that loads
	// tools sends that session notifications/tools/list_changed. Nil: every client
	// lists the whole toolset.
	Deferred *deferred.Policy
	// Catalog, with Deferred, is the search index to use: deferred.NewCatalog of the
	// toolset served, shared with others in the process (an agent's, an API's) so
	// that it is built once. nil: one of the gateway's own.
	Catalog *deferred.Catalog
}

// Gateway is one MCP server whose tools are a toolset's.
type Gateway struct {
	ts     tool.Toolset
	up     relay.Upstreams // nil: tools only
	link   relay.PeerLink  // the forwarder's place with up
	server *mcp.Server
	log    *slog.Logger

	mu        sync.Mutex
	served    map[string]tool.Tool // what the MCP server lists now
	prompts   map[string]*mcp.Prompt
	resources map[string]*mcp.Resource
	templates map[string]*mcp.ResourceTemplate

	fwd   *forwarder
	views *sessionViews // deferred mode; nil: every client lists the whole toolset

	inputWait time.Duration
	startFn   func(context.Context, *mcp.ClientCapabilities) error
	startOnce sync.Once
	started   chan struct{} // closed when startFn returned
	startErr  error

	ctx    context.Context // ends at Close; bounds background work
	cancel context.CancelFunc
	lifeMu sync.Mutex // guards closed, idles and wg.Add against Close's wg.Wait
	closed bool
	idles  []*idleSessions // of the HTTP handlers, stopped at Close
	wg     sync.WaitGroup
	once   sync.Once
}

var errClosed = errors.New("gateway: closed")

// spawn runs fn on a goroutine that Close waits for; false if already closed.
func (g *Gateway) spawn(fn func()) bool {
	g.lifeMu.Lock()
	defer g.lifeMu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		fn()
	}()
	return true
}

// New builds a gateway for ts and starts following its changes; Close stops that.
func New(ts tool.Toolset, opts *Options) *Gateway {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = "switchboard"
	}
	if o.Version == "" {
		o.Version = "0.1.0"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler) // a library stays quiet unless given a logger
	}
	if o.Upstreams == nil {
		o.Upstreams, _ = ts.(relay.Upstreams)
	}
	if o.Upstreams == nil {
		o.Logger.Debug("gateway serves tools only: the toolset is no relay.Upstreams", "toolset", fmt.Sprintf("%T", ts))
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &Gateway{
		ts:        ts,
		up:        o.Upstreams,
		log:       o.Logger,
		served:    map[string]tool.Tool{},
		prompts:   map[string]*mcp.Prompt{},
		resources: map[string]*mcp.Resource{},
		templates: map[string]*mcp.ResourceTemplate{},
		startFn:   o.Start,
		inputWait: o.InputWait,
		started:   make(chan struct{}),
		ctx:       ctx,
		cancel:    cancel,
	}
	if g.inputWait <= 0 {
		g.inputWait = defaultInputWait
	}
	if g.startFn == nil {
		close(g.started)
		g.startOnce.Do(func() {})
	}
	g.fwd = newForwarder(g)
	// The catalog is dynamic: advertise what may come (with listChanged) even while
	// nothing is there yet.
	caps := &mcp.ServerCapabilities{
		Tools:   &mcp.ToolCapabilities{ListChanged: true},
		Logging: &mcp.LoggingCapabilities{},
	}
	so := &mcp.ServerOptions{Instructions: o.Instructions, Capabilities: caps, Logger: quietSDK(o.Logger)}
	if g.up != nil {
		caps.Prompts = &mcp.PromptCapabilities{ListChanged: true}
		caps.Resources = &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true}
		caps.Completions = &mcp.CompletionCapabilities{}
		so.CompletionHandler = g.fwd.complete
		so.SubscribeHandler = g.fwd.subscribe
		so.UnsubscribeHandler = g.fwd.unsubscribe
		so.RootsListChangedHandler = func(context.Context, *mcp.RootsListChangedRequest) { g.up.NotifyRootsChanged() }
	}
	g.server = mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, so)
	if o.Deferred != nil {
		p := *o.Deferred
		p.CallTool = true // for the many clients that never re-list their tools
		cat := o.Catalog
		if cat == nil {
			cat = deferred.NewCatalog(ts)
		}
		g.views = newSessionViews(g, cat.Views(p))
		g.server.AddReceivingMiddleware(drop2026Fields, g.fwd.middleware, g.accessLists, g.views.middleware) // see wire.go, access.go, deferred.go
		g.server.AddSendingMiddleware(g.views.sending)
	} else {
		g.server.AddReceivingMiddleware(drop2026Fields, g.fwd.middleware, g.accessLists) // see wire.go, access.go
	}
	if g.up != nil {
		g.link = g.up.AddPeer(g.fwd)
	}
	changed := ts.Changed() // taken before the first sync, so no change is missed
	g.sync()
	g.spawn(func() { g.follow(changed) })
	return g
}

// quietSDK keeps the SDK's per-request info logs (a line per subscription) out of
// the gateway's log: only its warnings and errors are passed on, but for a
// notification that found no stream to go on (see levelFloor.Handle).
func quietSDK(l *slog.Logger) *slog.Logger {
	return slog.New(levelFloor{l.Handler(), slog.LevelWarn})
}

type levelFloor struct {
	slog.Handler
	min slog.Level
}

func (h levelFloor) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

// Handle passes r on, but at debug level when it is
//   - the SDK's warning that a notification (a list change, to every session) was
//     not delivered for want of a stream: an HTTP client with no GET stream open
//     does not get notifications, as the protocol allows, and one catalog change
//     would log a line per such client;
//   - the end of a stdio session that Server.Run logs as an error: ServeStdio
//     returns the error, and its caller reports it (switchboard mcp as its exit
//     message), or it is no error at all (the gateway stopped, the client left);
//   - a client's request of 2026-07-28 for a method that revision removed
//     (initialize, ping, logging/setLevel, ...): the client gets 404 and -32601,
//     and the gateway has no error of its own.
func (h levelFloor) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "server run cancelled" || r.Message == "server session ended with error" || r.Message == "method removed in the new protocol" ||
		strings.HasPrefix(r.Message, "calling notifications/") && strings.Contains(r.Message, "undelivered message") {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h levelFloor) WithAttrs(attrs []slog.Attr) slog.Handler {
	return levelFloor{h.Handler.WithAttrs(attrs), h.min}
}

func (h levelFloor) WithGroup(name string) slog.Handler {
	return levelFloor{h.Handler.WithGroup(name), h.min}
}

// Server is the underlying MCP server, for callers that serve it on their own transport.
func (g *Gateway) Server() *mcp.Server { return g.server }

// Close stops following the toolset, closes every client's session (a client's
// subscriptions and log level end with it) and waits for the gateway's own
// goroutines. It does not close the toolset.
func (g *Gateway) Close() error {
	g.once.Do(func() {
		g.lifeMu.Lock()
		g.closed = true
		idles := g.idles
		g.lifeMu.Unlock()
		for _, t := range idles {
			t.stop()
		}
		g.cancel()
		if g.link != nil {
			g.link.Remove()
		}
		g.fwd.endExchanges()
		g.fwd.endRequests(func(*mcp.ServerSession) bool { return true }, errClosed) // else closing a session waits for them
		for ss := range g.server.Sessions() {
			_ = ss.Close()
		}
		g.wg.Wait()
	})
	return nil
}

func (g *Gateway) follow(changed <-chan struct{}) {
	for {
		select {
		case <-g.ctx.Done():
			return
		case <-changed:
			changed = g.ts.Changed()
			g.sync()
		}
	}
}

// sync makes what the MCP server lists equal to the toolset's (and the upstreams')
// catalog. The SDK sends the list_changed notifications.
func (g *Gateway) sync() {
	g.mu.Lock()
	defer g.mu.Unlock()
	var changed int
	want, handler := g.ts.Tools(), g.handler
	if g.views != nil {
		want, handler = g.views.routes(want), g.views.handler // see deferred.go
	}
	g.served, changed = mirror(g.served, want, func(t tool.Tool) string { return t.Name }, sameTool,
		func(names []string) { g.server.RemoveTools(names...) },
		func(t tool.Tool) { g.server.AddTool(t.MCP(), handler(t.Name)) })
	if changed > 0 {
		g.log.Debug("gateway catalog updated", "tools", len(g.served), "added_changed_or_removed", changed)
	}
	if g.up == nil {
		return
	}
	// Reads are answered by the forwarder's middleware (resources/read is routed
	// there, also for URIs nobody listed), so the SDK needs no read handlers.
	g.prompts, _ = mirror(g.prompts, g.up.Prompts(), func(p *mcp.Prompt) string { return p.Name }, deepEqual,
		func(names []string) { g.server.RemovePrompts(names...) },
		func(p *mcp.Prompt) { g.server.AddPrompt(p, g.fwd.getPrompt) })
	g.resources, _ = mirror(g.resources, g.up.Resources(), func(r *mcp.Resource) string { return r.URI }, deepEqual,
		func(uris []string) { g.server.RemoveResources(uris...) },
		func(r *mcp.Resource) { g.guard("resource "+r.URI, func() { g.server.AddResource(r, nil) }) })
	g.templates, _ = mirror(g.templates, g.up.ResourceTemplates(), func(t *mcp.ResourceTemplate) string { return t.URITemplate }, deepEqual,
		func(ts []string) { g.server.RemoveResourceTemplates(ts...) },
		func(t *mcp.ResourceTemplate) {
			g.guard("resource template "+t.URITemplate, func() { g.server.AddResourceTemplate(t, nil) })
		})
}

// mirror makes the served set have exactly want (by key; an entry is replaced
// unless same says it is unchanged), calling remove and add for the differences.
// It returns the new served set and how many entries went, came or changed.
func mirror[T any](served map[string]T, want []T, key func(T) string, same func(a, b T) bool, remove func([]string), add func(T)) (map[string]T, int) {
	next := make(map[string]T, len(want))
	for _, v := range want {
		next[key(v)] = v
	}
	var gone []string
	for k := range served {
		if _, ok := next[k]; !ok {
			gone = append(gone, k)
		}
	}
	if len(gone) > 0 {
		remove(gone)
	}
	changed := len(gone)
	for k, v := range next {
		if old, ok := served[k]; ok && same(old, v) {
			continue
		}
		add(v)
		changed++
	}
	return next, changed
}

func deepEqual[T any](a, b T) bool { return reflect.DeepEqual(a, b) }

// guard runs an SDK registration that panics on input it finds invalid (a URI that
// does not parse, a bad URI template): such an entry is left out with a warning.
func (g *Gateway) guard(what string, add func()) {
	defer func() {
		if r := recover(); r != nil {
			g.log.Warn("not served: the MCP SDK refuses it", "what", what, "err", r)
		}
	}()
	add()
}

func sameTool(a, b tool.Tool) bool {
	return a.Description == b.Description && a.Title == b.Title &&
		bytes.Equal(a.InputSchema, b.InputSchema) && bytes.Equal(a.OutputSchema, b.OutputSchema) &&
		reflect.DeepEqual(a.Annotations, b.Annotations)
}

// handler forwards one call to the toolset, with the client's _meta (its progress
// token mapped to one of the gateway's). Failures are error results, as the toolset
// makes them; a closed toolset is a JSON-RPC error.
func (g *Gateway) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p := req.Params // the SDK refuses a tools/call without params before this
		if !access.FromContext(ctx).Tool(g.servedTool(name)) {
			return refused(ctx, g.ts, name, p.Arguments), nil // see access.go
		}
		call := func(ctx context.Context) (*mcp.CallToolResult, error) {
			ctx, _, done := g.fwd.begin(ctx, req.Session, p.Meta)
			defer done()
			return g.ts.Call(ctx, name, p.Arguments)
		}
		return roundTrip(ctx, g.fwd, req.Session, "tools/call "+name, p.RequestState, p.InputResponses, call, // see mrtr_clients.go
			func(m mcp.InputRequestMap, state string) *mcp.CallToolResult {
				return &mcp.CallToolResult{InputRequests: m, RequestState: state}
			})
	}
}

// ServeStdio serves the gateway on stdin/stdout until the client disconnects or ctx
// ends. A client may disconnect by closing its end of stdout while the gateway writes
// to it: unless the program ignores SIGPIPE (signal.Ignore(syscall.SIGPIPE)), Go then
// ends the process at once instead of letting the write fail.
func (g *Gateway) ServeStdio(ctx context.Context) error {
	// The client's requests under way end with ctx (see cancellation.go): the SDK's Run
	// then closes the session, which waits for them.
	err := g.server.Run(withCarrier(ctx, ctx), stdioTransport{}) // see stdio.go
	// A client that closed its end of stdout while the gateway wrote to it has left,
	// as one that closed stdin (a host leaves either way).
	if ctx.Err() != nil || isBrokenPipe(err) {
		return nil
	}
	return err
}
