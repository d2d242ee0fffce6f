package httpx

import (
	"context"

	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
)

// OwnedSession is session id when the request's person (identity.FromContext) may
// see it; else, for a session of someone else's, the store's error for a missing
// one (session.NotFound), so that not even its existence shows.
func OwnedSession(ctx context.Context, store session.Store, id string) (*session.Session, error) {
	sess, err := store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if !identity.Allowed(ctx, sess.Owner) {
		return nil, session.NotFound(id)
	}
	return sess, nil
}
