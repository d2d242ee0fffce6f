package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/api"
)

// noRedirects sends requests as written and never follows a redirect: a redirect is
// an answer here, not a step towards one.
var noRedirects = &http.Client{
	Transport:     &http.Transport{DisableKeepAlives: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// raw sends one request as written (its path not cleaned, no redirect followed).
func (e *env) raw(method, path, body string, headers ...string) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := noRedirects.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: string(data)}
}

// wantJSON fails unless the response is JSON with status.
func (r response) wantJSON(t *testing.T, status int) {
	t.Helper()
	if r.status != status {
		t.Errorf("status %d, want %d: %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" || !json.Valid([]byte(r.body)) {
		t.Errorf("status %d: Content-Type %q, body not JSON: %s", r.status, ct, r.body)
	}
}

// TestErrorsAreJSON: every error is JSON, in the form its clients read. A path that
// is not clean is a 404 (not net/http's redirect to its clean form), a file the
// dashboard does not have is a JSON 404, another method on a known path is 405 with
// Allow, all behind the token. The OpenAI-compatible endpoints answer in OpenAI's
// form, their 401 too; the gateway's refusals are JSON-RPC errors.
func TestErrorsAreJSON(t *testing.T) {
	t.Parallel()
	const token = "tok-json-Mm3"
	auth := "Authorization: Bearer " + token
	e := start(t, setup{gateway: true, opts: api.Options{Token: token}})

	for _, c := range []struct{ method, path, want string }{
		{"GET", "//v1/servers", "/v1/servers"},
		{"GET", "/v1/sessions/../x", "/v1/x"},
		{"GET", "/v1/./servers", "/v1/servers"},
		{"GET", "/dashboard/x", "/dashboard/app.js"},
		{"GET", "/dashboard/../v1/servers", "/v1/servers"},
		{"POST", "/v2/whatever", "/v2/whatever"},
	} {
		r := e.raw(c.method, c.path, "", auth)
		r.wantJSON(t, http.StatusNotFound)
		if code, msg, _ := r.errorOf(t); code != "not_found" || !strings.Contains(msg, c.want) {
			t.Errorf("%s %s: %s %q, want not_found naming %s", c.method, c.path, code, msg, c.want)
		}
		if loc := r.header.Get("Location"); loc != "" {
			t.Errorf("%s %s: Location %s", c.method, c.path, loc)
		}
	}
	// The dashboard's own files are still there.
	e.raw("GET", "/dashboard/app.js", "").want(t, 200)

	for _, c := range []struct{ method, path, allow string }{
		{"POST", "/v1/servers", "GET, HEAD"},
		{"DELETE", "/v1/tools", "GET, HEAD"},
		{"PUT", "/v1/sessions/abc", "DELETE, GET, HEAD"},
		{"GET", "/v1/tools/echo/call", "POST"},
		{"POST", "/healthz", "GET, HEAD"},
	} {
		// Without the token: 401 first, as for an unknown path.
		e.raw(c.method, c.path, "").wantJSON(t, http.StatusUnauthorized)
		r := e.raw(c.method, c.path, "", auth)
		r.wantJSON(t, http.StatusMethodNotAllowed)
		if got := r.header.Get("Allow"); got != c.allow {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
		}
		if code, msg, _ := r.errorOf(t); code != "method_not_allowed" || !strings.Contains(msg, c.allow) {
			t.Errorf("%s %s: %s %q", c.method, c.path, code, msg)
		}
	}

	// OpenAI's clients read OpenAI's form: {"error": {"message", "type", "param", "code"}}.
	for _, c := range []struct{ method, path string }{{"POST", "/v1/chat/completions"}, {"GET", "/v1/models"}} {
		r := e.raw(c.method, c.path, `{"model": "x", "messages": [{"role": "user", "content": "hi"}]}`)
		r.wantJSON(t, http.StatusUnauthorized)
		var b struct {
			Error map[string]any `json:"error"`
		}
		r.decode(t, &b)
		if _, ok := b.Error["param"]; !ok || b.Error["type"] != "invalid_request_error" || b.Error["code"] != "unauthorized" ||
			!strings.Contains(b.Error["message"].(string), "bearer token") {
			t.Errorf("%s %s without the token: %s, want OpenAI's error form", c.method, c.path, r.body)
		}
		if r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s %s: 401 without WWW-Authenticate", c.method, c.path)
		}
	}

	// MCP clients read a JSON-RPC error with no id.
	initialize := `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}`
	mcpHeaders := []string{"Content-Type: application/json", "Accept: application/json, text/event-stream"}
	for _, c := range []struct {
		name    string
		status  int
		headers []string
	}{
		{"no token", http.StatusUnauthorized, nil},
		{"cross-site", http.StatusForbidden, []string{auth, "Origin: http://evil.example", "Sec-Fetch-Site: cross-site"}},
		{"rebound Host", http.StatusForbidden, []string{auth, "Host: evil.example"}},
	} {
		for _, path := range []string{"/mcp", "/sse"} {
			r := e.raw("POST", path, initialize, append(mcpHeaders, c.headers...)...)
			r.wantJSON(t, c.status)
			var b struct {
				JSONRPC string           `json:"jsonrpc"`
				ID      *json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			r.decode(t, &b)
			if b.JSONRPC != "2.0" || b.ID != nil || b.Error.Code == 0 || b.Error.Message == "" {
				t.Errorf("POST %s, %s: %s, want a JSON-RPC error with no id", path, c.name, r.body)
			}
		}
	}
}
