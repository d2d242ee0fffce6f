package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/httpguard"
	"github.com/switchboard-mcp/switchboard/telemetry"
)

// RequestIDHeader carries a request's id: the client's when it sent one, else one
// generated here. Every response has it, and every log line of the request.
const RequestIDHeader = "X-Request-Id"

type ctxKey int

const infoKey ctxKey = iota

// requestInfo is what requestLog learns of a request before it is served (its
// logger goes in the context too: httpx.WithLogger).
type requestInfo struct {
	route *route // nil: no route takes it (noRoute answers)
}

// logOf is the logger of the request that ctx belongs to (its lines carry the
// request id), or the server's.
func (s *Server) logOf(ctx context.Context) *slog.Logger {
	return httpx.Logger(ctx, s.log)
}

// routeOf is the route that takes r, or nil.
func routeOf(r *http.Request) *route {
	if in, ok := r.Context().Value(infoKey).(*requestInfo); ok {
		return in.route
	}
	return nil
}

// requestID is the client's id when it is a reasonable one (printable ASCII, at most
// 128 characters: it goes into logs and headers), else a random one.
func requestID(r *http.Request) string {
	if id := r.Header.Get(RequestIDHeader); id != "" && len(id) <= 128 && printable(id) {
		return id
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// requestLog gives the request its id (header and logger) and its route, and logs
// one line when it ends: method, path, the route's pattern, status and duration.
// Probes log at debug. A handler's panic is logged and answered 500 instead of
// killing the connection silently.
func (s *Server) requestLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := requestID(r)
		w.Header().Set(RequestIDHeader, id)
		log := s.log.With("request_id", id)
		// The route is known from here on, so that every error, the middleware's
		// too, takes the form its clients read.
		rt := s.resolve(r)
		ctx := httpx.WithLogger(context.WithValue(r.Context(), infoKey, &requestInfo{route: rt}), log)
		r = r.WithContext(ctx)
		rec := &recorder{ResponseWriter: w}
		if telemetry.Enabled() {
			var span trace.Span
			r, span = startServerSpan(r, rt)
			defer func() { endServerSpan(span, rec.status()) }()
		}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				log.Error("handler panicked", "panic", p)
				if !rec.wrote {
					writeError(rec, r, http.StatusInternalServerError, apiwire.CodeInternal, "internal error (see the server's log)")
				}
			}
			s.metrics.request(r.Pattern, rec.status(), time.Since(start))
			level := slog.LevelInfo
			if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" {
				level = slog.LevelDebug
			}
			log.Log(r.Context(), level, "http request", "method", r.Method, "path", r.URL.Path, "route", r.Pattern,
				"status", rec.status(), "duration_ms", float64(time.Since(start).Microseconds())/1000)
		}()
		next.ServeHTTP(rec, r)
	})
}

// recorder remembers a response's status. It passes Flush on (streams need it) and
// unwraps for http.ResponseController.
type recorder struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.code, r.wrote = http.StatusOK, true
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if !r.wrote {
		r.code, r.wrote = http.StatusOK, true
	}
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) status() int {
	if !r.wrote {
		return http.StatusOK
	}
	return r.code
}

