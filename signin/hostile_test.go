package signin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
	"github.com/switchboard-mcp/switchboard/redact"
	"github.com/switchboard-mcp/switchboard/signin"
)

// The sign-in against an authorization server that a probe controls (issue 32,
// items 3 and 4): metadata that names script or file URLs, plain-http endpoints or
// no PKCE is refused on every path, as the MCP SDK refuses it on its own; and what
// the authorization server answers never reaches an error that people read, only
// the log.

// secret is what a hostile authorization server's answers carry: an internal page
// that its token endpoint (an address only the service reaches) would give away.
const secret = "SECRET-INTERNAL-PAGE"

// hostile is an MCP server and the authorization server at its origin, shaped by
// the test. With prm it serves protected resource metadata naming its origin as the
// authorization server (the SDK's path); without, it is a server of the 2025-03-26
// spec whose metadata names the issuer ORIGIN/oauth (SignIn's legacy path).
type hostile struct {
	*httptest.Server
	prm bool
	// meta edits the authorization server's metadata (nil: good metadata);
	// metaHandler, when set, answers the metadata request instead.
	meta        func(m map[string]any)
	metaHandler http.HandlerFunc
	// register and token answer those requests when set.
	register, token http.HandlerFunc
	// prmDoc, when set, is the protected resource metadata it serves (of its own
	// origin's URL), whatever prm says.
	prmDoc func(origin string) map[string]any

	mu   *sync.Mutex // set by startHostile, as hits (the value is a test's table row)
	hits map[string]int
}

func startHostile(t *testing.T, h *hostile) *hostile {
	t.Helper()
	h.mu, h.hits = &sync.Mutex{}, map[string]int{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.hit(r.Method + " " + r.URL.Path)
		http.NotFound(w, r)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		h.hit("mcp")
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(w, "sign in", http.StatusUnauthorized)
	})
	if h.prm || h.prmDoc != nil {
		mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
			h.hit("prm")
			if h.prmDoc != nil {
				writeJSON(w, http.StatusOK, h.prmDoc(h.URL))
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"resource": h.URL + "/mcp", "authorization_servers": []string{h.URL}})
		})
	}
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		h.hit("asm")
		if h.metaHandler != nil {
			h.metaHandler(w, r)
			return
		}
		issuer := h.issuer()
		m := map[string]any{
			"issuer":                                issuer,
			"authorization_endpoint":                issuer + "/authorize",
			"token_endpoint":                        issuer + "/token",
			"registration_endpoint":                 issuer + "/register",
			"response_types_supported":              []string{"code"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		}
		if h.meta != nil {
			h.meta(m)
		}
		writeJSON(w, http.StatusOK, m)
	})
	as := http.NewServeMux()
	as.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		h.hit("register")
		if h.register != nil {
			h.register(w, r)
			return
		}
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		m["client_id"] = "client-1"
		m["token_endpoint_auth_method"] = "none"
		writeJSON(w, http.StatusCreated, m)
	})
	as.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		h.hit("authorize")
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=code-1&state="+q.Get("state"), http.StatusFound)
	})
	as.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		h.hit("token")
		if h.token != nil {
			h.token(w, r)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"access_token": "tok-1", "token_type": "Bearer", "expires_in": 3600})
	})
	if h.prm {
		mux.Handle("/authorize", as)
		mux.Handle("/token", as)
		mux.Handle("/register", as)
	} else {
		mux.Handle("/oauth/", http.StripPrefix("/oauth", as))
	}
	h.Server = httptest.NewServer(mux)
	t.Cleanup(h.Close)
	return h
}

func (h *hostile) issuer() string {
	if h.prm {
		return h.URL
	}
	return h.URL + "/oauth"
}

func (h *hostile) hit(what string) {
	h.mu.Lock()
	h.hits[what]++
	h.mu.Unlock()
}

func (h *hostile) count(what string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[what]
}

