package api

import (
	"net/http"

	"github.com/switchboard-mcp/switchboard/api/compat"
)

// The endpoints compatible with OpenAI's and Anthropic's APIs are package compat's
// (api/compat), over the same conversation.Runner as the sessions' turns; the route
// table (routes.go) mounts them through these methods, behind the same middleware.

// newCompat is the compatible endpoints' Handler: the API's Runner, model, store and
// body limit, its turn observer (metrics, recent calls), and its base context, which
// Shutdown cancels at the end of its grace.
func (s *Server) newCompat() *compat.Handler {
	return compat.New(&compat.Options{
		Conversations:   s.conv,
		NoModel:         s.opts.NoModel,
		Model:           s.opts.Model,
		Sessions:        s.opts.Sessions,
		MaxRequestBytes: s.opts.MaxRequestBytes,
		Observer:        s.observer,
		Closing:         s.base,
		Logger:          s.log,
	})
}

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	s.compat.ChatCompletions(w, r)
}
func (s *Server) listModels(w http.ResponseWriter, r *http.Request) { s.compat.Models(w, r) }
func (s *Server) createResponse(w http.ResponseWriter, r *http.Request) {
	s.compat.CreateResponse(w, r)
}
func (s *Server) getResponse(w http.ResponseWriter, r *http.Request) { s.compat.GetResponse(w, r) }
func (s *Server) messages(w http.ResponseWriter, r *http.Request)    { s.compat.Messages(w, r) }
func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) { s.compat.CountTokens(w, r) }
func (s *Server) listInputItems(w http.ResponseWriter, r *http.Request) {
	s.compat.ListInputItems(w, r)
}
func (s *Server) deleteResponse(w http.ResponseWriter, r *http.Request) {
	s.compat.DeleteResponse(w, r)
}

// apiKeyAsBearer lets Anthropic's clients in: at a path that answers in Anthropic's
// form (errorFormOf: its routes, and /v1/messages… that no route takes), "x-api-key: KEY" counts as "Authorization: Bearer KEY" when the request has
// no Authorization, for the token (compared in constant time by httpguard.Bearer)
// and for Options.Identify alike.
func apiKeyAsBearer(r *http.Request) *http.Request {
	key := r.Header.Get("X-Api-Key")
	if errorFormOf(r) != anthropicErrors || key == "" || r.Header.Get("Authorization") != "" {
		return r
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+key)
	return r
}