// checkHost refuses a request that reached a loopback address under a Host that is
// not loopback (DNS rebinding: httpguard.CheckHost), unless it is the host of
// Options.PublicURL: a proxy on the machine that passes its own Host on (Caddy does)
// reaches a loopback listener under the name its operator gave the service.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.publicHost != "" && strings.EqualFold(r.Host, s.publicHost) {
			next.ServeHTTP(w, r)
			return
		}
		if err := httpguard.CheckHost(r); err != nil {
			httpguard.Unread(w, r)
			writeError(w, r, http.StatusForbidden, apiwire.CodeForbidden, err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}

// cors answers browsers of the configured origin: the headers that let them read
// responses, and the preflight of requests with a token or a JSON body. Without an
// origin configured, nothing is added and a browser on another origin reads nothing.
// "*" covers every route but the ownOrigin ones (route.ownOrigin).
func (s *Server) cors(next http.Handler) http.Handler {
	allowed := s.opts.CORSOrigin
	if allowed == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if allowed == "*" && origin != "" {
			rt := routeOf(r)
			if preflight {
				// The route the preflight asks about is that of the method to come.
				ask := r.WithContext(r.Context())
				ask.Method = r.Header.Get("Access-Control-Request-Method")
				rt = s.resolve(ask)
			}
			if rt != nil && rt.ownOrigin {
				origin = "" // no headers: the page reads nothing, and sends nothing after a preflight
			}
		}
		if origin != "" && (allowed == "*" || origin == allowed) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", RequestIDHeader+", Mcp-Session-Id")
			if preflight {
				h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Last-Event-Id, "+RequestIDHeader+", Mcp-Session-Id, Mcp-Protocol-Version, X-Api-Key, Anthropic-Version, Anthropic-Beta")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// crossOrigin refuses cross-origin browser requests that change something (POST,
// PATCH, DELETE) unless they come from the configured origin: a page elsewhere could
// send them without reading the answer. With "*", any origin may, but on an
// ownOrigin route (own): a page of any origin is no reason to let it add a server,
// which is a command to run, or read one's config; there every method of another
// origin is refused. A request it lets through is marked as checked, so that the
// gateway at /mcp and /sse does not refuse what the API allows (it checks requests
// itself when served on its own).
func (s *Server) crossOrigin(cop *http.CrossOriginProtection, own bool, next http.Handler) http.Handler {
	strict := http.NewCrossOriginProtection() // no origin trusted
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		switch {
		case s.opts.CORSOrigin != "*":
			err = cop.Check(r)
		case own:
			// CrossOriginProtection lets safe methods by; asked as a POST, a GET from
			// another origin is refused as well.
			post := r.WithContext(r.Context())
			post.Method = http.MethodPost
			if err = strict.Check(post); err != nil {
				err = fmt.Errorf("%v: only the service's own pages may change the servers, read their config or log, or sign in (--cors \"*\" does not cover it)", err)
			}
		}
		if err != nil {
			httpguard.Unread(w, r)
			writeError(w, r, http.StatusForbidden, apiwire.CodeForbidden, err.Error())
			return
		}
		next.ServeHTTP(w, r.WithContext(httpguard.WithOriginChecked(r.Context())))
	})
}

// requireToken answers 401 unless the request carries the bearer token (the scheme
// in any case, as RFC 7235 has it). The comparison takes constant time; the token is
// never logged. The 401 goes out before the body is read, at once: nothing a client
// without the token sends is waited for (httpguard.Unread).
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = apiKeyAsBearer(r)
		p, err := s.caller(r)
		if err != nil {
			s.unauthorized(w, r, err.Error())
			return
		}
		next.ServeHTTP(w, r.WithContext(identity.NewContext(r.Context(), p)))
	})
}

// caller is the person whose token r carries: an admin for the static token (the
// one-person set-up's, whatever Identify would say), a key's person for an
// application key (apiwire.KeyPrefix: keys.go), else Identify's person; an error
// saying why when r carries none of them.
func (s *Server) caller(r *http.Request) (identity.Person, error) {
	if s.opts.Token != "" && httpguard.Bearer(r, s.opts.Token) {
		return identity.Person{Admin: true}, nil
	}
	if tok, ok := httpguard.BearerToken(r); ok && strings.HasPrefix(tok, apiwire.KeyPrefix) {
		return s.keyPerson(r.Context(), tok) // an application key (keys.go)
	}
	if s.opts.Identify == nil {
		return identity.Person{}, errors.New("missing or wrong bearer token (Authorization: Bearer TOKEN)")
	}
	p, err := s.opts.Identify(r)
	if err == nil && strings.HasPrefix(p.Subject, keySubjectPrefix) {
		// The subjects of application keys' persons: a person whose provider gave them
		// one would own a key's sessions, and the key theirs.
		return identity.Person{}, fmt.Errorf("the token's subject %q begins with %q, which names application keys here: refused", p.Subject, keySubjectPrefix)
	}
	return p, err
}

// mayCall reports whether r could reach the routes behind the token: it carries
// one, or the service takes none. A public route says more to such a caller.
func (s *Server) mayCall(r *http.Request) bool {
	if s.opts.Token == "" && s.opts.Identify == nil {
		return true
	}
	_, err := s.caller(apiKeyAsBearer(r))
	return err == nil
}

// adminOnly answers 403 with why to a request whose person is not an admin
// (identity.Admin); the others go on to next.
func adminOnly(why string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !identity.Admin(r.Context()) {
			httpguard.Unread(w, r)
			writeError(w, r, http.StatusForbidden, apiwire.CodeForbidden, why)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// unauthorized answers 401 with the challenge of Options.IdentifyChallenge.
func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request, msg string) {
	httpguard.Unread(w, r)
	w.Header().Set("WWW-Authenticate", s.challenge(r))
	writeError(w, r, http.StatusUnauthorized, apiwire.CodeUnauthorized, msg)
}

// track counts the request as under way, for Shutdown; a stream's context is also
// kept, for Shutdown to cancel.
func (s *Server) track(stream bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.all.add()
		defer s.all.done()
		if stream {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			s.streamsMu.Lock()
			if s.closing {
				cancel()
			}
			key := r
			s.streams[key] = cancel
			s.streamsMu.Unlock()
			defer func() {
				s.streamsMu.Lock()
				delete(s.streams, key)
				s.streamsMu.Unlock()
			}()
			r = r.WithContext(ctx)
		}
		next.ServeHTTP(w, r)
	})
}