func (h *hostile) server(o *config.OAuth) config.Server {
	return config.Server{Name: "probe", Transport: config.HTTP, URL: h.URL + "/mcp", OAuth: o}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// probeHandlers are handlers whose log a test reads.
func probeHandlers(t *testing.T) (*signin.Handlers, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	hs := signin.NewHandlers(signin.NewMemory(), &signin.Options{
		Logger:   slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Redactor: &redact.Redactor{}})
	t.Cleanup(hs.Close)
	return hs, logs
}

// recordingBrowser is a Browser whose command is a script that writes the URL it is
// given to a file, as $BROWSER is run by switchboard login; opened reads it.
func recordingBrowser(t *testing.T) (b *signin.Browser, opened func() string) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "browser.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$1\" > '"+out+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &signin.Browser{Command: []string{script}}, func() string {
		b, _ := os.ReadFile(out)
		return string(b)
	}
}

// TestLegacyMetadataChecked: an authorization server's metadata that the SDK's path
// refuses is refused on SignIn's legacy path too (a server without protected
// resource metadata): a javascript: or file: authorization endpoint, a token
// endpoint over plain http away from loopback, no PKCE or no S256 among its
// methods. The sign-in ends with an error that names the rule, before the browser
// is run and before anything is sent to the authorization server.
func TestLegacyMetadataChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		prm  bool
		meta func(m map[string]any)
		want string
	}{
		{"javascript", false, func(m map[string]any) { m["authorization_endpoint"] = "javascript:alert(document.domain)//" }, `authorization_endpoint`},
		{"file", false, func(m map[string]any) { m["authorization_endpoint"] = "file:///etc/passwd" }, `authorization_endpoint`},
		// A file: URL on localhost passes the SDK's own checks (loopback, and not a
		// script scheme): refused on its path too.
		{"file localhost", false, func(m map[string]any) { m["authorization_endpoint"] = "file://localhost/etc/passwd" }, `authorization_endpoint`},
		{"file localhost, SDK path", true, func(m map[string]any) { m["authorization_endpoint"] = "file://localhost/etc/passwd" }, `authorization_endpoint`},
		{"data", false, func(m map[string]any) { m["authorization_endpoint"] = "data:text/html,<script>alert(1)</script>" }, `authorization_endpoint`},
		{"plain http token endpoint", false, func(m map[string]any) { m["token_endpoint"] = "http://192.0.2.1/token" }, `token_endpoint`},
		{"plain http registration", false, func(m map[string]any) { m["registration_endpoint"] = "http://192.0.2.1/register" }, `registration_endpoint`},
		{"no PKCE", false, func(m map[string]any) { delete(m, "code_challenge_methods_supported") }, `S256`},
		{"plain PKCE only", false, func(m map[string]any) { m["code_challenge_methods_supported"] = []string{"plain"} }, `S256`},
		// The SDK takes any method as PKCE; the flow sends S256, which the
		// authorization server must offer.
		{"plain PKCE only, SDK path", true, func(m map[string]any) { m["code_challenge_methods_supported"] = []string{"plain"} }, `S256`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			as := startHostile(t, &hostile{prm: tc.prm, meta: tc.meta})
			hs, _ := probeHandlers(t)
			browser, opened := recordingBrowser(t)
			var out strings.Builder
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			err := hs.Handler(as.server(nil)).SignIn(ctx, &signin.Loopback{Server: "probe", Out: &out, Browser: browser, Timeout: 5 * time.Second})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("SignIn: %v, want a refusal naming %s", err, tc.want)
			}
			if got := opened(); got != "" {
				t.Errorf("the browser was run on %q", got)
			}
			if strings.Contains(out.String(), "open this URL") {
				t.Errorf("printed an authorization URL: %q", out.String())
			}
			for _, step := range []string{"register", "authorize", "token"} {
				if n := as.count(step); n != 0 {
					t.Errorf("%d %s requests reached the authorization server", n, step)
				}
			}
		})
	}
}

