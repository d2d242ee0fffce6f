package upstream

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SetCapabilities sets what the client announces to the server from the next
// connection on (a gateway passes on its clients' capabilities). It does not
// reconnect.
func (s *Supervisor) SetCapabilities(caps *mcp.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.caps = caps
}

// clientCapabilities is a copy of what to announce at connect; never nil (nil in
// the SDK's options would announce roots).
func (s *Supervisor) clientCapabilities() *mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.caps == nil {
		return &mcp.ClientCapabilities{}
	}
	c := *s.caps
	return &c
}

// Do runs fn on the live session, waiting (within ctx and the tool timeout) for a
// server that is connecting or reconnecting. It is how requests other than
// tools/call reach the server (prompts, resources, completions); they are sent once.
// A JSON-RPC error from the server comes back as a *jsonrpc.Error with its code;
// other errors are redacted.
func (s *Supervisor) Do(ctx context.Context, fn func(context.Context, *mcp.ClientSession) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.ToolTimeout())
	defer cancel()
	defer s.inflight.begin(ctx)()
	c, err := s.waitReady(ctx)
	if err != nil {
		return err
	}
	reqCtx, stop := c.bound(ctx)
	err = fn(reqCtx, c.sess)
	stop()
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
		return nil
	case s.giveUp(ctx, c, err) != nil:
		return s.lostError(c, "request")
	case replied(err) && errors.As(err, &rpcErr):
		return &jsonrpc.Error{Code: rpcErr.Code, Message: s.redact(rpcErr.Message), Data: rpcErr.Data}
	case ctx.Err() == nil && c.calls.Err() != nil:
		return s.lostError(c, "request")
	}
	return s.callError(ctx, err)
}

// SetLogLevel asks the server to send log messages at level and above, now if it is
// ready and after every reconnect; a server of the 2026-07-28 protocol gets the level
// in each request's _meta instead (requestEra). Servers without the logging
// capability are left alone.
func (s *Supervisor) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) error {
	s.mu.Lock()
	s.logLevel = level
	c := s.cur
	s.mu.Unlock()
	if c == nil || !c.hasLogging() || modern(c.sess) {
		return nil // a modern server gets the level with each request (requestEra)
	}
	return s.Do(ctx, func(ctx context.Context, cs *mcp.ClientSession) error {
		return cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level})
	})
}

// hasLogging reports whether the server of c announced the logging capability.
func (c *conn) hasLogging() bool {
	r := c.sess.InitializeResult()
	return r != nil && r.Capabilities != nil && r.Capabilities.Logging != nil
}

// Subscribe asks the server for notifications/resources/updated about uri, and asks
// again after every reconnect until Unsubscribe.
func (s *Supervisor) Subscribe(ctx context.Context, uri string) error {
	err := s.Do(ctx, func(ctx context.Context, cs *mcp.ClientSession) error {
		return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	})
	if err == nil {
		s.mu.Lock()
		s.subs[uri] = struct{}{}
		s.mu.Unlock()
	}
	return err
}

// Unsubscribe ends a subscription made with Subscribe. A server of the 2026-07-28
// protocol keeps sending the resource's updates until the connection ends (Peers
// keep only those of the URIs their clients hold): the subscription is a
// subscriptions/listen stream, and the Go SDK v1.8 server drops every list-change
// subscription of the session when any of its listen streams ends, so that ending
// it would stop tools, prompts and resources/list_changed too.
func (s *Supervisor) Unsubscribe(ctx context.Context, uri string) error {
	s.mu.Lock()
	delete(s.subs, uri)
	s.mu.Unlock()
	return s.Do(ctx, func(ctx context.Context, cs *mcp.ClientSession) error {
		if modern(cs) {
			return nil
		}
		return cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	})
}

// Preset sets the log level (unless "") and the resource subscriptions that every
// connection of s applies once made, as SetLogLevel and Subscribe would have set them
// before: for a server that takes the place of another, before Start.
func (s *Supervisor) Preset(level mcp.LoggingLevel, uris []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if level != "" {
		s.logLevel = level
	}
	for _, uri := range uris {
		s.subs[uri] = struct{}{}
	}
}

// restore re-applies the log level and the subscriptions on a new connection. A
// failure is logged: the connection serves anyway.
func (s *Supervisor) restore(ctx context.Context, c *conn) {
	s.mu.Lock()
	level := s.logLevel
	uris := slices.Sorted(maps.Keys(s.subs))
	s.mu.Unlock()
	if level != "" && c.hasLogging() && !modern(c.sess) {
		if err := c.sess.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level}); err != nil && s.ctx.Err() == nil {
			s.log.Warn("restoring the log level failed", "level", level, "err", s.redact(err.Error()))
		}
	}
	for _, uri := range uris {
		if err := c.sess.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil && s.ctx.Err() == nil {
			s.log.Warn("restoring a resource subscription failed", "uri", uri, "err", s.redact(err.Error()))
		}
	}
}

// rootsMarker is the one root the client object holds: re-adding it is how the SDK
// is made to send notifications/roots/list_changed. The roots themselves are the
// Peer's answer to roots/list.
var rootsMarker = &mcp.Root{URI: "switchboard:roots", Name: "roots are answered by the gateway's client"}

// NotifyRootsChanged tells the server, if connected and told that the client has
// roots, that the roots changed (it will ask for them again).
func (s *Supervisor) NotifyRootsChanged() {
	s.mu.Lock()
	c := s.cur
	s.mu.Unlock()
	if c == nil || c.client == nil || modern(c.sess) {
		return // a modern server asks for the roots each time it needs them
	}
	c.client.AddRoots(rootsMarker)
}
