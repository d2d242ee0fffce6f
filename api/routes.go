package api

import (
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/internal/httpguard"
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
	// errors is the form of the route's errors, the middleware's (401, 403) as well
	// as the handler's: the one its clients read.
	errors errorForm
	// admin, when set, keeps the route to admins when the service knows who calls
	// (identity.Admin): another person gets 403 with this as the reason.
	admin string
	// ownOrigin routes change the servers (a stdio server is a command to run), read
	// their config or log, or sign in: a browser reaches them from the service's own
	// pages or the one origin of --cors, never through --cors "*" (crossOrigin).
	ownOrigin bool
}

// errorForm is the JSON an error is written in (writeAPIError).
type errorForm int

const (
	// apiErrors: {"error": {"code", "message"}}, the API's own.
	apiErrors errorForm = iota
	// openAIErrors: {"error": {"message", "type", "param", "code"}}, which OpenAI's
	// clients read (package compat).
	openAIErrors
	// mcpErrors: a JSON-RPC error response with no id, which MCP clients read
	// (httpguard.JSONRPCError).
	mcpErrors
	// anthropicErrors: {"type": "error", "error": {"type", "message"}}, which
	// Anthropic's clients read (package compat).
	anthropicErrors
)

// keysAdmins is why a person who is not an admin is refused the keys' endpoints.
const keysAdmins = "only an admin makes, lists and revokes application keys"