// TestNoLegacyFallback: a server that serves protected resource metadata is never
// signed in to by the 2025-03-26 rules (its origin as the authorization server)
// because the metadata it serves, or its authorization server's, was refused: the
// sign-in ends there, and the origin's own authorization server metadata (good, and
// a trap) is never read.
func TestNoLegacyFallback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		prm  func(as, trap string) map[string]any
		want string
	}{
		{"authorization server over plain http", func(as, trap string) map[string]any {
			return map[string]any{"resource": trap + "/mcp", "authorization_servers": []string{"http://192.0.2.1"}}
		}, "protected resource metadata"},
		{"script authorization server", func(as, trap string) map[string]any {
			return map[string]any{"resource": trap + "/mcp", "authorization_servers": []string{"javascript:alert(1)"}}
		}, "protected resource metadata"},
		{"its metadata refused by the SDK", func(as, trap string) map[string]any {
			return map[string]any{"resource": trap + "/mcp", "authorization_servers": []string{as}}
		}, "authorization server's metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The authorization server the metadata names answers with metadata for
			// another issuer, which the SDK refuses (RFC 8414 §3.3).
			other := startHostile(t, &hostile{prm: true, meta: func(m map[string]any) { m["issuer"] = "https://elsewhere.example" }})
			trap := startHostile(t, &hostile{prmDoc: func(origin string) map[string]any { return tc.prm(other.URL, origin) }})
			hs, _ := probeHandlers(t)
			browser, opened := recordingBrowser(t)
			err := hs.Handler(trap.server(nil)).SignIn(t.Context(), &signin.Loopback{Server: "probe", Browser: browser, Timeout: 5 * time.Second})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("SignIn: %v, want a refusal naming the %s", err, tc.want)
			}
			if n := trap.count("asm"); n != 0 {
				t.Errorf("the server's origin was taken as its authorization server (%d metadata requests)", n)
			}
			if got := opened(); got != "" {
				t.Errorf("the browser was run on %q", got)
			}
		})
	}
}

// TestBrowserOnlyWeb: a Loopback never runs the browser on, nor prints, a URL that
// is not http or https, whoever hands it one.
func TestBrowserOnlyWeb(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "vbscript:x", "ftp://example.com/"} {
		browser, opened := recordingBrowser(t)
		var out strings.Builder
		l := &signin.Loopback{Server: "probe", Out: &out, Browser: browser, Timeout: time.Second}
		p, err := l.Prepare(t.Context(), "", false)
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Await(t.Context(), u)
		p.Close()
		if err == nil || !strings.Contains(err.Error(), "not an http or https URL") {
			t.Errorf("Await(%q): %v, want a refusal", u, err)
		}
		if got := opened(); got != "" {
			t.Errorf("the browser was run on %q", got)
		}
		if strings.Contains(out.String(), u) {
			t.Errorf("printed %q", out.String())
		}
	}
}

// noSecret fails the test when err says what the authorization server answered, or
// the log (unless nil) does not.
func noSecret(t *testing.T, err error, logs *syncBuffer, want string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("the error quotes the authorization server's answer: %v", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to say %q", err, want)
	}
	if logs != nil && !strings.Contains(logs.String(), secret) {
		t.Errorf("the log lacks the authorization server's answer:\n%s", logs)
	}
}

