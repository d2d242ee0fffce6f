package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/identity"
)

// whoServer is an MCP server over Streamable HTTP whose tool "whoami" answers with
// the X-Switchboard-* headers of the request that carried the call, and which keeps
// every request's X-Switchboard-* headers (its HTTP method, its JSON-RPC method,
// then the headers).
type whoServer struct {
	url  string
	mu   sync.Mutex
	seen []string
}

func startWhoServer(t *testing.T, sse bool) *whoServer {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "who", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "the X-Switchboard-* headers of this call's request"},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			var h http.Header // nil over SSE, whose server passes none on
			if req.Extra != nil {
				h = req.Extra.Header
			}
			text := "user=" + h.Get("X-Switchboard-User") + " groups=" + h.Get("X-Switchboard-Groups") + " email=" + h.Get("X-Switchboard-Email") +
				" n=" + string(rune('0'+len(h.Values("X-Switchboard-User"))))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	w := &whoServer{}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	if sse { // the legacy transport: its server passes no headers to a tool, the log has them
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var got []string
		for k, v := range r.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-switchboard-") {
				got = append(got, k+"="+strings.Join(v, "|"))
			}
		}
		var msg struct {
			Method string `json:"method"`
		}
		if r.Body != nil {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			_ = json.Unmarshal(body, &msg) // a response, or a batch: no method
		}
		w.mu.Lock()
		w.seen = append(w.seen, r.Method+" "+msg.Method+" "+strings.Join(got, " "))
		w.mu.Unlock()
		h.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	w.url = srv.URL
	return w
}

func (w *whoServer) requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen...)
}

// forwardPeople is an Options.Identify with groups and emails: alice (groups eng and
// ops, an email, and a group with a comma that cannot travel), bob (sales, no email).
func forwardPeople(r *http.Request) (identity.Person, error) {
	switch r.Header.Get("Authorization") {
	case "Bearer alice-token":
		return identity.Person{Subject: "alice", Email: "alice@example.com", Groups: []string{"eng", "ops", "a,b"}}, nil
	case "Bearer bob-token":
		return identity.Person{Subject: "bob", Groups: []string{"sales"}}, nil
	}
	return identity.Person{}, errors.New("the token is not one of this service's")
}

