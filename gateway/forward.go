package gateway

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// forwarder carries messages between the gateway's clients and the upstreams.
//
// Client to server: every request's _meta goes along, with the client's progress
// token replaced by one of the gateway's own (so that two clients' tokens cannot
// clash upstream) and the 2026-07-28 per-request keys dropped (they are about the
// client's connection to the gateway). Cancellation follows the request's context.
//
// Server to client: a server's progress goes to the client whose token it maps to.
// Its other messages go to the client whose request to that server is the newest
// still running (nothing on the wire says which request caused them); when none
// is running, requests go to the client heard from most recently that can answer
// them, and log messages to every client (each at the level it set).
type forwarder struct {
	g *Gateway

	mu        sync.Mutex
	progress  map[string]progressDest                 // gateway token → client
	recent    []*mcp.ServerSession                    // newest last
	levels    map[*mcp.ServerSession]mcp.LoggingLevel // set by logging/setLevel
	upLevel   mcp.LoggingLevel                        // asked of the upstreams
	subs      map[string]map[*mcp.ServerSession]bool  // resource subscriptions by URI
	watched   map[*mcp.ServerSession]bool             // sessions whose end is awaited (sessions.go)
	exchanges map[string]*exchange                    // multi-round-trip calls by request state
	underWay  map[*underWay]struct{}                  // requests between the gateway and its clients (inflight.go)
	carriers  map[*mcp.ServerSession]context.Context  // what carries each session's requests, if anything (inflight.go)

	// upMu orders the forwarder's changes to the servers' state (subscriptions,
	// the log level): each is decided and made before the next is decided.
	upMu sync.Mutex
}

// nextToken numbers the progress tokens the gateways send upstream: one count for
// the process, so that two gateways on one hub (whose servers' progress every
// gateway sees) never send the same token.
var nextToken atomic.Uint64

type progressDest struct {
	caller     // who made the request (its context, and the exchange it runs in, if any)
	token  any // the client's own token
}

func newForwarder(g *Gateway) *forwarder {
	return &forwarder{
		g:         g,
		progress:  map[string]progressDest{},
		levels:    map[*mcp.ServerSession]mcp.LoggingLevel{},
		subs:      map[string]map[*mcp.ServerSession]bool{},
		watched:   map[*mcp.ServerSession]bool{},
		exchanges: map[string]*exchange{},
		underWay:  map[*underWay]struct{}{},
		carriers:  map[*mcp.ServerSession]context.Context{},
	}
}

type sessionKey struct{}

// begin prepares forwarding one request of ss: ctx carries the session (for the
// messages the request causes) and the _meta to send upstream (tool.WithMeta),
// which is also returned. done undoes the progress token's mapping.
func (f *forwarder) begin(ctx context.Context, ss *mcp.ServerSession, meta mcp.Meta) (_ context.Context, out mcp.Meta, done func()) {
	ctx = context.WithValue(ctx, sessionKey{}, ss)
	out, token := f.mapMeta(ctx, ss, meta)
	if out != nil {
		ctx = tool.WithMeta(ctx, out)
	}
	return ctx, out, func() {
		if token != "" {
			f.mu.Lock()
			delete(f.progress, token)
			f.mu.Unlock()
		}
	}
}

// mapMeta is the _meta to send upstream for a request of ss, and the gateway
// token that replaced the client's progress token ("" if none).
func (f *forwarder) mapMeta(ctx context.Context, ss *mcp.ServerSession, meta mcp.Meta) (mcp.Meta, string) {
	if len(meta) == 0 {
		return nil, ""
	}
	out := make(mcp.Meta, len(meta))
	token := ""
	for k, v := range meta {
		switch {
		case strings.HasPrefix(k, "io.modelcontextprotocol/"):
			// Per-request protocol keys of the 2026-07-28 era describe the client's
			// connection to the gateway; the upstream connection has its own.
		case k == "progressToken" && v != nil:
			token = "switchboard-" + strconv.FormatUint(nextToken.Add(1), 10)
			ex, _ := ctx.Value(exchangeKey{}).(*exchange)
			f.mu.Lock()
			f.progress[token] = progressDest{caller{ss, ex, ctx}, v}
			f.mu.Unlock()
			out[k] = token
		default:
			out[k] = v
		}
	}
	if len(out) == 0 { // only the 2026-07-28 keys: nothing to send upstream
		return nil, ""
	}
	return out, token
}

