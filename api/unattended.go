package api

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// An unattended turn is the turn of a request that brings its whole conversation
// (POST /v1/chat/completions, POST /v1/messages, POST /v1/responses): it runs over
// the request's messages only, held in memory (the person's sessions are not
// touched), and nobody can be asked anything during it, so a call that needs
// approval is denied and a server's question declined, the model told where a
// person could answer (conversation.Unattended).

// unattendedTurn is the turn of a request whose conversation is sess, under id: the
// client's tools, nobody to ask, and its calls observed as a chat's of the person
// who asks (its calls show in their recent calls only: events.go).
func (s *Server) unattendedTurn(ctx context.Context, id string, sess *session.Session, client []tool.Tool) *conversation.Request {
	owner := identity.Owner(ctx)
	sess.ID, sess.Owner = id, owner
	where := unattendedPath(ctx)
	return &conversation.Request{Session: id, InMemory: sess, Owner: owner, Source: sourceChat, ClientTools: client,
		Unattended: &conversation.Unattended{
			Refuse: func(tool string) string {
				return "the user must approve " + tool + ", which " + where + " cannot ask for (use a session: POST /v1/sessions)"
			},
			Decline: func(server, message string) string {
				return fmt.Sprintf("server %s asked the user %q during this call, which %s cannot ask (there is nobody to answer); it was declined (a session, POST /v1/sessions, can ask the user)",
					server, message, where)
			},
		}}
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
