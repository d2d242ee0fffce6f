package api_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/redact"
)

// watch opens GET /v1/events with the env's token; the stream is closed when the
// test ends.
func (e *env) watch() *stream {
	e.t.Helper()
	s, r := e.getStream("/v1/events", e.token)
	if s == nil {
		e.t.Fatalf("GET /v1/events: %d %s", r.status, r.body)
	}
	return s
}

// getStream opens GET path as an event stream, with token as the bearer token when
// not empty.
func (e *env) getStream(path, token string) (*stream, response) {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.url+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return nil, response{status: res.StatusCode, header: res.Header, body: string(b)}
	}
	e.t.Cleanup(func() { res.Body.Close() })
	return &stream{res: res, rd: bufio.NewReader(res.Body)}, response{status: res.StatusCode, header: res.Header}
}

type eventServer struct {
	Name         string `json:"name"`
	State        string `json:"state"`
	Tools        int    `json:"tools"`
	Restarts     int    `json:"restarts"`
	Change       string `json:"change"`
	ToolsChanged bool   `json:"toolsChanged"`
	// Flapping and RecentRestarts: it lost its connection that often of late.
	Flapping       bool       `json:"flapping"`
	RecentRestarts int        `json:"recentRestarts"`
	FlappingUntil  *time.Time `json:"flappingUntil"`
}

type eventCall struct {
	ID         int64   `json:"id"`
	Tool       string  `json:"tool"`
	Server     string  `json:"server"`
	Source     string  `json:"source"`
	Session    string  `json:"session"`
	DurationMs float64 `json:"durationMs"`
	IsError    bool    `json:"isError"`
	Error      string  `json:"error"`
}

type eventSnapshot struct {
	Servers []eventServer `json:"servers"`
	Calls   []eventCall   `json:"calls"`
	Model   struct {
		Configured bool   `json:"configured"`
		Help       string `json:"help"`
	} `json:"model"`
	Version string `json:"version"`
}

func last(evs []event) event { return evs[len(evs)-1] }

func decodeEvent[T any](t *testing.T, ev event) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(ev.data), &v); err != nil {
		t.Fatalf("event %s: %v: %s", ev.name, err, ev.data)
	}
	return v
}

// The stream starts with a snapshot, follows a server through a restart (every state
// it passes, in order, even when it is ready again before the event is sent), and
// tells of every call made through the API, as GET /v1/calls lists them.
func TestEventsSnapshotStatesAndCalls(t *testing.T) {
	t.Parallel()
	e := start(t, setup{})
	s := e.watch()
	ev, ok := s.next()
	if !ok || ev.name != "snapshot" {
		t.Fatalf("first event %v (ok %v), want a snapshot", ev, ok)
	}
	snap := decodeEvent[eventSnapshot](t, ev)
	if len(snap.Servers) != 1 || snap.Servers[0].Name != "clock" || snap.Servers[0].State != "ready" || snap.Servers[0].Tools != 3 {
		t.Errorf("snapshot servers = %+v, want clock ready with 3 tools", snap.Servers)
	}
	// How in the library's terms: the config's setting (the CLI adds its --model).
	if snap.Model.Configured || !strings.Contains(snap.Model.Help, `"switchboard": {"model": {`) {
		t.Errorf("snapshot model = %+v, want not configured with how to configure one", snap.Model)
	}
	if len(snap.Calls) != 0 || snap.Version != "test" {
		t.Errorf("snapshot calls %v, version %q", snap.Calls, snap.Version)
	}

	e.do("POST", "/v1/servers/clock/restart", nil).want(t, http.StatusAccepted)
	var states []string
	for {
		evs := s.until(t, "server")
		srv := decodeEvent[eventServer](t, evs[len(evs)-1])
		states = append(states, srv.State)
		if srv.State == "ready" {
			if !srv.ToolsChanged || srv.Tools != 3 {
				t.Errorf("ready again: %+v, want its tools listed again", srv)
			}
			break
		}
	}
	// A restart closes the old connection and starts a new one.
	if len(states) < 2 || states[0] != "closed" {
		t.Errorf("states during a restart: %v, want closed, …, ready", states)
	}

	e.do("POST", "/v1/tools/current_time/call", map[string]any{"arguments": map[string]string{"zone": "UTC"}}).want(t, http.StatusOK)
	c := decodeEvent[eventCall](t, last(s.until(t, "call")))
	if c.Tool != "current_time" || c.Server != "clock" || c.Source != "api" || c.IsError || c.DurationMs <= 0 || c.ID != 1 {
		t.Errorf("call event %+v, want current_time on clock from the API, ok, with its duration", c)
	}
	e.do("POST", "/v1/tools/current_time/call", map[string]any{"arguments": map[string]string{"zone": "Mars/Olympus"}}).want(t, http.StatusOK, `"isError": true`)
	c = decodeEvent[eventCall](t, last(s.until(t, "call")))
	if !c.IsError || !strings.Contains(c.Error, "Mars/Olympus") || c.ID != 2 {
		t.Errorf("failed call event %+v, want isError with the message", c)
	}

	var calls struct {
		Calls []eventCall `json:"calls"`
	}
	e.do("GET", "/v1/calls", nil).decode(t, &calls)
	if len(calls.Calls) != 2 || calls.Calls[0].IsError || !calls.Calls[1].IsError {
		t.Errorf("GET /v1/calls = %+v, want the two calls, oldest first", calls.Calls)
	}
}

