package api

import (
	"net/http"
)

// route is one entry of the route table: a method+path pattern of net/http's
// ServeMux and its handler.
type route struct {
	pattern string
	handler http.HandlerFunc
	// public routes need no token (probes of load balancers and orchestrators).
	public bool
	// stream: the request is a stream that stays open until the client leaves; at
	// shutdown it is cut at once instead of being waited for.
	stream bool
}

// routes is the table of every endpoint, in one place: the middleware wraps each
// (see buildHandler), and what counts requests by route reads the pattern.
func (s *Server) routes() []route {
	rs := []route{
		{pattern: "GET /healthz", handler: s.healthz, public: true},
		{pattern: "GET /readyz", handler: s.readyz, public: true},
		{pattern: "GET /health", handler: s.health},
		{pattern: "GET /metrics", handler: s.serveMetrics},

		// The dashboard: the page and its assets hold no data, so they need no token;
		// the page asks for it (see dashboard.go).
		{pattern: "GET /{$}", handler: s.dashboard, public: true},
		{pattern: "GET /dashboard/", handler: s.dashboardAssets(), public: true},
		{pattern: "GET /v1/events", handler: s.streamEvents, stream: true},
		{pattern: "GET /v1/calls", handler: s.listCalls},

		{pattern: "GET /v1/servers", handler: s.listServers},
		{pattern: "GET /v1/servers/{name}", handler: s.getServer},
		{pattern: "POST /v1/servers/{name}/restart", handler: s.restartServer},

		{pattern: "GET /v1/tools", handler: s.listTools},
		{pattern: "POST /v1/tools/{name}/call", handler: s.callTool},
		{pattern: "GET /v1/search", handler: s.searchTools},

		{pattern: "POST /v1/sessions", handler: s.createSession},
		{pattern: "GET /v1/sessions", handler: s.listSessions},
		{pattern: "GET /v1/sessions/{id}", handler: s.getSession},
		{pattern: "DELETE /v1/sessions/{id}", handler: s.deleteSession},
		{pattern: "POST /v1/sessions/{id}/messages", handler: s.postMessage},
		{pattern: "POST /v1/sessions/{id}/approvals/{call_id}", handler: s.decideApproval},

		// OpenAI-compatible (chatcompat.go): any OpenAI client, pointed here, gets the catalog's tools.
		{pattern: "POST /v1/chat/completions", handler: s.chatCompletions},
		{pattern: "GET /v1/models", handler: s.listModels},

		// Anything else is a JSON 404 (behind the token: it tells nothing for free).
		{pattern: "/", handler: s.notFound},
	}
	if gw := s.opts.Gateway; gw != nil {
		// GET opens a server-to-client stream (Streamable HTTP) or the session itself
		// (legacy SSE); the other methods are requests that finish.
		rs = append(rs,
			route{pattern: "GET /mcp", handler: gw.ServeHTTP, stream: true},
			route{pattern: "/mcp", handler: gw.ServeHTTP},
			route{pattern: "GET /sse", handler: gw.ServeHTTP, stream: true},
			route{pattern: "/sse", handler: gw.ServeHTTP},
		)
	}
	return rs
}

// buildHandler puts every route behind its middleware, outermost first: request id
// and log line, DNS-rebinding check, CORS, cross-origin protection, token.
func (s *Server) buildHandler() (http.Handler, error) {
	cop := http.NewCrossOriginProtection()
	if o := s.opts.CORSOrigin; o != "" && o != "*" {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, err
		}
	}
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		var h http.Handler = rt.handler
		if !rt.public && s.opts.Token != "" {
			h = s.requireToken(h)
		}
		h = s.crossOrigin(cop, h)
		h = s.track(rt.stream, h)
		mux.Handle(rt.pattern, h)
	}
	return s.requestLog(s.checkHost(s.cors(mux))), nil
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, http.StatusNotFound, "not_found", "no endpoint "+r.Method+" "+r.URL.Path)
}
