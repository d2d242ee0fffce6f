package gateway

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay"
	"github.com/switchboard-mcp/switchboard/telemetry"
	"github.com/switchboard-mcp/switchboard/tool"
)

// nextToken numbers the progress tokens the gateways send upstream: one count for
// the process, so that two gateways on one hub (whose servers' progress every
// gateway sees) never send the same token.
var nextToken atomic.Uint64

type progressDest struct {
	caller     // who made the request (its context, and the exchange it runs in, if any)
	token  any // the client's own token
}

// begin prepares forwarding one request of ss: ctx carries the session (for the
// messages the request causes) and the _meta to send upstream (tool.WithMeta),
// which is also returned. done undoes the progress token's mapping.
func (f *forwarder) begin(ctx context.Context, ss *mcp.ServerSession, meta mcp.Meta) (_ context.Context, out mcp.Meta, done func()) {
	ctx = context.WithValue(ctx, sessionKey{}, ss)
	if p := ss.InitializeParams(); p != nil && p.Capabilities != nil {
		ctx = relay.WithClientCapabilities(ctx, p.Capabilities) // what a server of 2026-07-28 may ask of it
	}
	ctx = telemetry.ExtractMeta(ctx, meta) // the client's trace, when its _meta has one
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
			// Per-request protocol keys of protocol 2026-07-28 describe the client's
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