// waitStarted waits for Options.Start to finish (at once when there is none) and
// returns its error.
func (g *Gateway) waitStarted(ctx context.Context) error {
	select {
	case <-g.started:
		return g.startErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startWith runs Options.Start once, in the background, with ss's capabilities.
func (g *Gateway) startWith(ss *mcp.ServerSession, params *mcp.InitializeParams) {
	g.startOnce.Do(func() {
		if params == nil {
			params = ss.InitializeParams()
		}
		caps := &mcp.ClientCapabilities{}
		if params != nil && params.Capabilities != nil {
			caps = Forwardable(params.Capabilities)
		}
		if !g.spawn(func() {
			defer close(g.started)
			if err := g.startFn(g.ctx, caps); err != nil {
				g.startErr = err
				g.log.Error("gateway start failed", "err", err)
			}
			g.sync() // what waited sees the catalog as Start left it
		}) {
			g.startErr = errClosed
			close(g.started)
		}
	})
}

// Forwardable is the part of a client's capabilities the gateway can serve for
// upstream servers: sampling, elicitation and roots.
func Forwardable(c *mcp.ClientCapabilities) *mcp.ClientCapabilities {
	out := &mcp.ClientCapabilities{Sampling: c.Sampling, Elicitation: c.Elicitation, RootsV2: c.RootsV2}
	if out.RootsV2 == nil && c.Roots.ListChanged {
		out.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	return out
}

// AllForwardable is every capability the gateway can forward, for upstream
// connections shared by clients not known in advance (the gateway over HTTP): a
// request that the client it goes to cannot answer gets an error.
func AllForwardable() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{
		Sampling:    &mcp.SamplingCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		RootsV2:     &mcp.RootCapabilities{ListChanged: true},
	}
}

// middleware sees every request a client sends: it ends one that no answer can
// reach any more (see inflight.go), records who spoke last, holds
// requests until Options.Start is done, routes resources/read itself (so that
// resources nobody listed are found too), and passes logging/setLevel on.
func (f *forwarder) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss == nil || strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		ctx, done := f.track(ctx, ss)
		defer done()
		f.touch(ss)
		switch method {
		case "initialize", "server/discover":
			// Answered at once; the client's capabilities are known after it.
			p, _ := req.GetParams().(*mcp.InitializeParams)
			res, err := next(ctx, method, req)
			if err == nil {
				f.g.startWith(ss, p)
			}
			return res, err
		case "ping":
			return next(ctx, method, req)
		}
		f.g.startWith(ss, nil)
		if err := f.g.waitStarted(ctx); err != nil {
			return nil, err
		}
		switch method {
		case "resources/read":
			if f.g.up != nil { // the SDK refuses a read without params before this
				return f.read(ctx, ss, req.GetParams().(*mcp.ReadResourceParams))
			}
		case "logging/setLevel":
			res, err := next(ctx, method, req)
			if err == nil && f.g.up != nil {
				if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok {
					f.setLevel(ctx, ss, p.Level)
				}
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// touch records ss as the client heard from most recently.
func (f *forwarder) touch(ss *mcp.ServerSession) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.recent); n > 0 && f.recent[n-1] == ss {
		return
	}
	for i, s := range f.recent {
		if s == ss {
			f.recent = append(f.recent[:i], f.recent[i+1:]...)
			break
		}
	}
	f.recent = append(f.recent, ss)
	if len(f.recent) > 64 {
		f.recent = f.recent[1:]
	}
}

// sessions are the connected clients.
func (f *forwarder) sessions() map[*mcp.ServerSession]bool {
	live := map[*mcp.ServerSession]bool{}
	for ss := range f.g.server.Sessions() {
		live[ss] = true
	}
	return live
}

// setLevel records ss's level and asks the upstreams for the most verbose level any
// connected client wants; each client still gets only messages at its own level.
func (f *forwarder) setLevel(ctx context.Context, ss *mcp.ServerSession, level mcp.LoggingLevel) {
	f.upMu.Lock()
	defer f.upMu.Unlock()
	f.mu.Lock()
	f.levels[ss] = level
	f.mu.Unlock()
	f.watch(ss)
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, sessionKey{}, ss), upstreamStateWait) // what the servers send meanwhile is ss's
	defer cancel()
	f.applyLevel(ctx)
}

