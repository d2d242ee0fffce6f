package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/fakeauth"
)

// TestPerUserSignIn: on a "perUser" server under a service with identities, each
// person signs in for themselves over the API and their calls run with their own
// tokens: alice's login and her browser's visit sign her in (GET /v1/servers/notes
// then says "signedIn": true to her, and false to bob), her call of the server's
// tool runs as alice; bob's call of the same tool gets at once an isError result
// that says how to sign in; then bob signs in and his call runs as bob. The server
// says perUser and how many people are connected. MCP clients at /mcp call as
// their own person too. No token appears in an answer or a log line.
func TestPerUserSignIn(t *testing.T) {
	t.Parallel()
	srv := fakeauth.Start(t, &fakeauth.Options{People: true})
	notes := notesServer(srv)
	notes.OAuth = &config.OAuth{PerUser: true}
	e := startHost(t, []config.Server{notes}, api.Options{Identify: testPeople})
	var answers []string
	do := func(who, method, path string, body any) response {
		t.Helper()
		r := e.do(method, path, body, "Authorization: Bearer "+who+"-token")
		answers = append(answers, r.body)
		return r
	}
	signIn := func(who string) {
		t.Helper()
		browser := newBrowser(t) // theirs, where the login's answer leaves its cookie
		authURL, r := e.loginIn(browser, "notes", as(who+"-token"))
		answers = append(answers, r.body)
		page, err := fakeauth.Visit(t.Context(), browser, authURL, who)
		if err != nil || page.Status != http.StatusOK {
			t.Fatalf("%s's browser: %v %d %s", who, err, page.Status, page.Body)
		}
	}
	call := func(who string) response {
		t.Helper()
		return do(who, "POST", "/v1/tools/person/call", map[string]any{"arguments": map[string]any{}})
	}

	do("alice", "GET", "/v1/servers/notes", nil).want(t, 200, `"state": "needs_sign_in"`, `"perUser": true`, `"signedIn": false`)
	signIn("alice")
	do("alice", "GET", "/v1/servers/notes", nil).want(t, 200, `"perUser": true`, `"people": 1`, `"signedIn": true`)
	do("bob", "GET", "/v1/servers/notes", nil).want(t, 200, `"signedIn": false`)
	// GET /v1/me names the servers that wait for the caller's own sign-in.
	do("bob", "GET", "/v1/me", nil).want(t, 200, `"subject": "bob"`, `"signInsWaiting": [
    "notes"
  ]`)
	do("alice", "GET", "/v1/me", nil).want(t, 200, `"subject": "alice"`, `"signInsWaiting": []`)
	call("alice").want(t, 200, `"text": "person: alice"`)
	r := call("bob")
	r.want(t, 200, `"isError": true`, "server notes needs your sign-in: use the Sign in button of the service's dashboard, in your browser")
	if strings.Contains(r.body, "person: alice") {
		t.Fatalf("bob's call ran with alice's token: %s", r.body)
	}

	// A resource read and a prompt are each person's too: alice's as alice, and bob is
	// told to sign in (403, not a 401, which would be about this API's token).
	do("alice", "GET", "/v1/resources/read?uri=fakeauth://person", nil).want(t, 200, "person: alice")
	do("bob", "GET", "/v1/resources/read?uri=fakeauth://person", nil).want(t, http.StatusForbidden, `"code": "sign_in_needed"`, "server notes needs your sign-in")
	do("alice", "POST", "/v1/prompts/person/get", map[string]any{}).want(t, 200, "person: alice")
	do("bob", "POST", "/v1/prompts/person/get", map[string]any{}).want(t, http.StatusForbidden, `"code": "sign_in_needed"`)

	signIn("bob")
	call("bob").want(t, 200, `"text": "person: bob"`)
	call("alice").want(t, 200, `"text": "person: alice"`)
	do("bob", "GET", "/v1/servers", nil).want(t, 200, `"people": 2`, `"signedIn": true`)

	// The gateway's calls at /mcp are their client's person's too.
	for _, who := range []string{"alice", "bob"} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		cr, err := mcpClient(t, e, who+"-token").CallTool(ctx, &mcp.CallToolParams{Name: "person", Arguments: map[string]any{}})
		cancel()
		if err != nil || cr.IsError || len(cr.Content) != 1 {
			t.Fatalf("%s's call at /mcp: %v %+v", who, err, cr)
		}
		if got := cr.Content[0].(*mcp.TextContent).Text; got != "person: "+who {
			t.Errorf("%s's call at /mcp ran as %q", who, got)
		}
	}

	toks := srv.AllTokens()
	if len(toks) < 2 {
		t.Fatalf("the authorization server issued %d tokens, want one each at least", len(toks))
	}
	for _, tok := range toks {
		for _, body := range answers {
			if strings.Contains(body, tok) {
				t.Errorf("an answer shows a token: %s", body)
			}
		}
		if strings.Contains(e.logs.String(), tok) {
			t.Errorf("the log shows a token")
		}
	}
}
