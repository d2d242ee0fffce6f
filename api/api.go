package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/access"
	"github.com/switchboard-mcp/switchboard/api/compat"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/deferred"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/httpguard"
	"github.com/switchboard-mcp/switchboard/prom"
	"github.com/switchboard-mcp/switchboard/search"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/signin"
)

// DefaultMaxRequestBytes caps a request body unless Options say otherwise: 4 MiB, as
// the gateway's (and the MCP SDK's).
const DefaultMaxRequestBytes = 4 << 20

// DefaultApprovalTimeout bounds how long a turn waits for a person to approve (or
// refuse) a call over the HTTP API unless the Runner of Options.Conversations says
// otherwise; past it the call is denied. Switchboard's own.
const DefaultApprovalTimeout = conversation.DefaultApprovalTimeout

// Options configure a Server; nil, and every zero field, is a usable default (no
// model, no sessions, no gateway, no token, no CORS).
type Options struct {
	// Conversations runs the turns of sessions and of the compatible APIs
	// (host.Host.Conversations over the host's agent: the approve policy, the
	// timeouts of the waits for a person); nil means no model is configured: turns
	// get 503 with NoModel. Its agent's store must be the store of Sessions, where
	// the sessions' turns run. The API watches each turn it starts
	// (conversation.Request.Observer): its events go to the metrics and its calls to
	// the recent calls of GET /v1/events.
	Conversations *conversation.Runner
	// Catalog is the search index of the hub's catalog behind GET /v1/search, shared
	// with the agent's deferred mode and the gateway's (deferred.NewCatalog of the hub);
	// nil: one of its own.
	Catalog *deferred.Catalog
	// Embeddings, when set, ranks GET /v1/search's queries in words by meaning too,
	// as the model's tool_search and switchboard search do (not ?regex=1); nil: by
	// words alone.
	Embeddings *search.Embeddings
	// Usage makes the figures of GET /v1/usage (host's usage.Recorder over the
	// session store); nil: 404, the service keeps no usage.
	Usage UsageReader
	// NoModel says why there is no model and how to configure one (503 on a turn).
	NoModel string
	// Model names the configured model where OpenAI's API shows one (GET /v1/models,
	// and chat completions that name none); "" is "switchboard".
	Model string
	// Sessions creates, lists and removes sessions (a Janitor owns the store, so that
	// idle sessions go); nil: the session endpoints answer 503. The Server does not
	// close it.
	Sessions *session.Janitor
	// Gateway serves /mcp and /sse (gateway.Gateway.Handler); nil leaves them out.
	Gateway http.Handler
	// Token, when set, must arrive as "Authorization: Bearer TOKEN" (the scheme in
	// any case) on every request but /health (which tells why a server is not ready
	// only with it), /healthz, /readyz, the dashboard's files (its page asks for the
	// token) and /oauth/callback (a browser coming back from an authorization server,
	// taken only for a sign-in started with the token).
	Token string
	// Identify, when set, says who makes each request but those Token's doc names
	// (package identity): the identity.Person it returns is in the request's
	// context, and owns what the request creates; an error is a 401 whose message
	// is the error's (it must never quote the credentials) with a WWW-Authenticate
	// challenge naming IdentifyChallenge's parameters. A request whose bearer token
	// is Token is an admin without a subject, and one whose token is an application
	// key (apiwire.KeyPrefix, made by POST /v1/keys and kept in the store of
	// Sessions) is that key's person: Identify is not asked for either. nil: no
	// identities, everything is everyone's (Token alone guards the service, and
	// application keys beside it).
	Identify func(*http.Request) (identity.Person, error)
	// Profiles, when set, names the config's profiles, asked each time an
	// application key is made (POST /v1/keys): a key may name only those. nil: any
	// non-empty name is taken.
	Profiles func() []string
	// IdentifyChallenge is what follows "Bearer " in a refused request's
	// WWW-Authenticate (e.g. resource_metadata="https://sb.example.com/.well-known/oauth-protected-resource");
	// "" sends realm="switchboard", or, with Issuer set, resource_metadata= the URL
	// of GET /.well-known/oauth-protected-resource (at PublicURL, else where the
	// request reached the service).
	IdentifyChallenge string
	// Issuer, when set, is the OpenID provider whose tokens Identify takes: GET
	// /.well-known/oauth-protected-resource names it to MCP hosts, which sign their
	// person in there (identity.go). "": those routes answer 404.
	Issuer string
	// DashboardSignIn, with Issuer, has the dashboard sign people in at that
	// provider as its public client (dashsignin.go); nil: the page asks for a token
	// to paste, as without it.
	DashboardSignIn *DashboardSignIn
	// CORSOrigin lets browser pages of that origin ("https://app.example.com", or "*")
	// call the API, the gateway at /mcp and /sse included; "" answers no cross-origin
	// request. "*" never covers what changes the servers (a stdio server is a command
	// to run), reads their config or log, restarts one or signs in: those answer a
	// page of another origin 403 whatever the method.
	CORSOrigin string
	// MaxRequestBytes caps a request body (413 past it); default DefaultMaxRequestBytes.
	MaxRequestBytes int64
	// ReadTimeout bounds reading a request's body (408 past it), WriteTimeout sending
	// a response once it begins (an event stream has none: a turn's, /v1/events, the
	// gateway's), IdleTimeout a keep-alive connection without a request. Defaults 1
	// minute, 1 minute and 2 minutes; negative: none. How long a handler takes to
	// answer (a turn, a tool call) is not bounded by them. They hold for Serve; a
	// Handler mounted in a server of your own has that server's.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// SignIn makes the sign-in a server waits for (host.Host.SignIn): it runs the
	// OAuth flow through r, which brings the person to the authorization server and
	// takes its answer at the API's GET /oauth/callback, then has the server connect,
	// and returns its status. POST /v1/servers/{name}/login starts it; nil: that
	// endpoint answers 501.
	SignIn func(ctx context.Context, server string, r signin.Redirect) (hub.Status, error)
	// Servers changes the configured servers at run time (host.Host's, which writes
	// each change to the config file): POST /v1/servers, PATCH and DELETE
	// /v1/servers/{name}, GET /v1/servers/{name}/config (serveredit.go); admins only
	// when the service has identities. nil: those endpoints are not there (405 on
	// /v1/servers and /v1/servers/{name}, 404 on .../config).
	Servers ServerEditor
	// PublicURL is the URL browsers reach the service at when a proxy sits in front
	// ("https://switchboard.example.com", a path allowed): a sign-in's redirect comes
	// back to PublicURL + "/oauth/callback". "": the scheme and host the login request
	// reached the service at.
	PublicURL string
	// SignInTimeout bounds the wait for the person to come back from the
	// authorization server; default signin.DefaultSignInTimeout.
	SignInTimeout time.Duration
	// Version is reported by /health.
	Version string
	// Logger gets one line per request and the API's own lines; nil discards them.
	Logger *slog.Logger
	// Registry gets the API's metrics, and GET /metrics serves all it has (with
	// metrics of the program's own, say); nil: a registry of the Server's own, with
	// the Go runtime's and the process's metrics. The hub's calls are counted from New
	// until Shutdown.
	Registry *prom.Registry
	// Access is the profiles that say who sees which servers and tools (package
	// access; host.Host's follows the config's "profiles"): every request but the
	// public ones gets the access of its person (narrowed by ?profile=NAME, or the
	// path of /mcp/{profile}; 403 when that is not one of theirs), which its tool
	// lists, search, calls, resources, prompts and turns, and the gateway's, take.
	// nil: no profiles, everyone sees everything.
	Access *access.Policy
	// RequestsPerMinute bounds each person's requests (by subject; the requests
	// without one, a service without identities or the static token's admin, share
	// one bound): past it, 429 with Retry-After. The public routes are never bounded.
	// 0: no bound.
	RequestsPerMinute int
}

