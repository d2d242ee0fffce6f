package signin

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/switchboard-mcp/switchboard/config"
)

// A person's own sign-in. A server whose "oauth" says "perUser", under a service
// with identities, is signed in to by each person for themselves, and their calls
// carry their own tokens: the handler of (server, subject) keeps its records under
// that subject in the store (Record.Subject), apart from the service's own and from
// everyone else's, and signs in, refreshes and forgets as the service's own handler
// does. Without a person (the CLI, mcp, a service without identities) the service's
// own handler serves, as before.

// personKey is a person's handler's key: the server's name and the subject.
type personKey struct{ server, subject string }

// PerUser reports whether each person signs in to s for themselves: Switchboard
// signs in to s (see [Signs]) and its "oauth" says "perUser".
func PerUser(s config.Server) bool {
	return Signs(s) && s.OAuth != nil && s.OAuth.PerUser
}

// Person returns the handler of the person subject's own sign-in to s, made on the
// first call and kept while s's configuration stays the same; the service's own
// (Handler) for subject "" or a server that is not [PerUser]; nil when Switchboard
// does not sign in to s.
func (hs *Handlers) Person(s config.Server, subject string) *Handler {
	if subject == "" || !PerUser(s) {
		return hs.handler(s)
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	k := personKey{s.Name, subject}
	if h := hs.byPerson[k]; h != nil && h.srv.URL == s.URL && sameOAuth(h.srv.OAuth, s.OAuth) {
		return h
	}
	if hs.byPerson == nil {
		hs.byPerson = map[personKey]*Handler{}
	}
	h := &Handler{hs: hs, srv: s, subject: subject, log: hs.log.With("server", s.Name, "subject", subject),
		signedIn: make(chan struct{})}
	hs.byPerson[k] = h
	return h
}

// ForPerson is Person as an auth.OAuthHandler, a nil interface when Switchboard
// does not sign in to s: what a hub's hub.PerUserOptions.OAuth takes.
func (hs *Handlers) ForPerson(s config.Server, subject string) auth.OAuthHandler {
	if h := hs.Person(s, subject); h != nil {
		return h
	}
	return nil
}

// Subject is the person whose own sign-in the handler holds; "" for the service's own.
func (h *Handler) Subject() string { return h.subject }

// SignInNeeded returns a *NeedsSignInError, at once and without a request to the
// server, when the handler holds no token at all: nobody signed in yet (or the
// sign-in was forgotten). nil when it holds one, which the server may still refuse.
// A hub asks it before it connects a person to a "perUser" server. Without a token
// it looks at the store again: the person may have signed in on another replica.
func (h *Handler) SignInNeeded(ctx context.Context) error {
	h.mu.Lock()
	h.loadLocked(ctx)
	if h.rec == nil || h.rec.Token == nil {
		if rec := h.newerLocked(ctx, ""); rec != nil {
			h.adoptLocked(rec)
		}
	}
	ok := h.rec != nil && h.rec.Token != nil
	h.mu.Unlock()
	if ok {
		return nil
	}
	err := &NeedsSignInError{Server: h.srv.Name, Person: h.subject != ""}
	if how := h.hs.how.Load(); how != nil && !err.Person {
		err.How = (*how)(h.srv.Name)
	}
	return err
}
