package api

import "github.com/switchboard-mcp/switchboard/conversation"

// turnObserver watches each turn the API starts (startTurn): its events in the
// metrics, its end in the failed model requests, its calls in the recent calls of
// GET /v1/events.
func (s *Server) turnObserver() *conversation.Observer {
	return &conversation.Observer{
		OnEvent: func(e conversation.Event) { s.metrics.event(e) },
		OnEnd:   s.metrics.turnEnded,
		OnCall:  s.recordCall,
	}
}
