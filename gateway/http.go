package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/httpguard"
)

// HTTPOptions configure the HTTP handler; nil means defaults.
type HTTPOptions struct {
	// Stateless serves Streamable HTTP without sessions to every client. Without
	// it, clients of protocol 2026-07-28 (which has no sessions) are served without
	// and older clients with sessions, side by side. A server's requests reach
	// clients of 2026-07-28 as input requests (see mrtr_clients.go), older clients
	// without a session not at all.
	Stateless bool
	// Token, when set, must arrive on every request as "Authorization: Bearer TOKEN"
	// (the scheme in any case).
	Token string
	// SessionTimeout is how long a Streamable HTTP session lives with none of its
	// requests under way (an open GET stream counts as one): a client that ended
	// without closing its session leaves it behind, with its subscriptions and log
	// level. A client that comes back after that gets 404 and initializes anew, as
	// the protocol requires. Default 1 hour; negative: never. Legacy SSE sessions
	// end with their stream anyway.
	SessionTimeout time.Duration
	// MaxRequestBytes caps the body of one request (a JSON-RPC message or batch);
	// a larger one gets 413. Default 4 MiB, as the MCP SDK's; negative: no cap.
	MaxRequestBytes int64
	// ReadTimeout bounds reading a request's body, WriteTimeout sending a response
	// once it begins (an event stream has none: the GET streams, and a POST answered
	// as a stream while a call runs), IdleTimeout a keep-alive connection without a
	// request. Defaults 1 minute, 1 minute and 2 minutes; negative: none. They hold
	// for Listen and Serve; a Handler mounted elsewhere has its server's.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
}

// DefaultMaxRequestBytes is the request body cap when HTTPOptions.MaxRequestBytes is 0.
const DefaultMaxRequestBytes = mcp.DefaultMaxRequestBodyBytes

// Handler serves the gateway over Streamable HTTP at /mcp and legacy SSE at /sse.
// DNS-rebinding protection stays on: a non-localhost Host on a loopback connection
// and cross-origin browser requests are refused here (and by the SDK, behind). Its
// own refusals (401, 403, 404) carry a JSON-RPC error with no id, as the Streamable
// HTTP transport allows (httpguard.JSONRPCError), rather than net/http's text.
func (g *Gateway) Handler(opts *HTTPOptions) http.Handler {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	getServer := func(*http.Request) *mcp.Server { return g.server }
	mux := http.NewServeMux()
	// A client's requests under way end with its POST, or its session (see cancellation.go).
	var streamable http.Handler = carried(mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true, MaxRequestBodyBytes: o.MaxRequestBytes}))
	if g.views != nil {
		streamable = stateless(streamable) // see deferred.go
	}
	if !o.Stateless {
		if o.SessionTimeout == 0 {
			o.SessionTimeout = defaultSessionTimeout
		}
		var sessions http.Handler = g.endOnDelete(mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: o.MaxRequestBytes}))
		if o.SessionTimeout > 0 {
			sessions = g.idle(o.SessionTimeout).wrap(sessions) // see clientsessions.go
		}
		streamable = byRevision(streamable, sessions)
	}
	mux.Handle("/mcp", streamable)
	mux.Handle("/sse", carried(mcp.NewSSEHandler(getServer, &mcp.SSEOptions{MaxRequestBodyBytes: o.MaxRequestBytes}))) // the GET stream is the session
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpguard.Unread(w, r)
		httpguard.JSONRPCError(w, http.StatusNotFound, "no endpoint "+r.URL.Path+": the gateway serves /mcp (Streamable HTTP) and /sse (legacy SSE)")
	})
	h := crossOrigin(http.NewCrossOriginProtection(), mux)
	if o.Token != "" {
		h = requireToken(h, o.Token)
	}
	return checkHost(h)
}

// byRevision serves the clients of protocol 2026-07-28, which has no sessions
// (SEP-2575), with stateless, and the older ones with sessions. The SDK serves the
// new protocol only without sessions, and the old one's sessions only with them: one
// handler cannot do both. A client of 2026-07-28 names its version in the
// MCP-Protocol-Version header of every request, server/discover included ("Clients
// MUST include the MCP-Protocol-Version header on all requests", 2026-07-28,
// transports); an older client sends it only once initialized, with its session,
// and never a version that new.
func byRevision(stateless, sessions http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("Mcp-Protocol-Version") >= protocol2026 {
			stateless.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	})
}

