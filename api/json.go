package api

import (
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/api/compat"
	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/internal/httpguard"
)

// errorBody is every error's JSON: {"error": {"code", "message"}}, with the names
// closest to an unknown tool's when there are some. apiError is one error, with the
// status it is written with. Both are the wire package's, which the CLI decodes.
type (
	errorBody = apiwire.ErrorBody
	apiError  = apiwire.Error
)

func errorf(status int, code, format string, args ...any) *apiError {
	return httpx.Errorf(status, code, format, args...)
}

func writeError(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	writeAPIError(w, r, &apiError{Status: status, Code: code, Message: message})
}

// writeAPIError writes e in the form the request's route answers in: the API's, or
// OpenAI's or Anthropic's at the endpoints compatible with theirs (package compat),
// or JSON-RPC's at the MCP gateway's.
func writeAPIError(w http.ResponseWriter, r *http.Request, e *apiError) {
	switch errorFormOf(r) {
	case openAIErrors:
		compat.WriteOpenAIError(w, e)
	case mcpErrors:
		httpguard.JSONRPCError(w, e.Status, e.Message)
	case anthropicErrors:
		compat.WriteAnthropicError(w, e)
	default:
		writeJSON(w, e.Status, errorBody{Error: *e})
	}
}

// errorFormOf is the form of r's errors: its route's; for a request that no route
// takes, that of the compatible API whose path it is under (/v1/messages…:
// Anthropic's, /v1/responses…: OpenAI's), so that their clients read its 404 or 405
// (and the 401 before it) as they read every other error of that API; else the API's.
func errorFormOf(r *http.Request) errorForm {
	if rt := routeOf(r); rt != nil {
		return rt.errors
	}
	under := func(prefix string) bool { return r.URL.Path == prefix || strings.HasPrefix(r.URL.Path, prefix+"/") }
	switch {
	case under("/v1/messages"):
		return anthropicErrors
	case under("/v1/responses"):
		return openAIErrors
	}
	return apiErrors
}

// writeJSON writes v indented by two spaces (httpx.WriteJSON).
func writeJSON(w http.ResponseWriter, status int, v any) { httpx.WriteJSON(w, status, v) }

// decodeBody reads the request's JSON object into v, within Options.MaxRequestBytes
// (httpx.DecodeBody). An empty body leaves v as it is when optional.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any, optional bool) *apiError {
	return httpx.DecodeBody(w, r, v, s.opts.MaxRequestBytes, optional)
}