// A session's tool calls are recent calls too, with their session.
func TestEventsTurnCalls(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	s := e.watch()
	snap := decodeEvent[eventSnapshot](t, last(s.until(t, "snapshot")))
	if !snap.Model.Configured || snap.Model.Help != "" {
		t.Errorf("snapshot model = %+v, want configured", snap.Model)
	}
	var sess struct {
		ID string `json:"id"`
	}
	e.do("POST", "/v1/sessions", map[string]any{}).decode(t, &sess)
	e.do("POST", "/v1/sessions/"+sess.ID+"/messages", map[string]string{"content": `call current_time {"zone": "UTC"}`}).want(t, http.StatusOK)
	c := decodeEvent[eventCall](t, last(s.until(t, "call")))
	if c.Tool != "current_time" || c.Server != "clock" || c.Source != "session" || c.Session != sess.ID || c.IsError {
		t.Errorf("call event %+v, want current_time on clock from session %s", c, sess.ID)
	}
}

// An idle stream gets keep-alive comments.
func TestEventsHeartbeat(t *testing.T) {
	t.Parallel()
	e := start(t, setup{})
	api.SetEventsHeartbeat(e.srv, 20*time.Millisecond)
	s := e.watch()
	s.until(t, "snapshot")
	for {
		line, err := s.rd.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended before a keep-alive comment: %v", err)
		}
		if strings.HasPrefix(line, ": keep-alive") {
			return
		}
	}
}

// Shutdown cuts the stream at once instead of waiting for it, and a client that
// leaves ends its handler (the request's log line is written when it returns).
func TestEventsEnd(t *testing.T) {
	t.Parallel()
	e := start(t, setup{})
	left := e.watch()
	left.until(t, "snapshot")
	left.res.Body.Close()
	testenv.WaitFor(t, "the handler of the stream the client left to return", 10*time.Second, func() bool {
		return strings.Contains(e.logs.String(), `"path":"/v1/events"`)
	})

	s := e.watch()
	s.until(t, "snapshot")
	if err := e.shutdown(5 * time.Second); err != nil {
		t.Errorf("Shutdown with an event stream open: %v, want nil (streams are cut, not waited for)", err)
	}
	for {
		if _, ok := s.next(); !ok {
			break
		}
	}
}

// The stream takes the token in the Authorization header only: never from the query
// string, which would carry it into logs and browser history.
func TestEventsToken(t *testing.T) {
	t.Parallel()
	const token = "events-s3cret-token"
	e := start(t, setup{opts: api.Options{Token: token}})
	if _, r := e.getStream("/v1/events", ""); r.status != http.StatusUnauthorized {
		t.Errorf("without the token: %d %s, want 401", r.status, r.body)
	}
	if _, r := e.getStream("/v1/events?token="+token, ""); r.status != http.StatusUnauthorized {
		t.Errorf("with ?token=: %d %s, want 401", r.status, r.body)
	}
	e.watch().until(t, "snapshot")
	e.do("GET", "/v1/calls", nil, "Authorization: ").want(t, http.StatusUnauthorized)
	if strings.Contains(e.logs.String(), token) {
		t.Errorf("the token is in the log:\n%s", e.logs)
	}
}