// Server is the HTTP API over one hub. Serve it on a listener (Serve), or mount
// Handler in a server of your own.
type Server struct {
	hub     *hub.Hub // the catalog served: its servers, tools, calls and health
	opts    Options
	log     *slog.Logger
	handler http.Handler
	metrics *metrics // GET /metrics
	// mux routes the table of routes.go; byPattern finds a route by its pattern.
	mux       *http.ServeMux
	byPattern map[string]*route

	// base is the context of every request: Shutdown cancels it once the grace is over.
	base   context.Context
	cancel context.CancelFunc
	srv    *http.Server
	// all counts the requests under way, for Shutdown to wait for their handlers.
	all requestCount
	// streams cancels each open stream (Shutdown cuts them at once); closing: from
	// then on a new stream is cut as it opens.
	streamsMu sync.Mutex
	streams   map[*http.Request]context.CancelFunc
	closing   bool

	// conv runs the turns (nil without a model): the sessions' turns running here,
	// their calls that wait for approval (turns.go) and their questions (inputs.go).
	conv *conversation.Runner
	// observer watches every turn the API starts: the metrics, the recent calls.
	observer *conversation.Observer
	// compat serves the endpoints compatible with OpenAI's and Anthropic's (compat.go).
	compat *compat.Handler

	signIns signIns     // the sign-ins under way through the API (signin.go)
	sse     sseSessions // who opened each legacy SSE session of the gateway (ssebind.go)
	// publicHost is Options.PublicURL's host (and port), taken on a loopback listener
	// too (checkHost).
	publicHost string
	// pagePolicy is the dashboard's Content-Security-Policy (dashboard.go).
	pagePolicy string

	live    liveState // GET /v1/events: the servers' changes, the recent calls, the heartbeat (events.go)
	unwatch func()    // ends live.servers' subscription to the hub
}

