package api

import (
	"context"
	"time"

	"github.com/switchboard-mcp/switchboard/session"
)

// storePingTimeout bounds the probes' ping of the session store: a database that does
// not answer in that time is as good as away for a turn.
const storePingTimeout = 2 * time.Second

// pingStore asks the session store whether it answers (session.Pinger): a shared
// store on another host may be away while this replica runs. A store that cannot be
// pinged (memory), or none, counts as reachable. The error is the store's own,
// which names the server and never the password.
func (s *Server) pingStore(ctx context.Context) error {
	if s.opts.Sessions == nil {
		return nil
	}
	p, ok := s.opts.Sessions.Store().(session.Pinger)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, storePingTimeout)
	defer cancel()
	return p.Ping(ctx)
}