// TestNoEcho: what an authorization server answers (an internal page, when its
// endpoints name an address only the service reaches) never appears in an error
// that people read: a sign-in's, a refresh's, a client credentials grant's; the
// error says what failed (the step, its URL, the HTTP status, an OAuth error code of
// the standard's), and the log has the whole answer.
func TestNoEcho(t *testing.T) {
	t.Parallel()
	page := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			fmt.Fprintf(w, "<html>%s: admin console, db password hunter2</html>", secret)
		}
	}
	oauthError := func(status int, code string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, status, map[string]string{"error": code, "error_description": secret + " details"})
		}
	}
	for _, prm := range []bool{false, true} {
		path := "legacy"
		if prm {
			path = "sdk"
		}
		for _, tc := range []struct {
			name string
			h    hostile
			want string
			// unlogged: a JSON answer of a token endpoint's, which may hold
			// tokens, is never logged; the error says it could not be used.
			unlogged bool
		}{
			{"token 400 page", hostile{token: page(http.StatusBadRequest)}, "the token request at %s/token was refused: HTTP 400", false},
			{"token 400 oauth", hostile{token: oauthError(http.StatusBadRequest, "invalid_grant")}, "the token request at %s/token was refused: HTTP 400, error invalid_grant", false},
			{"token 400 odd code", hostile{token: oauthError(http.StatusBadRequest, secret)}, "the token request at %s/token was refused: HTTP 400", false},
			{"token 200 page", hostile{token: page(http.StatusOK)}, "the token request at %s/token gave an answer (HTTP 200) that is not JSON", false},
			{"token 200 bad JSON", hostile{token: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"access_token": %s`, secret)
			}}, "the token request at %s/token gave an answer (HTTP 200) that could not be used", true},
			{"register 400 oauth", hostile{register: oauthError(http.StatusBadRequest, "invalid_client_metadata")}, "the registration at %s/register was refused: HTTP 400, error invalid_client_metadata", false},
			{"register 500 page", hostile{register: page(http.StatusInternalServerError)}, "the registration at %s/register was refused: HTTP 500", false},
			{"register 201 page", hostile{register: page(http.StatusCreated)}, "the registration at %s/register gave an answer (HTTP 201) that is not JSON", false},
			{"metadata page", hostile{metaHandler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; "+secret+"=1")
				fmt.Fprint(w, secret)
			}}, "metadata", false},
			{"metadata bad JSON", hostile{metaHandler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"issuer": %s`, secret)
			}}, "metadata", false},
		} {
			t.Run(path+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				h := tc.h
				h.prm = prm
				as := startHostile(t, &h)
				hs, logs := probeHandlers(t)
				err := hs.Handler(as.server(nil)).SignIn(t.Context(), fakeauth.NewPerson("probe"))
				want := tc.want
				if strings.Contains(want, "%s") {
					want = fmt.Sprintf(want, as.issuer())
				}
				if tc.unlogged {
					logs = nil
				}
				noSecret(t, err, logs, want)
			})
		}
	}

	t.Run("refresh", func(t *testing.T) {
		t.Parallel()
		as := startHostile(t, &hostile{token: oauthError(http.StatusBadRequest, "invalid_request")})
		hs, logs := probeHandlers(t)
		srv := as.server(nil)
		// A sign-in whose token expired, with a refresh token the server refuses.
		if err := hs.Store().Save(t.Context(), &signin.Record{Server: srv.URL, Issuer: as.issuer(), TokenURL: as.issuer() + "/token",
			Client: signin.Client{ID: "client-1", AuthMethod: "none", Dynamic: true},
			Token:  &oauth2.Token{AccessToken: "old", RefreshToken: "refresh-1", Expiry: time.Now().Add(-time.Hour)}, Updated: time.Now()}); err != nil {
			t.Fatal(err)
		}
		ts, err := hs.Handler(srv).TokenSource(t.Context())
		if err != nil || ts == nil {
			t.Fatalf("TokenSource: %v, %v", ts, err)
		}
		_, err = ts.Token()
		noSecret(t, err, logs, "the token request at "+as.issuer()+"/token was refused: HTTP 400, error invalid_request")
	})

	t.Run("client credentials", func(t *testing.T) {
		t.Parallel()
		as := startHostile(t, &hostile{token: page(http.StatusUnauthorized)})
		hs, logs := probeHandlers(t)
		srv := as.server(&config.OAuth{Grant: config.GrantClientCredentials, ClientID: "machine", ClientSecret: "s3cret-machine"})
		req := httptest.NewRequest(http.MethodPost, srv.URL, nil)
		resp := &http.Response{StatusCode: http.StatusUnauthorized, Header: http.Header{"Www-Authenticate": {`Bearer error="invalid_token"`}},
			Body: http.NoBody, Request: req}
		err := hs.Handler(srv).Authorize(t.Context(), req, resp)
		noSecret(t, err, logs, "the token request at "+as.issuer()+"/token was refused: HTTP 401")
		var ns *signin.NeedsSignInError
		if errors.As(err, &ns) {
			t.Errorf("a refused client credentials grant asks a person: %v", err)
		}
	})
}