// TestForwardIdentity: a server with "forwardIdentity" is told, on the one
// connection it shares, who each call is for: alice's calls carry her subject,
// groups and email, bob's his (no email header: he has none), over the API and over
// /mcp, in a session's turn and a chat completion alike, and an application key's
// its "key:<id>". Headers of those names sent
// by anyone else — the entry's own headers, a client of the API or of /mcp — never
// reach it, nor does any on the requests made for nobody (initialize, the lists) or
// for the static token's admin (no subject). A server without the setting is told
// nothing; one on the legacy SSE transport is told on the POST of each call.
func TestForwardIdentity(t *testing.T) {
	t.Parallel()
	who, plain, old := startWhoServer(t, false), startWhoServer(t, false), startWhoServer(t, true)
	spoof := map[string]string{"X-Switchboard-User": "mallory", "X-Switchboard-Groups": "admins", "X-Switchboard-Email": "m@evil"}
	e := start(t, setup{gateway: true, model: true, servers: []config.Server{
		{Name: "who", Transport: config.HTTP, URL: who.url, ForwardIdentity: true, Headers: spoof},
		{Name: "plain", Transport: config.HTTP, URL: plain.url, Headers: spoof, Prefix: "plain"},
		{Name: "old", Transport: config.SSE, URL: old.url, ForwardIdentity: true, Headers: spoof, Prefix: "old"},
	}, opts: api.Options{Identify: forwardPeople, Token: "static-secret"}})
	spoofed := []string{"X-Switchboard-User: mallory", "X-Switchboard-Groups: admins", "X-Switchboard-Email: m@evil"}
	call := func(tool, tok string) string {
		t.Helper()
		r := e.do("POST", "/v1/tools/"+tool+"/call", map[string]any{"arguments": map[string]any{}},
			append([]string{"Authorization: Bearer " + tok}, spoofed...)...)
		r.want(t, 200)
		var res apiwire.CallResult
		r.decode(t, &res)
		return res.Text
	}

	for tok, want := range map[string]string{
		"alice-token":   "user=alice groups=eng,ops email=alice@example.com n=1",
		"bob-token":     "user=bob groups=sales email= n=1",
		"static-secret": "user= groups= email= n=0",
	} {
		if got := call("whoami", tok); got != want {
			t.Errorf("the server saw %q for %s's call, want %q", got, tok, want)
		}
		if got := call("plain__whoami", tok); got != "user= groups= email= n=0" {
			t.Errorf("the server without forwardIdentity saw %q for %s's call", got, tok)
		}
	}

	// An application key is its own subject.
	r := e.do("POST", "/v1/keys", `{"name": "bot", "profiles": ["ci"]}`, "Authorization: Bearer static-secret")
	r.want(t, 201)
	var key apiwire.NewKey
	r.decode(t, &key)
	if got := call("whoami", key.Secret); got != "user=key:"+key.ID+" groups= email= n=1" {
		t.Errorf("the server saw %q for the key's call", got)
	}

	// Over /mcp, with the client's own X-Switchboard-* headers.
	for tok, want := range map[string]string{"alice-token": "user=alice ", "bob-token": "user=bob "} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		c := mcp.NewClient(&mcp.Implementation{Name: "forward-test", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.url + "/mcp", MaxRetries: -1,
			HTTPClient: &http.Client{Transport: spoofRT{headerRT{"Bearer " + tok, tr}}}}, nil)
		if err != nil {
			cancel()
			t.Fatalf("connect as %s: %v", tok, err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		cs.Close()
		cancel()
		if err != nil || len(res.Content) != 1 {
			t.Fatalf("%s's call at /mcp: %v %+v", tok, err, res)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(got, want) || strings.Contains(got, "mallory") {
			t.Errorf("at /mcp the server saw %q for %s, want %q…", got, tok, want)
		}
	}

	// A session's turn and a chat completion: the model's calls are their person's.
	r = e.do("POST", "/v1/sessions", map[string]any{}, "Authorization: Bearer alice-token")
	r.want(t, 201)
	var sess struct {
		ID string `json:"id"`
	}
	r.decode(t, &sess)
	e.do("POST", "/v1/sessions/"+sess.ID+"/messages", map[string]any{"content": "call whoami"}, "Authorization: Bearer alice-token").
		want(t, 200, "whoami: user=alice groups=eng,ops email=alice@example.com n=1")
	e.do("POST", "/v1/chat/completions", map[string]any{"model": "test-model", "messages": []map[string]string{{"role": "user", "content": "call whoami"}}},
		"Authorization: Bearer bob-token").want(t, 200, "whoami: user=bob groups=sales email= n=1")

	reqs := who.requests()
	var calls int
	for _, r := range reqs {
		if strings.Contains(r, "mallory") || strings.Contains(r, "admins") || strings.Contains(r, "evil") {
			t.Errorf("a spoofed header reached the server: %s", r)
		}
		if strings.Contains(r, "tools/call") {
			calls++
		} else if strings.Contains(r, "X-Switchboard") {
			t.Errorf("a request made for nobody carries an identity: %s", r)
		}
	}
	if calls != 8 {
		t.Errorf("the server saw %d calls, want 8:\n%s", calls, strings.Join(reqs, "\n"))
	}
	// The legacy SSE transport: the request that carries alice's call carries her.
	call("old__whoami", "alice-token")
	var sawAlice bool
	for _, r := range old.requests() {
		if strings.Contains(r, "mallory") || (!strings.Contains(r, "tools/call") && strings.Contains(r, "X-Switchboard")) {
			t.Errorf("the SSE server was sent %s", r)
		}
		sawAlice = sawAlice || (strings.Contains(r, "tools/call") && strings.Contains(r, "X-Switchboard-User=alice") &&
			strings.Contains(r, "X-Switchboard-Groups=eng,ops") && strings.Contains(r, "X-Switchboard-Email=alice@example.com"))
	}
	if !sawAlice {
		t.Errorf("the SSE server was not told alice's call was hers:\n%s", strings.Join(old.requests(), "\n"))
	}
	for _, r := range plain.requests() {
		if strings.Contains(r, "X-Switchboard") {
			t.Errorf("the server without forwardIdentity was sent %s", r)
		}
	}
}

// spoofRT sends X-Switchboard-* headers of its own on every request.
type spoofRT struct{ next http.RoundTripper }

func (s spoofRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Switchboard-User", "mallory")
	r.Header.Set("X-Switchboard-Groups", "admins")
	return s.next.RoundTrip(r)
}
