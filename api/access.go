package api

import (
	"net/http"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/internal/httpguard"
)

// withAccess puts in the request's context its caller's access (package access),
// worked out once from their person and Options.Access: what every view of the
// catalog of the request takes (the tool lists and search, a call, resources and
// prompts, a turn's tools, the gateway's lists) and what the hub checks before any
// call runs. The path's {profile} (/mcp/{profile}) or ?profile=NAME narrows it to
// that profile: 403 when it is not one of the caller's.
func (s *Server) withAccess(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		only := r.PathValue("profile")
		if only == "" {
			only = r.URL.Query().Get("profile")
		}
		acc, err := s.opts.Access.For(r.Context(), only)
		if err != nil {
			httpguard.Unread(w, r)
			writeError(w, r, http.StatusForbidden, apiwire.CodeForbidden, err.Error())
			return
		}
		next.ServeHTTP(w, r.WithContext(access.NewContext(r.Context(), acc)))
	})
}

// profileMCP serves /mcp/{profile}: the gateway at /mcp, whose lists and calls are
// that profile's alone (withAccess narrowed the request's access to it), and whose
// sessions are bound to it (sessionUser), so that a session opened here is never
// taken up at /mcp or at another profile's path.
func (s *Server) profileMCP(w http.ResponseWriter, r *http.Request) {
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = "/mcp", ""
	s.opts.Gateway.ServeHTTP(w, r2)
}