// A failed call whose result quotes a configured secret (a server repeating its own
// key in an error) is a recent call with the secret masked, in GET /v1/calls and the
// events, as the same text is in a JSON-RPC error: it was shown in clear.
func TestEventsCallsMaskSecrets(t *testing.T) {
	t.Parallel()
	const secret = "vault-key-Zq81xPw" // shaped like no well-known token: masked as configured
	srv := testserver.Stdio(t, "vault")
	srv.Env = map[string]string{"VAULT_KEY": secret}
	e := start(t, setup{servers: []config.Server{srv}})
	s := e.watch()
	s.until(t, "snapshot")
	r := e.do("POST", "/v1/tools/fail/call", map[string]any{"arguments": map[string]string{"text": "the vault refused the key $VAULT_KEY"}})
	r.want(t, http.StatusOK, `"isError": true`)
	if strings.Contains(r.body, secret) {
		t.Errorf("the call's reply shows the secret: %s", r.body)
	}
	c := decodeEvent[eventCall](t, last(s.until(t, "call")))
	if !c.IsError || c.Error != "the vault refused the key "+redact.Mask {
		t.Errorf("call event's error %q, want the key masked", c.Error)
	}
	calls := e.do("GET", "/v1/calls", nil)
	calls.want(t, http.StatusOK, "the vault refused the key "+redact.Mask)
	if strings.Contains(calls.body, secret) {
		t.Errorf("GET /v1/calls shows the secret: %s", calls.body)
	}
}

// A server that keeps crashing is flapping: from its third lost connection within
// five minutes, its "server" events and GET /v1/servers/{name} say so, with until
// when (its ready state and growing restart count hid it); two are not enough.
func TestServersFlapping(t *testing.T) {
	t.Parallel()
	e := start(t, setup{servers: []config.Server{testserver.Stdio(t, "ts")}})
	s := e.watch()
	s.until(t, "snapshot")
	for i := 1; i <= 3; i++ {
		e.do("POST", "/v1/tools/crash/call", nil) // the server exits: the call fails
		var srv eventServer
		for srv.State != "ready" {
			srv = decodeEvent[eventServer](t, last(s.until(t, "server")))
		}
		if srv.Restarts != i || srv.RecentRestarts != i || srv.Flapping != (i == 3) || (srv.FlappingUntil != nil) != (i == 3) {
			t.Errorf("ready again after crash %d: %+v, want %d restarts, flapping from the third", i, srv, i)
		}
	}
	var srv eventServer
	e.do("GET", "/v1/servers/ts", nil).decode(t, &srv)
	if !srv.Flapping || srv.RecentRestarts != 3 || srv.FlappingUntil == nil || srv.FlappingUntil.Before(time.Now()) ||
		srv.FlappingUntil.After(time.Now().Add(5*time.Minute)) {
		t.Errorf("GET /v1/servers/ts = %+v, want flapping for up to 5 minutes", srv)
	}
	e.do("GET", "/v1/servers", nil).want(t, http.StatusOK, `"flapping": true`)
}

// A server that re-lists its resources after saying they changed is a server event
// with resourcesChanged (and not toolsChanged), so that a client re-reads that list.
func TestEventsResourcesChanged(t *testing.T) {
	t.Parallel()
	e := start(t, setup{servers: []config.Server{extrasServer(t, "ts", 5*time.Second)}})
	s := e.watch()
	if ev, ok := s.next(); !ok || ev.name != "snapshot" {
		t.Fatalf("first event %v (ok %v), want a snapshot", ev, ok)
	}
	e.do("POST", "/v1/tools/add_extra/call", map[string]any{"arguments": map[string]string{"name": "fresh"}}).want(t, http.StatusOK, "added fresh")
	for {
		ev := decodeEvent[struct {
			eventServer
			ResourcesChanged bool `json:"resourcesChanged"`
			PromptsChanged   bool `json:"promptsChanged"`
		}](t, last(s.until(t, "server")))
		if !ev.ResourcesChanged {
			continue
		}
		if ev.Name != "ts" || ev.ToolsChanged || ev.PromptsChanged {
			t.Errorf("the event of the new resource: %+v", ev)
		}
		break
	}
	e.do("GET", "/v1/resources", nil).want(t, http.StatusOK, "test://extras/added/fresh")
}
