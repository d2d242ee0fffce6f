package gateway

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay"
)

// Client to server: what a client asks beyond tools/call — prompts/get,
// resources/read, completion/complete, resources/subscribe and unsubscribe,
// logging/setLevel — goes to the Upstreams, and every request first passes the
// middleware here.

// middleware sees every request a client sends: it ends one that no answer can
// reach any more (see cancellation.go), records who spoke last, holds
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
				res, err := f.read(ctx, ss, req.GetParams().(*mcp.ReadResourceParams))
				if err != nil || !requestIs2026(req) {
					return res, err
				}
				return withResultType(res) // see wire.go
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
		want = relay.MostVerbose(want, l)
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
		c.Meta, c.InputResponses, c.RequestState = meta, nil, "" // the client's rounds are the gateway's (see roundTrip)
		if r, ok := relay.InputRoundOf(ctx); ok {
			c.InputResponses, c.RequestState = r.Responses, r.State
		}
		res, err := f.g.up.ReadResource(ctx, &c)
		if res != nil && res.CacheScope == "" {
			// A 2026-07-28 client must get a valid scope; absent means "public"
			// (what a server of an older protocol, which sends none, implies).
			res.CacheScope = "public"
		}
		return res, err
	}
	return roundTrip(ctx, f, ss, "resources/read "+p.URI, p.RequestState, p.InputResponses, call, // see mrtr_clients.go
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
		c.Meta, c.InputResponses, c.RequestState = meta, nil, "" // the client's rounds are the gateway's (see roundTrip)
		if r, ok := relay.InputRoundOf(ctx); ok {
			c.InputResponses, c.RequestState = r.Responses, r.State
		}
		return f.g.up.GetPrompt(ctx, &c)
	}
	return roundTrip(ctx, f, req.Session, "prompts/get "+p.Name, p.RequestState, p.InputResponses, call, // see mrtr_clients.go
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
