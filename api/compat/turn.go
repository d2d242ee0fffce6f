package compat

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
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

// unattendedTurn is the turn of request r, whose conversation is sess, under id: the
// client's tools, nobody to ask, and its calls observed as a chat's of the person
// who asks (its calls show in their recent calls only).
func (h *Handler) unattendedTurn(r *http.Request, id string, sess *session.Session, client []tool.Tool) *conversation.Request {
	owner := identity.Owner(r.Context())
	sess.ID, sess.Owner = id, owner
	where := unattendedPath(r)
	return &conversation.Request{Session: id, InMemory: sess, Owner: owner, Source: Source, ClientTools: client,
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

// unattendedPath is the path of the endpoint of r, as the model is told it
// ("/v1/chat/completions"): its route's pattern, which the ServeMux that took r set.
func unattendedPath(r *http.Request) string {
	if _, p, ok := strings.Cut(r.Pattern, " "); ok {
		return p
	}
	return "this endpoint"
}

// startTurn starts a turn, watched by Options.Observer: its stream is the caller's
// to follow.
func (h *Handler) startTurn(ctx context.Context, req *conversation.Request) *conversation.Turn {
	req.Observer = h.opts.Observer
	return h.opts.Conversations.Start(ctx, req)
}

// runTurn runs a turn to its end (startTurn) without following its stream.
func (h *Handler) runTurn(ctx context.Context, req *conversation.Request) (*conversation.Result, error) {
	return h.startTurn(ctx, req).Wait()
}

// completionError is httpx.TurnError for a request's turn: one cancelled because the
// server shuts down and its grace is over says so (nothing of it is kept).
func (h *Handler) completionError(err error) *apiError {
	if h.opts.Closing != nil && h.opts.Closing.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return errorf(http.StatusServiceUnavailable, apiwire.CodeCancelled, "the server is shutting down and its grace is over: the completion was cancelled; send the request again once the server is back")
	}
	return httpx.TurnError(err)
}

// stepJoin streams the text of a turn's steps as one answer, as the answer that is
// not streamed joins them: the first delta of a later step starts with a blank line.
type stepJoin struct{ last int }

func (j *stepJoin) text(e conversation.Event) string {
	text := e.Text
	if j.last != 0 && e.Step != j.last {
		text = "\n\n" + text
	}
	j.last = e.Step
	return text
}

// streamedText is what a stream sends of evs as they come: their text deltas
// (textDeltas), or none when the request asked for an answer format (structured
// outputs, formatted). Such a stream sends the answer whole once the turn has ended
// (answerDelta): the text a step wrote before it called tools is not part of the
// JSON the client parses, and only the turn's end says which step was the last.
func streamedText(evs []conversation.Event, formatted bool) []conversation.Event {
	if formatted {
		return nil
	}
	return textDeltas(evs)
}

// answerDelta is the answer of a formatted turn as one text delta of its last step,
// for a stream to send once the turn has ended (streamedText); none when the turn
// was not formatted or answered no text.
func answerDelta(t *conversation.Result, formatted bool) []conversation.Event {
	if !formatted || t.Answer == "" {
		return nil
	}
	var e conversation.Event
	e.Kind, e.Step, e.Text = conversation.TextDelta, len(t.Steps), t.Answer
	return []conversation.Event{e}
}

// textDeltas are the text deltas of evs that carry text: what an endpoint's stream
// of the answer sends.
func textDeltas(evs []conversation.Event) []conversation.Event {
	var out []conversation.Event
	for _, e := range evs {
		if e.Kind == conversation.TextDelta && e.Text != "" {
			out = append(out, e)
		}
	}
	return out
}
