package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
)

// Sign-ins through the API against an authorization server a probe controls (issue
// 32): metadata that names a script or file URL, a plain-http endpoint or no PKCE
// gets no URL out of POST /v1/servers/{name}/login (item 3); and what its endpoints
// answer (an internal page, when they name an address only the service reaches)
// never reaches signIn.error in GET /v1/servers/{name}, which every person reads,
// nor the callback's page: only the log (item 4).

// internalPage is what the probe's token endpoint answers: a page it should never
// have been able to read back.
const internalPage = "SECRET-INTERNAL-PAGE"

// probeAS is an MCP server that wants a sign-in, of the 2025-03-26 spec (no
// protected resource metadata), with the authorization server at its origin: its
// metadata edited by meta, its token endpoint answered by token.
func probeAS(t *testing.T, meta func(m map[string]any), token http.HandlerFunc) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	writeJSON := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(w, "sign in", http.StatusUnauthorized)
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		m := map[string]any{
			"issuer":                                srv.URL,
			"authorization_endpoint":                srv.URL + "/authorize",
			"token_endpoint":                        srv.URL + "/token",
			"registration_endpoint":                 srv.URL + "/register",
			"response_types_supported":              []string{"code"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		}
		if meta != nil {
			meta(m)
		}
		writeJSON(w, http.StatusOK, m)
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		m["client_id"], m["token_endpoint_auth_method"] = "probe-client", "none"
		writeJSON(w, http.StatusCreated, m)
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=probe-code&state="+q.Get("state"), http.StatusFound)
	})
	mux.HandleFunc("POST /token", token)
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestSignInNoEcho: the probe's token endpoint answers its internal page (as an
// error, or as a token answer that is none); the sign-in fails, and GET
// /v1/servers/{name} and the callback's page say what failed (the token request at
// its URL, the HTTP status, an OAuth error code of the standard's) but not what the
// endpoint answered, which the log has.
func TestSignInNoEcho(t *testing.T) {
	t.Parallel()
	page := fmt.Sprintf("<html><h1>Admin console</h1>%s: db password hunter2</html>", internalPage)
	for _, tc := range []struct {
		name  string
		token http.HandlerFunc
		want  string
	}{
		{"400 page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, page)
		}, "was refused: HTTP 400"},
		{"400 OAuth error", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant", "error_description": page})
		}, "was refused: HTTP 400, error invalid_grant"},
		{"200 not JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, page)
		}, "gave an answer (HTTP 200) that is not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			as := probeAS(t, nil, tc.token)
			e := startHost(t, []config.Server{{Name: "probe", Transport: config.HTTP, URL: as.URL + "/mcp"}}, api.Options{Token: "api-token"})
			e.do("GET", "/v1/servers/probe", nil).want(t, http.StatusOK, `"state": "needs_sign_in"`)

			browser := newBrowser(t)
			back := authorize(t, e.login(browser, "probe"))
			cb := visit(t, browser, back)
			cb.want(t, http.StatusOK, "The sign-in to probe did not succeed")
			var st struct {
				SignIn struct {
					State string `json:"state"`
					Error string `json:"error"`
				} `json:"signIn"`
			}
			r := e.do("GET", "/v1/servers/probe", nil)
			r.decode(t, &st)
			want := "the token request at " + as.URL + "/token " + tc.want
			if st.SignIn.State != "failed" || !strings.Contains(st.SignIn.Error, want) {
				t.Errorf("signIn %+v, want failed saying %q", st.SignIn, want)
			}
			for what, body := range map[string]string{"GET /v1/servers/probe": r.body, "GET /v1/servers": e.do("GET", "/v1/servers", nil).body,
				"the callback's page": cb.body} {
				if strings.Contains(body, internalPage) {
					t.Errorf("%s quotes the token endpoint's answer:\n%s", what, body)
				}
			}
			// Logged before the sign-in ended, which the callback's page waited for.
			if !strings.Contains(e.logs.String(), internalPage) {
				t.Errorf("the log lacks the token endpoint's answer")
			}
		})
	}
}

