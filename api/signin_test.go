package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/signin"
)

// TestServerNeedsSignIn: GET /v1/servers and /health show a server that needs a
// sign-in as needs_sign_in, with the command to run, and /metrics counts it; no
// token appears anywhere once it is signed in.
func TestServerNeedsSignIn(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, nil)
	hs := signin.NewHandlers(signin.NewFiles(t.TempDir()), nil)
	t.Cleanup(hs.Close)
	up := testserver.Fast()
	up.OAuth, up.RetryFailed = hs.For, time.Hour
	notes := config.Server{Name: "notes", Transport: config.HTTP, URL: srv.MCPURL}
	e := start(t, setup{servers: []config.Server{clockServer(t), notes}, upstream: up})
	want := `"error": "server notes needs a sign-in: run 'switchboard login notes'"`
	r := e.do("GET", "/v1/servers/notes", nil)
	r.want(t, 200, `"state": "needs_sign_in"`, want)
	e.do("GET", "/health", nil).want(t, 200, `"status": "degraded"`, `"state": "needs_sign_in"`)
	e.do("GET", "/metrics", nil).want(t, 200, `switchboard_server_state{server="notes",state="needs_sign_in"} 1`)

	if err := hs.Handler(notes).SignIn(t.Context(), fakeauth.NewPerson("notes")); err != nil {
		t.Fatal(err)
	}
	e.hub.Retry("notes")
	testenv.WaitFor(t, "notes ready", 10*time.Second, func() bool {
		return strings.Contains(e.do("GET", "/v1/servers/notes", nil).body, `"state": "ready"`)
	})
	for _, path := range []string{"/v1/servers", "/v1/tools", "/metrics", "/health"} {
		body := e.do("GET", path, nil).body
		for _, tok := range srv.Tokens() {
			if strings.Contains(body, tok) {
				t.Errorf("GET %s answers with a token", path)
			}
		}
	}
}
