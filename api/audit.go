package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/usage"
)

// auditContext gives the tool calls a request makes what their audit lines (the
// hub's, hub.Hub.SetAudit) know of the request besides its person: its request id,
// and the session of a session's route.
//
// The gateway's routes get neither: the MCP SDK runs a Streamable HTTP session's
// handlers with the context of the POST that opened the session (its values, not
// each later POST's), so any id put here would be that first POST's. Their person is
// the one of that POST too; the SDK keeps it right by refusing a session's later
// POSTs from anyone else (403 "session user mismatch"), which it checks on the
// auth.TokenInfo of each POST's context: every request with a person gets one here
// (sessionUser), the static token's admin too, whose session another person's token
// would otherwise take up by its Mcp-Session-Id. A legacy SSE session is bound the
// same way, here (sseSessions).
func (s *Server) auditContext(rt route, next http.Handler) http.Handler {
	source := usageSource(rt)
	if rt.errors == mcpErrors {
		bound := bindSubject(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r = r.WithContext(usage.WithSource(r.Context(), source))
			p, ok := identity.FromContext(r.Context())
			switch {
			case ok && r.URL.Path == "/sse": // legacy SSE: sessions bound here (ssebind.go)
				s.sse.serve(sessionUser(p), next, w, r)
			case ok && bearer(r):
				bound.ServeHTTP(w, r)
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attrs := []slog.Attr{slog.String("request_id", w.Header().Get(RequestIDHeader))}
		if id := r.PathValue("id"); id != "" { // the session routes' {id}
			attrs = append(attrs, slog.String("session", id))
		}
		ctx := usage.WithSource(hub.WithAuditAttrs(r.Context(), attrs...), source)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// usageSource is where the calls of a route come from, as usage records them: the
// gateway's, a compatible API's, a session's turn or the API's own.
func usageSource(rt route) string {
	switch {
	case rt.errors == mcpErrors:
		return session.SourceMCP
	case rt.errors == openAIErrors || rt.errors == anthropicErrors:
		return session.SourceCompat
	case strings.HasPrefix(rt.pattern, "POST /v1/sessions/"):
		return session.SourceTurn
	}
	return session.SourceAPI
}

// bindSubject puts in a request's context the auth.TokenInfo whose UserID is its
// person's (sessionUser): the SDK's way (auth.RequireBearerToken, the only one that
// sets it) to bind a Streamable HTTP session to the person who opened it. It takes
// the person the API identified; the token was checked then.
var bindSubject = auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
	p, _ := identity.FromContext(ctx)
	return &auth.TokenInfo{UserID: sessionUser(p)}, nil
}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})

// staticTokenUser is the session user of the static token's admin (a person with no
// subject). A person's is "sub:" and their subject, so that no subject a provider
// issues, this string included, is ever the static token's.
const staticTokenUser = "static token"

// sessionUser is the user an MCP session of p is bound to.
func sessionUser(p identity.Person) string {
	if p.Subject == "" {
		return staticTokenUser
	}
	return "sub:" + p.Subject
}

// bearer reports whether r carries "Authorization: Bearer TOKEN", as
// auth.RequireBearerToken wants it.
func bearer(r *http.Request) bool {
	f := strings.Fields(r.Header.Get("Authorization"))
	return len(f) == 2 && strings.EqualFold(f[0], "bearer")
}
