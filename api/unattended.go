package api

import (
	"context"
	"strings"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// An unattended turn is the turn of a request that brings its whole conversation
// (POST /v1/chat/completions, POST /v1/messages): it runs over the request's messages
// only, in a memory store of its own that is forgotten afterwards (the person's
// sessions are not touched), and nobody can be asked anything during it, so a call
// that needs approval is denied and a server's question declined
// (approveUnattended, declineUnattended).

// unattendedTurn stores sess under id in a store of the request's own and returns the
// options of its turn: that store, the client's tools, the unattended approver and
// eliciter, and the turn's events observed as a chat's of the person who asks (its
// calls show in their recent calls only: events.go). close forgets the store.
func (s *Server) unattendedTurn(ctx context.Context, id string, sess *session.Session, client []tool.Tool) (opts agent.TurnOptions, close func(), err error) {
	owner := identity.Owner(ctx)
	sess.ID, sess.Owner = id, owner
	store := session.NewMemory()
	if err := store.Create(ctx, sess); err != nil {
		store.Close()
		return agent.TurnOptions{}, nil, err
	}
	opts = agent.TurnOptions{Store: store, ClientTools: client, Approve: s.approveUnattended, Elicit: declineUnattended,
		OnEvent: func(e agent.Event) { s.observe(e, sourceChat, owner) }}
	return opts, func() { store.Close() }, nil
}

// unattendedPath is the path of the endpoint whose turn ctx belongs to, as the model
// is told it ("/v1/chat/completions").
func unattendedPath(ctx context.Context) string {
	if in, ok := ctx.Value(infoKey).(*requestInfo); ok && in.route != nil {
		_, p, _ := strings.Cut(in.route.pattern, " ")
		return p
	}
	return "this endpoint"
}
