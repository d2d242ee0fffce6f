package api

import "github.com/switchboard-mcp/switchboard/conversation"

// conversations is the Runner of the API's turns: the approve policy (NeedsApproval,
// else the servers' "approve"), the waits for a person bounded by ApprovalTimeout
// and InputTimeout, every turn's events in the metrics and its calls in the recent
// calls of GET /v1/events.
func (s *Server) conversations() *conversation.Runner {
	policy := s.opts.NeedsApproval
	if policy == nil {
		policy = conversation.ServerPolicy(s.hub.Server)
	}
	return conversation.New(s.opts.Agent, &conversation.Options{
		NeedsApproval:   policy,
		ApprovalTimeout: s.opts.ApprovalTimeout,
		InputTimeout:    s.opts.InputTimeout,
		OnEvent:         s.observe,
		OnEnd:           func(_ *conversation.Request, err error) { s.metrics.turnEnded(err) },
		OnCall:          s.recordCall,
		Logger:          s.log,
	})
}