// routes is the table of every endpoint, in one place: the middleware wraps each
// (see buildHandler), and what counts requests by route reads the pattern.
func (s *Server) routes() []route {
	rs := []route{
		{pattern: "GET /healthz", handler: s.healthz, public: true},
		{pattern: "GET /readyz", handler: s.readyz, public: true},
		// Open as the probes are; the servers' errors only to whom may call (health).
		{pattern: "GET /health", handler: s.health, public: true},
		{pattern: "GET /metrics", handler: s.serveMetrics},

		// The dashboard: the page and its assets hold no data, so they need no token;
		// the page asks for it (see dashboard.go).
		{pattern: "GET /{$}", handler: s.dashboard, public: true},
		{pattern: "GET /dashboard/", handler: s.dashboardAssets(), public: true},
		{pattern: "GET /v1/events", handler: s.streamEvents, stream: true},
		{pattern: "GET /v1/calls", handler: s.listCalls},
		// Usage over time (usage.go): a person's own calls, an admin's everyone's.
		{pattern: "GET /v1/usage", handler: s.getUsage},

		{pattern: "GET /v1/servers", handler: s.listServers},
		{pattern: "GET /v1/servers/{name}", handler: s.getServer},
		// A restart cuts the calls in flight of everyone who uses the server.
		{pattern: "POST /v1/servers/{name}/restart", handler: s.restartServer, ownOrigin: true, admin: "only an admin restarts a server: it cuts everyone's calls to it in flight"},
		// A shared server's sign-in is an admin's, a perUser one's each person's own:
		// the handler knows which (signin.go).
		{pattern: "POST /v1/servers/{name}/login", handler: s.startSignIn, ownOrigin: true},
		// A server's log (serverlog.go): an answer, or with ?follow=1 a stream.
		{pattern: "GET /v1/servers/{name}/log", handler: s.getServerLog, stream: true, admin: "a server's log is for admins: it may quote what anyone's calls sent", ownOrigin: true},
		// The authorization server's answer to a sign-in, brought by the person's
		// browser, which has no token: it is taken only for a sign-in started here and
		// still waiting, by its state, from the browser that asked for it (its cookie:
		// signin.go).
		{pattern: "GET " + callbackPath, handler: s.oauthCallback, public: true},

		// Who calls (identity.go), and where an MCP host signs its person in when the
		// service takes an identity provider's tokens (RFC 9728; 404 otherwise).
		{pattern: "GET /v1/me", handler: s.getMe},
		{pattern: "GET " + resourceMetadataPath, handler: s.resourceMetadata, public: true},
		{pattern: "GET " + resourceMetadataPath + "/mcp", handler: s.resourceMetadata, public: true},
		// Where the dashboard signs its person in at that provider (dashsignin.go;
		// 404 without a client id): nothing secret, asked before any token.
		{pattern: "GET /v1/dashboard/signin", handler: s.dashboardSignIn, public: true},

		// Application keys (keys.go): credentials, made and revoked by admins from the
		// service's own pages.
		{pattern: "POST /v1/keys", handler: s.createKey, admin: keysAdmins, ownOrigin: true},
		{pattern: "GET /v1/keys", handler: s.listKeys, admin: keysAdmins, ownOrigin: true},
		{pattern: "DELETE /v1/keys/{id}", handler: s.deleteKey, admin: keysAdmins, ownOrigin: true},

		{pattern: "GET /v1/tools", handler: s.listTools},
		{pattern: "POST /v1/tools/{name}/call", handler: s.callTool},
		{pattern: "GET /v1/search", handler: s.searchTools},

		// What the servers offer besides tools (resources.go).
		{pattern: "GET /v1/resources", handler: s.listResources},
		{pattern: "GET /v1/resources/templates", handler: s.listResourceTemplates},
		{pattern: "GET /v1/resources/read", handler: s.readResource},
		{pattern: "GET /v1/prompts", handler: s.listPrompts},
		{pattern: "POST /v1/prompts/{name}/get", handler: s.getPrompt},

		{pattern: "POST /v1/sessions", handler: s.createSession},
		{pattern: "GET /v1/sessions", handler: s.listSessions},
		{pattern: "GET /v1/sessions/{id}", handler: s.getSession},
		{pattern: "DELETE /v1/sessions/{id}", handler: s.deleteSession},
		{pattern: "POST /v1/sessions/{id}/messages", handler: s.postMessage},
		{pattern: "POST /v1/sessions/{id}/approvals/{call_id}", handler: s.decideApproval},
		{pattern: "POST /v1/sessions/{id}/inputs/{request_id}", handler: s.answerInput},

		// OpenAI-compatible (package compat, compat.go): any OpenAI client, pointed here, gets the catalog's tools.
		{pattern: "POST /v1/chat/completions", handler: s.chatCompletions, errors: openAIErrors},
		{pattern: "GET /v1/models", handler: s.listModels, errors: openAIErrors},
		{pattern: "POST /v1/responses", handler: s.createResponse, errors: openAIErrors},
		{pattern: "GET /v1/responses/{id}", handler: s.getResponse, errors: openAIErrors},
		{pattern: "DELETE /v1/responses/{id}", handler: s.deleteResponse, errors: openAIErrors},
		{pattern: "GET /v1/responses/{id}/input_items", handler: s.listInputItems, errors: openAIErrors},
		// Anthropic-compatible (package compat): any Anthropic client, pointed here, gets them too.
		{pattern: "POST /v1/messages", handler: s.messages, errors: anthropicErrors},
		{pattern: "POST /v1/messages/count_tokens", handler: s.countTokens, errors: anthropicErrors},

		// Any other path is a JSON 404, and another method on a path here a JSON 405
		// (noRoute), behind the token: it tells nothing for free. Under /v1/messages
		// and /v1/responses they are in those APIs' forms (errorFormOf).
	}
	if s.opts.Servers != nil {
		// Servers changed at run time, and written to the config file (serveredit.go);
		// without an editor these methods are 405 on the paths of the servers.
		const admins = "only an admin may change the servers"
		rs = append(rs,
			route{pattern: "POST /v1/servers", handler: s.addServer, admin: admins, ownOrigin: true},
			route{pattern: "PATCH /v1/servers/{name}", handler: s.patchServer, admin: admins, ownOrigin: true},
			route{pattern: "DELETE /v1/servers/{name}", handler: s.removeServer, admin: admins, ownOrigin: true},
			route{pattern: "GET /v1/servers/{name}/config", handler: s.serverConfig, admin: admins, ownOrigin: true},
		)
	}
	if gw := s.opts.Gateway; gw != nil {
		// GET opens a server-to-client stream (Streamable HTTP) or the session itself
		// (legacy SSE); the other methods are requests that finish.
		rs = append(rs,
			route{pattern: "GET /mcp", handler: gw.ServeHTTP, stream: true, errors: mcpErrors},
			route{pattern: "/mcp", handler: gw.ServeHTTP, errors: mcpErrors},
			// One profile's tools alone (access.go): 403 to a caller outside it.
			route{pattern: "GET /mcp/{profile}", handler: s.profileMCP, stream: true, errors: mcpErrors},
			route{pattern: "/mcp/{profile}", handler: s.profileMCP, errors: mcpErrors},
			route{pattern: "GET /sse", handler: gw.ServeHTTP, stream: true, errors: mcpErrors},
			route{pattern: "/sse", handler: gw.ServeHTTP, errors: mcpErrors},
		)
	}
	return rs
}