// TestSignInMetadataRefused: POST /v1/servers/{name}/login against metadata that
// names a javascript: or file: authorization endpoint, a token endpoint over plain
// http away from loopback, or no S256, answers an error that says which rule, and
// no URL.
func TestSignInMetadataRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		meta func(m map[string]any)
		want string
	}{
		{"javascript", func(m map[string]any) { m["authorization_endpoint"] = "javascript:fetch('/v1/me')//" }, "authorization_endpoint"},
		{"file", func(m map[string]any) { m["authorization_endpoint"] = "file:///etc/passwd" }, "authorization_endpoint"},
		{"plain http token endpoint", func(m map[string]any) { m["token_endpoint"] = "http://192.0.2.1/token" }, "token_endpoint"},
		{"no S256", func(m map[string]any) { m["code_challenge_methods_supported"] = []string{"plain"} }, "S256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			as := probeAS(t, func(m map[string]any) {
				m["issuer"] = m["issuer"].(string) + "/oauth" // an issuer of its own: SignIn's legacy path
				tc.meta(m)
			}, func(w http.ResponseWriter, r *http.Request) { t.Error("a token request reached the probe") })
			e := startHost(t, []config.Server{{Name: "probe", Transport: config.HTTP, URL: as.URL + "/mcp"}}, api.Options{Token: "api-token"})
			r := e.do("POST", "/v1/servers/probe/login", nil)
			r.want(t, http.StatusBadGateway)
			code, msg, _ := r.errorOf(t)
			if code != "sign_in_failed" || !strings.Contains(msg, tc.want) {
				t.Errorf("login: %s %q, want sign_in_failed naming %s", code, msg, tc.want)
			}
			if strings.Contains(r.body, `"url"`) {
				t.Errorf("login answered a URL: %s", r.body)
			}
		})
	}
}

// TestDashboardSignInOnlyWeb: the dashboard's Sign in opens only an http or https
// page. A front that answers POST /v1/servers/notes/login with a javascript: URL
// (the service refuses such metadata itself; the page does not count on it) gets
// no tab sent there and no link to it: the card says the sign-in failed, as text.
func TestDashboardSignInOnlyWeb(t *testing.T) {
	ctx := browser(t)
	fa := fakeauth.Start(t, nil)
	e := startHost(t, []config.Server{notesServer(fa)}, api.Options{})
	target, err := url.Parse(e.url)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var logins atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/servers/notes/login" {
			logins.Add(1)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"url": "javascript:document.title='pwned'"}`)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		front.CloseClientConnections() // the page's event stream, which the browser holds open
		front.Close()
	})

	notes := `document.querySelector('article.server[data-server="notes"]')`
	do(t, ctx, "opening the page", chromedp.Navigate(front.URL+"/"))
	waitJS(t, ctx, "notes needing a sign-in", notes+` && `+notes+`.dataset.state === "needs_sign_in"`)
	do(t, ctx, "clicking Sign in", chromedp.Click(chromedp.CSS(`button[aria-label="Sign in to notes"]`)))
	// The tab closed, the page reloads what the service says of this person once
	// it has the focus back: the note stays all the same.
	waitJS(t, ctx, "the sign-in's note", `!`+notes+`.querySelector(".sign-in-note").hidden && `+notes+`.querySelector(".sign-in-note").textContent !== ""`)
	screenshot(t, ctx, "refused")
	if n := logins.Load(); n != 1 {
		t.Fatalf("%d logins reached the front, want 1", n)
	}
	note := eval[string](t, ctx, notes+`.querySelector(".sign-in-note").textContent`)
	if !strings.Contains(note, "Sign-in failed") || !strings.Contains(note, "not an http or https URL") {
		t.Errorf("the card's note says %q, want the sign-in refused", note)
	}
	if href := eval[string](t, ctx, `Array.from(document.querySelectorAll("a")).map(a => a.getAttribute("href") || "").filter(h => /^\s*javascript:/i.test(h)).join(" ")`); href != "" {
		t.Errorf("the page links to %q", href)
	}
	if title := eval[string](t, ctx, `document.title`); title == "pwned" {
		t.Errorf("the javascript: URL ran in the page")
	}
}
