package gateway

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
