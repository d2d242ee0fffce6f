package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoginRefusesScriptURL: switchboard login against a server of the 2025-03-26
// spec (no protected resource metadata) whose authorization server's metadata
// names a javascript: or file: authorization endpoint fails, saying which, and
// never runs $BROWSER nor prints the URL (issue 32, item 3: it used to hand it to
// the browser as it was).
func TestLoginRefusesScriptURL(t *testing.T) {
	t.Parallel()
	for _, endpoint := range []string{"javascript:alert(document.cookie)//", "file:///etc/passwd"} {
		t.Run(strings.Split(endpoint, ":")[0], func(t *testing.T) {
			t.Parallel()
			var srv *httptest.Server
			mux := http.NewServeMux()
			mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				http.Error(w, "sign in", http.StatusUnauthorized)
			})
			mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(map[string]any{
					"issuer": srv.URL + "/oauth", "authorization_endpoint": endpoint, "token_endpoint": srv.URL + "/oauth/token",
					"registration_endpoint": srv.URL + "/oauth/register", "code_challenge_methods_supported": []string{"S256"},
				})
			})
			mux.HandleFunc("POST /oauth/register", func(w http.ResponseWriter, r *http.Request) {
				var m map[string]any
				json.NewDecoder(r.Body).Decode(&m)
				m["client_id"] = "probe-client"
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				json.NewEncoder(w).Encode(m)
			})
			srv = httptest.NewServer(mux)
			t.Cleanup(srv.Close)

			s := newSandbox(t)
			cfg := s.writeConfig("mcp.json", `{"mcpServers": {"probe": {"url": `+jsonString(srv.URL+"/mcp")+`}}}`)
			opened := filepath.Join(s.Dir, "opened")
			browser := filepath.Join(s.Dir, "browser.sh")
			if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s' \"$1\" > '"+opened+"'\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			s.env["BROWSER"] = browser
			r := s.run("--config", cfg, "login", "probe", "--data-dir", filepath.Join(s.Dir, "data"))
			r.wantCode(t, exitFailed)
			r.wantStderr(t, "authorization_endpoint")
			if strings.Contains(r.stderr, endpoint) {
				t.Errorf("login printed the URL:\n%s", r.stderr)
			}
			if b, err := os.ReadFile(opened); err == nil {
				t.Errorf("$BROWSER was run on %q", b)
			}
		})
	}
}