// applyLevel asks the upstreams, on the gateway's behalf, for the most verbose level
// a connected client set, if that is not the level asked for last; with no such
// client left the gateway's wish is withdrawn (the servers keep the level other
// gateways or the program want, else the last: the protocol cannot unset it).
// f.upMu is held.
func (f *forwarder) applyLevel(ctx context.Context) {
	live := f.sessions()
	f.mu.Lock()
	var want mcp.LoggingLevel
	for s, l := range f.levels {
		if !live[s] {
			delete(f.levels, s)
			continue
		}
		want = upstream.MostVerbose(want, l)
	}
	changed := want != f.upLevel
	f.upLevel = want
	f.mu.Unlock()
	if !changed {
		return
	}
	if err := f.g.link.SetLogLevel(ctx, want); err != nil {
		f.g.log.Warn("passing logging/setLevel on failed", "level", want, "err", err)
	}
}

func (f *forwarder) read(ctx context.Context, ss *mcp.ServerSession, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	call := func(ctx context.Context) (*mcp.ReadResourceResult, error) {
		ctx, meta, done := f.begin(ctx, ss, p.Meta)
		defer done()
		c := *p
		c.Meta, c.InputResponses, c.RequestState = meta, nil, "" // the client's rounds are the gateway's
		res, err := f.g.up.ReadResource(ctx, &c)
		if res != nil && res.CacheScope == "" {
			// A 2026-07-28 client must get a valid scope; absent means "public"
			// (what a server of an older protocol, which sends none, implies).
			res.CacheScope = "public"
		}
		return res, err
	}
	return roundTrip(ctx, f, ss, "resources/read "+p.URI, p.RequestState, p.InputResponses, call, // see mrtr.go
		func(m mcp.InputRequestMap, state string) *mcp.ReadResourceResult {
			return &mcp.ReadResourceResult{InputRequests: m, RequestState: state}
		})
}

func (f *forwarder) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	p := req.Params
	call := func(ctx context.Context) (*mcp.GetPromptResult, error) {
		ctx, meta, done := f.begin(ctx, req.Session, p.Meta)
		defer done()
		c := *p
		c.Meta, c.InputResponses, c.RequestState = meta, nil, "" // the client's rounds are the gateway's
		return f.g.up.GetPrompt(ctx, &c)
	}
	return roundTrip(ctx, f, req.Session, "prompts/get "+p.Name, p.RequestState, p.InputResponses, call, // see mrtr.go
		func(m mcp.InputRequestMap, state string) *mcp.GetPromptResult {
			return &mcp.GetPromptResult{InputRequests: m, RequestState: state}
		})
}

func (f *forwarder) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ctx, meta, done := f.begin(ctx, req.Session, req.Params.Meta)
	defer done()
	c := *req.Params
	c.Meta = meta
	return f.g.up.Complete(ctx, &c)
}

// subscribe passes the first subscription to a URI on to its server; later ones
// from other clients share it.
func (f *forwarder) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	f.upMu.Lock()
	defer f.upMu.Unlock()
	f.watch(req.Session)
	f.mu.Lock()
	first := len(f.subs[uri]) == 0
	if f.subs[uri] == nil {
		f.subs[uri] = map[*mcp.ServerSession]bool{}
	}
	f.subs[uri][req.Session] = true
	f.mu.Unlock()
	if !first {
		return nil
	}
	if err := f.g.up.SubscribeResource(context.WithValue(ctx, sessionKey{}, req.Session), uri); err != nil {
		f.mu.Lock()
		delete(f.subs[uri], req.Session)
		f.mu.Unlock()
		return err
	}
	return nil
}

// unsubscribe ends the upstream subscription when no connected client holds one.
func (f *forwarder) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	f.upMu.Lock()
	defer f.upMu.Unlock()
	live := f.sessions()
	f.mu.Lock()
	delete(f.subs[uri], req.Session)
	for s := range f.subs[uri] {
		if !live[s] {
			delete(f.subs[uri], s)
		}
	}
	last := len(f.subs[uri]) == 0
	if last {
		delete(f.subs, uri)
	}
	f.mu.Unlock()
	if !last {
		return nil
	}
	return f.g.up.UnsubscribeResource(ctx, uri)
}

