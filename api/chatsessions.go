package api

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
)

// Who sees a session: with identities on (Options.Identify), its owner (the subject
// that created it) and the admins; a session without an owner (made before
// identities, or by the static token) only the admins. Everyone else is told, on
// every route under /v1/sessions/{id}, exactly what a session that does not exist
// tells: the store's own not-found error, so that not even its existence shows.
// Without identities everything is everyone's, as before.

// ownedSession is session id when the request's person may see it; else, for a
// session of someone else's, the store's error for a missing one (session.NotFound).
func ownedSession(ctx context.Context, store session.Store, id string) (*session.Session, error) {
	return httpx.OwnedSession(ctx, store, id)
}

// sessionOwner is ownedSession's check without the history: session id's owner when
// the request's person may see it, else the store's error for a missing session.
func sessionOwner(ctx context.Context, store session.Store, id string) (string, error) {
	owner, err := session.OwnerOf(ctx, store, id)
	if err != nil {
		return "", err
	}
	if !identity.Allowed(ctx, owner) {
		return "", session.NotFound(id)
	}
	return owner, nil
}

// choosesNoID is why a person may not choose a new session's id, or "": ids are one
// namespace for everyone, so a chosen id that someone else holds could not be
// created, and the refusal would tell that the id exists. A person who is not an
// admin gets a random id; an admin (who sees every session anyway) and a service
// without identities may choose as before.
func choosesNoID(ctx context.Context) string {
	if !identity.Admin(ctx) {
		return `"id": with identities on, the service picks a session's id (a chosen one could tell whether someone else holds it): send none`
	}
	return ""
}

// sessionsOr503 is the session store, or false after answering 503 when the API has
// none.
func (s *Server) sessionsOr503(w http.ResponseWriter, r *http.Request) (*session.Janitor, bool) {
	if s.opts.Sessions == nil {
		writeError(w, r, http.StatusServiceUnavailable, apiwire.CodeNoSessions, "this server keeps no sessions")
		return nil, false
	}
	return s.opts.Sessions, true
}

// sessionError answers a store error with its status: 404 for a session that does not
// exist, 409 for one that a turn holds or an id taken, 500 for the rest.
func sessionError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, session.ErrNotFound):
		writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, err.Error())
	case errors.Is(err, session.ErrBusy):
		writeError(w, r, http.StatusConflict, apiwire.CodeBusy, err.Error())
	case errors.Is(err, session.ErrExists):
		writeError(w, r, http.StatusConflict, apiwire.CodeExists, err.Error())
	default:
		writeError(w, r, http.StatusInternalServerError, apiwire.CodeStoreFailed, err.Error())
	}
}

// createSession creates a session: {} or {"id", "system", "metadata"}, all optional
// (a random id; the agent's system prompt). 201 with the session.
func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	sessions, ok := s.sessionsOr503(w, r)
	if !ok {
		return
	}
	var body struct {
		ID       string            `json:"id"`
		System   string            `json:"system"`
		Metadata map[string]string `json:"metadata"`
	}
	if e := s.decodeBody(w, r, &body, true); e != nil {
		writeAPIError(w, r, e)
		return
	}
	// An id chosen by the client follows the rule chat --session follows too.
	if body.ID != "" {
		if why := choosesNoID(r.Context()); why != "" {
			writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, why)
			return
		}
		if err := session.CheckID(body.ID); err != nil {
			writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, `"id": `+err.Error())
			return
		}
	}
	sess := &session.Session{ID: body.ID, Owner: identity.Owner(r.Context()), System: body.System, Metadata: body.Metadata}
	if err := sessions.Create(r.Context(), sess); err != nil {
		sessionError(w, r, err)
		return
	}
	if sess.Messages == nil {
		sess.Messages = []llmMessage{}
	}
	s.logOf(r.Context()).Info("session created", "session", sess.ID)
	writeJSON(w, http.StatusCreated, sess)
}

// listSessions answers GET /v1/sessions: see sessionQuery.
func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	sessions, ok := s.sessionsOr503(w, r)
	if !ok {
		return
	}
	sq, e := parseSessionQuery(r.Context(), r.URL.Query())
	if e != nil {
		writeAPIError(w, r, e)
		return
	}
	list, err := sessions.Store().List(r.Context())
	if err != nil {
		sessionError(w, r, err)
		return
	}
	// One's own: an admin's are all, with their owners; without identities all.
	list = slices.DeleteFunc(list, func(sum session.Summary) bool { return !identity.Allowed(r.Context(), sum.Owner) })
	// The stores' order, as Go compares: PostgreSQL may order ties by its collation.
	session.SortSummaries(list)
	page, total, next := sq.page(list)
	if page == nil {
		page = []session.Summary{}
	}
	out := map[string]any{"sessions": page, "total": total}
	if next != "" {
		out["next"] = next
	}
	writeJSON(w, http.StatusOK, out)
}

// sessionView is a session with what this process knows of it: whether a turn runs
// in it here, the calls that wait for approval and the servers' questions that wait
// for an answer.
type sessionView struct {
	*session.Session
	Busy      bool              `json:"busy"`
	Approvals []pendingApproval `json:"approvals,omitempty"`
	Inputs    []pendingInput    `json:"inputs,omitempty"`
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	sessions, ok := s.sessionsOr503(w, r)
	if !ok {
		return
	}
	sess, err := ownedSession(r.Context(), sessions.Store(), r.PathValue("id"))
	if err != nil {
		sessionError(w, r, err)
		return
	}
	if sess.Messages == nil {
		sess.Messages = []llmMessage{}
	}
	v := sessionView{Session: sess}
	v.Busy, v.Approvals, v.Inputs = s.busy(sess.ID)
	writeJSON(w, http.StatusOK, v)
}

// deleteSession removes a session: 204, or 409 while a turn runs in it.
func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) {
	sessions, ok := s.sessionsOr503(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if _, ok := identity.FromContext(r.Context()); ok {
		// An owner never changes, so the session seen here is the one deleted (unless
		// it is deleted and made again meanwhile, under the same id: see choosesNoID).
		if _, err := sessionOwner(r.Context(), sessions.Store(), id); err != nil {
			sessionError(w, r, err)
			return
		}
	}
	if err := sessions.Destroy(r.Context(), id); err != nil {
		sessionError(w, r, err)
		return
	}
	s.logOf(r.Context()).Info("session deleted", "session", id)
	w.WriteHeader(http.StatusNoContent)
}
