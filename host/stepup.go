package host

import (
	"context"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/tool"
)

// StepUp is the host's catalog for a caller that can sign in again: a call that
// its server refused for want of a scope (403 insufficient_scope: an error result)
// is made once more when again, told that server, says it signed in anew (at a
// terminal, say); the caller sees the second result only. again decides itself
// whether the refusal was for a scope and whether a person can be asked.
func (h *Host) StepUp(again func(ctx context.Context, server string) bool) tool.Toolset {
	return stepUpTools{Toolset: h.hub, h: h, again: again}
}

// NeedsStepUp reports whether the named server's last refusal was for want of a
// scope (403 insufficient_scope, its handler's Challenge): a new sign-in may grant
// it, so a StepUp caller's again may sign in and say so. False for a server that is
// not the config's, or that Switchboard does not sign in to.
func (h *Host) NeedsStepUp(server string) bool {
	srv, ok := h.hub.Server(server)
	if !ok {
		return false
	}
	sh := h.signins.Handler(srv)
	if sh == nil {
		return false
	}
	ch := sh.Challenge()
	return ch != nil && ch.StepUp()
}

type stepUpTools struct {
	tool.Toolset
	h     *Host
	again func(ctx context.Context, server string) bool
}

func (t stepUpTools) Call(ctx context.Context, name string, args json.RawMessage) (*tool.Result, error) {
	res, err := t.Toolset.Call(ctx, name, args)
	if err != nil || !res.IsError {
		return res, err
	}
	if tl, ok := t.h.hub.Lookup(name); ok && t.again(ctx, tl.Server) {
		return t.Toolset.Call(ctx, name, args)
	}
	return res, nil
}

// Lookup is the hub's, which an agent uses when a toolset has one.
func (t stepUpTools) Lookup(name string) (tool.Tool, bool) { return t.h.hub.Lookup(name) }

// ToolText is a tool's result as text, as a model gets it (tool.Text).
func ToolText(r *tool.Result) string { return tool.Text(r) }