// Request implements upstream.Peer: a server's request goes to a client that can
// answer it, and the answer back to the server.
func (f *forwarder) Request(ctx context.Context, server, method string, params mcp.Params) (mcp.Result, error) {
	c, why, mine := f.target(ctx, method)
	switch {
	case c.ss == nil:
		err := error(&jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("%s from server %q: %s", method, server, why)})
		if !mine {
			err = upstream.NotMine(err) // perhaps another gateway's client's
		}
		return nil, err
	case c.ex != nil:
		return c.ex.request(ctx, params) // see mrtr.go
	case newEra(c.ss):
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("%s from server %q: a client of protocol 2026-07-28 can be asked only during a request of its own", method, server)}
	}
	ss := c.ss
	ctx, done := f.track(c.context(ctx), ss) // closing ss would wait for the answer
	defer done()
	switch p := params.(type) {
	case *mcp.CreateMessageWithToolsParams:
		return ss.CreateMessageWithTools(ctx, p)
	case *mcp.ElicitParams:
		return ss.Elicit(ctx, p)
	case *mcp.ListRootsParams:
		return ss.ListRoots(ctx, p)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: method + " is not forwarded"}
}

// endExchanges ends every exchange waiting for its client's answers (the gateway
// is closing; the calls of the others end with the gateway's context).
func (f *forwarder) endExchanges() {
	f.mu.Lock()
	exs := make([]*exchange, 0, len(f.exchanges))
	for _, ex := range f.exchanges {
		exs = append(exs, ex)
	}
	f.mu.Unlock()
	for _, ex := range exs {
		ex.end()
	}
}

