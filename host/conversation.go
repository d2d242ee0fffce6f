package host

import (
	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/conversation"
)

// NeedsApproval is the approve policy of the config's servers: whether a call must
// be approved by a person before it runs (its server lists the tool under
// "approve"; conversation.ServerPolicy).
func (h *Host) NeedsApproval(c agent.Call) bool {
	return conversation.ServerPolicy(h.hub.Server)(c)
}

// Conversations runs the turns a person watches over a (an agent of Agent's): the
// servers' approve policy (NeedsApproval), the calls that wait for a decision and
// the servers' questions that wait for an answer, each turn a stream of events to
// render (conversation.Runner). opts, when not nil, gives the timeouts and the
// observers; its NeedsApproval, when set, takes the place of the servers' policy,
// and its Logger of the Host's.
func (h *Host) Conversations(a *agent.Agent, opts *conversation.Options) *conversation.Runner {
	var o conversation.Options
	if opts != nil {
		o = *opts
	}
	if o.NeedsApproval == nil {
		o.NeedsApproval = h.NeedsApproval
	}
	if o.Logger == nil {
		o.Logger = h.log
	}
	return conversation.New(a, &o)
}