// New builds the API over h, the catalog it serves: its servers, tools, calls and
// health. opts, nil for the defaults, gives the rest. It fails on a nil h, a bad
// CORSOrigin, PublicURL or DashboardSignIn, or an Options.Registry that has the API's metrics already.
func New(h *hub.Hub, opts *Options) (*Server, error) {
	if h == nil {
		return nil, errors.New("api: New: the hub is nil: give the hub whose catalog the API serves")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxRequestBytes == 0 {
		o.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if o.SignInTimeout <= 0 {
		o.SignInTimeout = signin.DefaultSignInTimeout
	}
	if o.PublicURL != "" {
		if err := CheckPublicURL(o.PublicURL); err != nil {
			return nil, fmt.Errorf("api: New: Options.PublicURL: %w", err)
		}
		o.PublicURL = strings.TrimRight(o.PublicURL, "/")
	}
	policy, err := dashboardPolicy(&o)
	if err != nil {
		return nil, err
	}
	if o.NoModel == "" {
		o.NoModel = `no model configured: set "switchboard": {"model": {"provider": "openai", "name": "…"}} in the config`
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Catalog == nil {
		o.Catalog = deferred.NewCatalog(h)
	}
	s := &Server{
		hub:        h,
		opts:       o,
		log:        log,
		conv:       o.Conversations,
		streams:    map[*http.Request]context.CancelFunc{},
		pagePolicy: policy,
	}
	if o.PublicURL != "" {
		u, _ := url.Parse(o.PublicURL) // checked above
		s.publicHost = u.Host
	}
	s.live.calls.red = h.Redactor()
	s.base, s.cancel = context.WithCancel(context.Background())
	m, err := newMetrics(s, o.Registry)
	if err != nil {
		s.cancel()
		return nil, err
	}
	s.metrics = m
	s.observer = s.turnObserver()
	s.compat = s.newCompat()
	handler, err := s.buildHandler()
	if err != nil {
		s.cancel()
		m.stopCalls()
		return nil, err
	}
	s.handler = handler
	s.unwatch = h.Subscribe(s.live.servers.observe)
	s.srv = httpguard.Timeouts{Read: o.ReadTimeout, Write: o.WriteTimeout, Idle: o.IdleTimeout}.Server(handler)
	s.srv.BaseContext = func(net.Listener) context.Context { return s.base }
	s.srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	return s, nil
}

// Handler is the whole API as one http.Handler: every route behind the middleware.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve answers requests on ln until Shutdown, and returns nil then.
func (s *Server) Serve(ln net.Listener) error {
	if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// answerGrace bounds the wait, once Shutdown has cancelled the requests still under
// way, for them to answer (a turn's 503 "cancelled", a stream's error event) and for
// their turns to store what they did, before every connection is closed.
const answerGrace = 5 * time.Second

// Shutdown stops accepting connections at once and cuts the open streams (they never
// finish by themselves), lets the requests and turns under way finish until ctx is
// done, then cancels them, lets them answer (at most answerGrace) and closes every
// connection. It returns when every handler has returned; the error says whether
// requests had to be cancelled.
func (s *Server) Shutdown(ctx context.Context) error {
	s.streamsMu.Lock()
	s.closing = true
	for _, cancel := range s.streams {
		cancel()
	}
	s.streamsMu.Unlock()
	err := s.srv.Shutdown(ctx) // returns once every connection is idle: responses sent
	s.cancel()
	if err != nil {
		err = fmt.Errorf("api: requests still under way at the end of the grace, cancelled: %w", err)
		// Closing the connections now would cut the answers of the requests just
		// cancelled: a turn's client would get an empty reply, a stream no error
		// event. Shutdown again waits for their responses to be sent (a handler's
		// return is not enough: net/http writes what it buffered after it).
		actx, cancel := context.WithTimeout(context.Background(), answerGrace)
		_ = s.srv.Shutdown(actx)
		cancel()
	}
	s.metrics.stopCalls()
	s.unwatch()
	_ = s.srv.Close()
	// Every handler returns once its context is done; none may outlive the Server.
	<-s.all.idle()
	// The sign-ins under way end with the base context: nobody could come back to
	// their callback now.
	s.signIns.wg.Wait()
	return err
}

// requestCount counts the HTTP requests under way; idle is closed whenever the count is zero.
type requestCount struct {
	mu   sync.Mutex
	n    int
	zero chan struct{}
}

func (f *requestCount) add() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.zero = make(chan struct{})
	}
	f.n++
}

func (f *requestCount) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 {
		close(f.zero)
	}
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (f *requestCount) idle() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		return closedChan
	}
	return f.zero
}
