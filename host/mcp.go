package host

import (
	"context"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway"
)

// StartShared starts every server as Start does, for clients not known in advance
// (the gateway over HTTP, the API): the servers are told every capability the
// gateway can forward (gateway.AllForwardable), and a request goes to a client that
// has it.
func (h *Host) StartShared(ctx context.Context) error {
	return h.Start(ctx, gateway.AllForwardable())
}

// ServeMCP serves the gateway (Gateway) over Streamable HTTP at /mcp and legacy SSE
// at /sse on ln, with opts's HTTP settings (nil: the defaults), until the bridge's
// Close. Start the servers with StartShared.
func (h *Host) ServeMCP(ln net.Listener, opts *gateway.HTTPOptions) (*gateway.Bridge, error) {
	gw, err := h.Gateway(nil)
	if err != nil {
		return nil, err
	}
	return gw.Serve(ln, opts), nil
}

// ServeMCPStdio serves the gateway (Gateway) to the one client on stdin and stdout
// until ctx ends or the client leaves. The servers start when the client's first
// request arrives, by start with the client's capabilities (some servers offer
// tools according to them); requests wait for the start, and get its error when it
// fails. The gateway is closed when ServeMCPStdio returns, so start has returned by
// then.
func (h *Host) ServeMCPStdio(ctx context.Context, start func(context.Context, *mcp.ClientCapabilities) error) error {
	gw, err := h.Gateway(&gateway.Options{Start: start})
	if err != nil {
		return err
	}
	err = gw.ServeStdio(ctx)
	gw.Close()
	return err
}