// checkHost refuses a request that reached a loopback address under a Host that is
// not loopback: a page of another site whose name was rebound to 127.0.0.1 (DNS
// rebinding). The SDK's handlers refuse it too, in text; this refusal comes first, as
// a JSON-RPC error. See the spec's security best practices (2025-11-25, "Local MCP
// Server Compromise").
func checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := httpguard.CheckHost(r); err != nil {
			httpguard.Unread(w, r)
			httpguard.JSONRPCError(w, http.StatusForbidden, err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossOrigin refuses cross-origin browser requests that change something (POST,
// DELETE), as http.CrossOriginProtection does, with a JSON-RPC error: "If the Origin
// header is present and invalid, servers MUST respond with HTTP 403 Forbidden"
// (2025-11-25, Streamable HTTP, "Security Warning"). Mounted in package api's
// server, which checked the request already against the origins it trusts (serve's
// --cors), the gateway leaves it at that.
func crossOrigin(cop *http.CrossOriginProtection, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if httpguard.OriginChecked(r.Context()) {
			next.ServeHTTP(w, r)
			return
		}
		if err := cop.Check(r); err != nil {
			httpguard.Unread(w, r)
			httpguard.JSONRPCError(w, http.StatusForbidden, err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireToken answers 401 unless the request carries the bearer token (the scheme
// in any case, as RFC 7235 has it). The comparison takes constant time. The 401 goes
// out at once, before the body is read (httpguard.Unread).
func requireToken(next http.Handler, token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !httpguard.Bearer(r, token) {
			httpguard.Unread(w, r)
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
			httpguard.JSONRPCError(w, http.StatusUnauthorized, "missing or wrong bearer token (Authorization: Bearer TOKEN)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// IsLoopback reports whether a listen address binds only the loopback interface.
// "" host (all interfaces) is not loopback; "localhost" is.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ErrTokenRequired is returned when asked to listen beyond loopback without a token.
var ErrTokenRequired = errors.New("a bearer token is required to listen on a non-loopback address")

// Bridge is a gateway served over HTTP on a listener of its own.
type Bridge struct {
	ln   net.Listener
	srv  *http.Server
	done chan error
}

// Listen serves g on addr ("127.0.0.1:0" picks a free port). The listener is open
// when Listen returns, so clients can connect at once (no race with a goroutine).
// Listening beyond loopback requires opts.Token.
func (g *Gateway) Listen(addr string, opts *HTTPOptions) (*Bridge, error) {
	if !IsLoopback(addr) && (opts == nil || opts.Token == "") {
		return nil, ErrTokenRequired
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return g.Serve(ln, opts), nil
}

// Serve serves g on ln, which the bridge then owns. A program binds first and
// serves once its servers are up, so that an address in use is found before any
// server starts. Serve does not check that ln is loopback or opts has a token.
func (g *Gateway) Serve(ln net.Listener, opts *HTTPOptions) *Bridge {
	var t httpguard.Timeouts
	if opts != nil {
		t = httpguard.Timeouts{Read: opts.ReadTimeout, Write: opts.WriteTimeout, Idle: opts.IdleTimeout}
	}
	b := &Bridge{
		ln:   ln,
		srv:  t.Server(g.Handler(opts)),
		done: make(chan error, 1),
	}
	go func() { b.done <- b.srv.Serve(ln) }()
	return b
}

// Addr is the address the bridge listens on.
func (b *Bridge) Addr() net.Addr { return b.ln.Addr() }

// URL is the Streamable HTTP endpoint, e.g. http://127.0.0.1:40123/mcp.
func (b *Bridge) URL() string { return fmt.Sprintf("http://%s/mcp", b.ln.Addr()) }

// SSEURL is the legacy SSE endpoint.
func (b *Bridge) SSEURL() string { return fmt.Sprintf("http://%s/sse", b.ln.Addr()) }

// Close stops the bridge: new connections are refused at once; open streams get a
// short grace, then are cut.
func (b *Bridge) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := b.srv.Shutdown(ctx); err != nil {
		b.srv.Close()
	}
	if err := <-b.done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