// target picks the client for a server's request. While requests to that server
// are running it is the client that sent them — only when they all come from one
// client of this gateway: nothing on the wire says which request caused it, and no
// client may see a request that another's caused (nor one that a call made around
// the gateway caused: a program's own call on the hub, another gateway's client).
// With none running, it is the client heard from most recently that can answer.
// why says why there is none, and mine whether the request was for this gateway's
// clients at all (when not, another gateway on the same hub may take it).
func (f *forwarder) target(ctx context.Context, method string) (c caller, why string, mine bool) {
	live := f.sessions()
	callers, foreign := f.callers(ctx, live)
	switch {
	case len(callers) == 0 && foreign:
		return caller{}, "it came during a call not made through a gateway", false
	case len(callers) == 0:
	case len(callers) == 1 && !foreign:
		if supports(callers[0].session(), method) {
			return callers[0], "", true
		}
		return caller{}, "the client whose request caused it does not support it", true
	default:
		return caller{}, fmt.Sprintf("%d callers have requests to this server under way; which one caused it is unknown", len(callers)+btoi(foreign)), true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.recent) - 1; i >= 0; i-- {
		if ss := f.recent[i]; live[ss] && supports(ss, method) {
			return caller{ss: ss}, "", true
		}
	}
	return caller{}, "no client connected to a gateway supports it", false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// caller is a client with requests under way to a server: the session its request
// came on and, when its newest such call runs as a multi-round-trip exchange (a
// client of 2026-07-28, see mrtr.go), that exchange. Over Streamable HTTP without
// sessions each round of an exchange has a session of its own: ss is the first.
type caller struct {
	ss  *mcp.ServerSession
	ex  *exchange
	ctx context.Context // of its newest request under way (nil: none)
}

// session is where messages to the caller go: the session of the exchange's
// current round, or ss.
func (c caller) session() *mcp.ServerSession {
	if c.ex != nil {
		return c.ex.session()
	}
	return c.ss
}

// callers are the clients with requests under way to the server that sent a
// message (see upstream.InFlight), each once; foreign reports calls under way that
// are not theirs (a program's own call on the hub, another gateway's, one of a
// client that has left).
func (f *forwarder) callers(ctx context.Context, live map[*mcp.ServerSession]bool) (out []caller, foreign bool) {
	for _, c := range upstream.InFlight(ctx) { // oldest first
		ss, _ := c.Value(sessionKey{}).(*mcp.ServerSession)
		ex, _ := c.Value(exchangeKey{}).(*exchange)
		if ss == nil || (ex == nil && !live[ss]) {
			foreign = true
			continue
		}
		if i := slices.IndexFunc(out, func(o caller) bool { return o.ss == ss }); i >= 0 {
			out[i].ex, out[i].ctx = ex, c // the newest call decides
			continue
		}
		out = append(out, caller{ss, ex, c})
	}
	return out, foreign
}

// supports reports whether the client said it can answer method.
func supports(ss *mcp.ServerSession, method string) bool {
	p := ss.InitializeParams()
	return p != nil && capable(p.Capabilities, method)
}

// capable reports whether capabilities c cover answering method.
func capable(c *mcp.ClientCapabilities, method string) bool {
	if c == nil {
		return false
	}
	switch method {
	case upstream.MethodCreateMessage:
		return c.Sampling != nil
	case upstream.MethodElicit:
		return c.Elicitation != nil
	case upstream.MethodListRoots:
		return c.RootsV2 != nil || c.Roots.ListChanged
	}
	return false
}

// Notify implements upstream.Peer.
func (f *forwarder) Notify(ctx context.Context, server, method string, params mcp.Params) {
	var err error
	switch p := params.(type) {
	case *mcp.ProgressNotificationParams:
		token, _ := p.ProgressToken.(string)
		f.mu.Lock()
		dest, ok := f.progress[token]
		f.mu.Unlock()
		if !ok {
			return // the request is over, or the token is not ours
		}
		c := *p
		c.ProgressToken = dest.token
		err = retryDetached(ctx, dest.context(ctx), func(ctx context.Context) error { return dest.session().NotifyProgress(ctx, &c) })
	case *mcp.LoggingMessageParams:
		c := *p
		if c.Logger == "" {
			c.Logger = server
		}
		live := f.sessions()
		switch callers, foreign := f.callers(ctx, live); {
		case len(callers) == 0 && !foreign: // not caused by a request: every client, at its level
			for ss := range live {
				if e := ss.Log(detach(ctx), &c); e != nil {
					err = e
				}
			}
		case len(callers) == 1 && !foreign:
			err = retryDetached(ctx, callers[0].context(ctx), func(ctx context.Context) error { return callers[0].session().Log(ctx, &c) })
		default:
			f.g.log.Debug("log message of a server with calls of several callers (or of none of this gateway's clients) under way not passed on", "server", server)
		}
	case *mcp.ResourceUpdatedNotificationParams:
		err = f.g.server.ResourceUpdated(detach(ctx), p)
	case *mcp.ElicitationCompleteParams:
		live := f.sessions()
		if callers, foreign := f.callers(ctx, live); len(callers) == 1 && !foreign {
			err = callers[0].session().NotifyElicitationComplete(callers[0].context(ctx), p)
			break
		}
		for ss := range live { // the elicitation ID tells the client whether it is its own
			if e := ss.NotifyElicitationComplete(detach(ctx), p); e != nil {
				err = e
			}
		}
	}
	if err != nil {
		f.g.log.Debug("notification not passed on", "server", server, "method", method, "err", err)
	}
}

// context is ctx for a message to caller c: with the values of c's request (the
// SDK sends a message on the stream of the request its context names; for an
// exchange, its current round's), or none.
func (c caller) context(ctx context.Context) context.Context {
	if c.ctx == nil {
		return detach(ctx)
	}
	return valuesOf{ctx, c.ctx}
}

type valuesOf struct {
	context.Context
	values context.Context
}

func (c valuesOf) Value(key any) any { return c.values.Value(key) }

// retryDetached sends with related (the context of the client's request, so that
// the message goes on that request's stream) and, if the SDK refuses because the
// request has just been answered, again without it (on the session's own stream).
func retryDetached(ctx, related context.Context, send func(context.Context) error) error {
	if err := send(related); err == nil || related.Value(sessionKey{}) == nil {
		return err
	}
	return send(detach(ctx))
}

// detach is ctx's cancellation without its values: values of one client's request
// (the SDK ties a message to the request stream it names) must not steer a
// message to another client.
func detach(ctx context.Context) context.Context { return valuesOf{ctx, context.Background()} }