// buildHandler puts every route behind its middleware, outermost first: request id,
// route and log line, DNS-rebinding check, CORS, then the route's own: request count,
// cross-origin protection, token, rate limit (limits.go), admins only (the route's
// admin), the caller's access (access.go), the audit's context (audit.go). A request that no route takes goes to noRoute,
// behind the same middleware.
func (s *Server) buildHandler() (http.Handler, error) {
	cop := http.NewCrossOriginProtection()
	if o := s.opts.CORSOrigin; o != "" && o != "*" {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, err
		}
	}
	lim := newLimiter(s.opts.RequestsPerMinute)
	guard := func(rt route, h http.Handler) http.Handler {
		h = s.auditContext(rt, h)
		if !rt.public {
			h = s.withAccess(h)
		}
		if rt.admin != "" {
			h = adminOnly(rt.admin, h)
		}
		if !rt.public {
			h = s.limit(lim, h)
		}
		if !rt.public && (s.opts.Token != "" || s.opts.Identify != nil) {
			h = s.requireToken(h)
		}
		h = s.crossOrigin(cop, rt.ownOrigin, h)
		return s.track(rt.stream, h)
	}
	s.mux = http.NewServeMux()
	s.byPattern = map[string]*route{}
	for _, rt := range s.routes() {
		s.mux.Handle(rt.pattern, guard(rt, rt.handler))
		s.byPattern[rt.pattern] = &rt
	}
	noRoute := guard(route{}, http.HandlerFunc(s.noRoute))
	dispatch := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if routeOf(r) == nil {
			noRoute.ServeHTTP(w, r)
			return
		}
		s.mux.ServeHTTP(w, r)
	})
	return s.requestLog(s.checkHost(s.cors(dispatch))), nil
}

// resolve is the route that takes r, or nil: none matches its path (a 404) or its
// method (a 405), or its path is not clean. ServeMux would answer those itself, in
// text, and redirect a path with "//", "." or ".." to its clean form (so that
// /v1/sessions/../x answered a 307 to /v1/x); every error here is JSON instead.
func (s *Server) resolve(r *http.Request) *route {
	if p := r.URL.EscapedPath(); r.Method != http.MethodConnect && cleanPath(p) != p {
		return nil
	}
	_, pattern := s.mux.Handler(r)
	return s.byPattern[pattern]
}

// noRoute answers a request that no route takes: 405 with Allow when another method
// is taken at its path, else 404.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	httpguard.Unread(w, r)
	p := r.URL.EscapedPath()
	if clean := cleanPath(p); r.Method != http.MethodConnect && clean != p {
		writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, fmt.Sprintf(`no endpoint %s %s: a path is taken as sent, "//", "." and ".." included (its clean form is %s)`, r.Method, p, clean))
		return
	}
	// The mux's own answer says which methods the path takes (in Allow).
	h, _ := s.mux.Handler(r)
	probe := &headerProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if allow := probe.header.Get("Allow"); probe.code == http.StatusMethodNotAllowed && allow != "" {
		w.Header().Set("Allow", allow)
		writeError(w, r, http.StatusMethodNotAllowed, apiwire.CodeMethodNotAllowed, fmt.Sprintf("%s %s: this endpoint takes %s", r.Method, r.URL.Path, allow))
		return
	}
	writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, "no endpoint "+r.Method+" "+r.URL.Path)
}

// headerProbe is a ResponseWriter that keeps the status and headers and drops the body.
type headerProbe struct {
	header http.Header
	code   int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(code int)        { p.code = code }

// cleanPath is p as ServeMux matches it: rooted, with "//", "." and ".." resolved
// and a trailing slash kept (net/http's own cleanPath).
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		if len(p) == len(np)+1 && strings.HasPrefix(p, np) {
			return p
		}
		np += "/"
	}
	return np
}
