package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

const convertCall = `call convert_time {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}`

// newSession creates a session and returns its id.
func newSession(t *testing.T, e *env, body any) string {
	t.Helper()
	var s struct {
		ID string `json:"id"`
	}
	r := e.do("POST", "/v1/sessions", body)
	r.want(t, 201)
	r.decode(t, &s)
	if s.ID == "" {
		t.Fatalf("no id: %s", r)
	}
	return s.ID
}

// TestSessions: create (random id, or the client's, never "." or ".."), list, get with
// the history, delete, and 404 for a session that is not there; a turn in JSON runs the tool the
// model calls and answers with the steps.
func TestSessions(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	id := newSession(t, e, nil)
	mine := newSession(t, e, map[string]any{"id": "my-session", "system": "Be brief.", "metadata": map[string]string{"user": "ann"}})
	if mine != "my-session" {
		t.Errorf("id %s, want the client's", mine)
	}
	e.do("POST", "/v1/sessions", map[string]any{"id": "my-session"}).want(t, 409)
	e.do("POST", "/v1/sessions", map[string]any{"id": "no/slashes"}).want(t, 400)
	// "." and ".." would be created and then out of reach: a URL is cleaned of them.
	for _, id := range []string{".", ".."} {
		e.do("POST", "/v1/sessions", map[string]any{"id": id}).want(t, 400, `want 1 to 128 characters`, "not . or ..")
	}
	e.do("GET", "/v1/sessions", nil).want(t, 200, id, `"my-session"`, `"user": "ann"`)

	var rp struct {
		Session string `json:"session"`
		Answer  string `json:"answer"`
		Steps   []struct {
			Assistant struct {
				Calls []struct {
					Name string `json:"name"`
				} `json:"calls"`
			} `json:"assistant"`
			Results []struct {
				Name string `json:"name"`
			} `json:"results"`
		} `json:"steps"`
		Usage struct {
			InputTokens int `json:"inputTokens"`
		} `json:"usage"`
	}
	r := e.do("POST", "/v1/sessions/"+id+"/messages", map[string]string{"content": convertCall})
	r.want(t, 200)
	r.decode(t, &rp)
	if rp.Session != id || !strings.Contains(rp.Answer, "convert_time: 2026-01-02T12:04:05+09:00") || len(rp.Steps) != 2 || rp.Usage.InputTokens == 0 {
		t.Errorf("reply = %s", r)
	} else if c := rp.Steps[0].Assistant.Calls; len(c) != 1 || c[0].Name != "convert_time" || len(rp.Steps[0].Results) != 1 {
		t.Errorf("first step = %+v", rp.Steps[0])
	}
	e.do("GET", "/v1/sessions/"+id, nil).want(t, 200, `"role": "user"`, "call convert_time", `"busy": false`)

	e.do("POST", "/v1/sessions/"+id+"/messages", map[string]string{"content": "  "}).want(t, 400, "empty")
	e.do("POST", "/v1/sessions/"+id+"/messages", `{"text": "hi"}`).want(t, 400, `unknown field \"text\"`)
	e.do("POST", "/v1/sessions/nope/messages", map[string]string{"content": "hi"}).want(t, 404, "not found")
	e.do("GET", "/v1/sessions/nope", nil).want(t, 404)
	e.do("DELETE", "/v1/sessions/"+id, nil).want(t, 204)
	e.do("GET", "/v1/sessions/"+id, nil).want(t, 404)
	e.do("DELETE", "/v1/sessions/"+id, nil).want(t, 404)
}

// TestNoModel: without a model, a turn is 503 saying how to configure one; the rest of
// the API works.
func TestNoModel(t *testing.T) {
	t.Parallel()
	e := start(t, setup{})
	id := newSession(t, e, nil)
	r := e.do("POST", "/v1/sessions/"+id+"/messages", map[string]string{"content": "hi"})
	r.want(t, 503, "no model configured", `\"model\"`)
	if code, _, _ := r.errorOf(t); code != "no_model" {
		t.Errorf("code %s", code)
	}
}

// TestMessageStream: with Accept: text/event-stream a turn streams tool_call,
// tool_result, text, usage and done, in that order; a model that fails mid-turn ends
// the stream with an error event.
func TestMessageStream(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true})
	id := newSession(t, e, nil)
	s, r := e.openStream("/v1/sessions/"+id+"/messages", map[string]string{"content": convertCall})
	if s == nil {
		t.Fatalf("no stream: %d %s", r.status, r)
	}
	evs := s.until(t, "done")
	var names []string
	for _, ev := range evs {
		if len(names) == 0 || names[len(names)-1] != ev.name {
			names = append(names, ev.name)
		}
	}
	if got := strings.Join(names, " "); got != "tool_call tool_result text usage done" {
		t.Errorf("events %s, want tool_call tool_result text usage done", got)
	}
	var call, result, done map[string]any
	for _, ev := range evs {
		switch ev.name {
		case "tool_call":
			json.Unmarshal([]byte(ev.data), &call)
		case "tool_result":
			json.Unmarshal([]byte(ev.data), &result)
		case "done":
			json.Unmarshal([]byte(ev.data), &done)
		}
	}
	if call["name"] != "convert_time" || call["callId"] == "" || result["callId"] != call["callId"] || result["isError"] != false ||
		!strings.Contains(result["result"].(string), "+09:00") {
		t.Errorf("tool_call %v, tool_result %v", call, result)
	}
	if !strings.Contains(done["answer"].(string), "convert_time: 2026-01-02T12:04:05+09:00") {
		t.Errorf("done = %v", done)
	}
	if _, more := s.next(); more {
		t.Errorf("events after done")
	}

	// A turn that fails before its stream starts is a plain JSON error.
	s, r = e.openStream("/v1/sessions/nope/messages", map[string]string{"content": "hi"})
	if s != nil || r.status != 404 {
		t.Errorf("stream of a missing session: %d %s", r.status, r)
	}
}

// TestMessageStreamModelError: the model failing mid-turn ends the stream with an
// error event naming it.
func TestMessageStreamModelError(t *testing.T) {
	t.Parallel()
	e := start(t, setup{script: fakellm.Queue(
		fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "current_time", Arguments: `{"zone": "UTC"}`}}},
		fakellm.Reply{Status: 400, ErrorMessage: "context too long"},
	)})
	id := newSession(t, e, nil)
	s, r := e.openStream("/v1/sessions/"+id+"/messages", map[string]string{"content": "what time is it"})
	if s == nil {
		t.Fatalf("no stream: %s", r)
	}
	evs := s.until(t, "error")
	if last := evs[len(evs)-1]; !strings.Contains(last.data, "model_failed") || !strings.Contains(last.data, "context too long") {
		t.Errorf("error event %s", last.data)
	}
}

// TestApprovals: a call of a tool under "approve" announces approval_required and waits;
// meanwhile the session is busy (409 for another turn and for DELETE) and lists the
// call; an allowed call runs, a denied one gives the model the reason; a decision on a
// call that does not wait is 404; nobody deciding in time denies it.
func TestApprovals(t *testing.T) {
	t.Parallel()
	clock := clockServer(t)
	clock.Approve = []string{"convert_*"}
	e := start(t, setup{servers: []config.Server{clock}, model: true, conv: conversation.Options{ApprovalTimeout: time.Minute}})
	id := newSession(t, e, nil)
	for _, allow := range []bool{true, false} {
		s, r := e.openStream("/v1/sessions/"+id+"/messages", map[string]string{"content": convertCall})
		if s == nil {
			t.Fatalf("no stream: %s", r)
		}
		evs := s.until(t, "approval_required")
		var ask struct {
			CallID string `json:"callId"`
			Name   string `json:"name"`
			Server string `json:"server"`
		}
		json.Unmarshal([]byte(evs[len(evs)-1].data), &ask)
		if ask.Name != "convert_time" || ask.Server != "clock" || ask.CallID == "" {
			t.Fatalf("approval_required %s", evs[len(evs)-1].data)
		}
		e.do("GET", "/v1/sessions/"+id, nil).want(t, 200, `"busy": true`, `"callId": "`+ask.CallID+`"`)
		e.do("POST", "/v1/sessions/"+id+"/messages", map[string]string{"content": "hi"}).want(t, 409, "busy")
		e.do("DELETE", "/v1/sessions/"+id, nil).want(t, 409)
		e.do("POST", "/v1/sessions/"+id+"/approvals/other-call", map[string]any{"allow": true}).want(t, 404)
		e.do("POST", "/v1/sessions/"+id+"/approvals/"+ask.CallID, map[string]any{}).want(t, 400, `\"allow\": required`)
		e.do("POST", "/v1/sessions/"+id+"/approvals/"+ask.CallID, map[string]any{"allow": allow, "reason": "not on Sundays"}).want(t, 200)
		e.do("POST", "/v1/sessions/"+id+"/approvals/"+ask.CallID, map[string]any{"allow": allow}).want(t, 404)
		evs = s.until(t, "done")
		done := evs[len(evs)-1].data
		if allow && !strings.Contains(done, "convert_time: 2026-01-02T12:04:05+09:00") {
			t.Errorf("allowed: done = %s", done)
		}
		if !allow && !strings.Contains(done, `convert_time failed: Error: the call to \"convert_time\" was denied: not on Sundays`) {
			t.Errorf("denied: done = %s", done)
		}
	}

	// Nobody decides: denied at the bound.
	e2 := start(t, setup{servers: []config.Server{clock}, model: true, conv: conversation.Options{ApprovalTimeout: 100 * time.Millisecond}})
	id = newSession(t, e2, nil)
	r := e2.do("POST", "/v1/sessions/"+id+"/messages", map[string]string{"content": convertCall})
	r.want(t, 200, "nobody approved the call to convert_time within 100ms")
}

// TestAgentHooksOfTheAPI: the agent of Options.Conversations runs the API's turns with the
// API's hooks, not its own: a call under "approve" waits for a person although the
// agent's Approve would deny it, and the events go to the stream, none to the agent's
// OnEvent.
func TestAgentHooksOfTheAPI(t *testing.T) {
	t.Parallel()
	clock := clockServer(t)
	clock.Approve = []string{"convert_*"}
	var own atomic.Int64 // calls of the agent's own hooks
	e := start(t, setup{servers: []config.Server{clock}, model: true, conv: conversation.Options{ApprovalTimeout: time.Minute},
		agent: func(o *agent.Options) {
			o.OnEvent = func(agent.Event) { own.Add(1) }
			o.Approve = func(context.Context, agent.Call) agent.Decision {
				own.Add(1)
				return agent.Deny("the agent's own hook")
			}
		}})
	id := newSession(t, e, nil)
	s, r := e.openStream("/v1/sessions/"+id+"/messages", map[string]string{"content": convertCall})
	if s == nil {
		t.Fatalf("no stream: %d %s", r.status, r)
	}
	evs := s.until(t, "approval_required")
	var ask struct {
		CallID string `json:"callId"`
	}
	json.Unmarshal([]byte(evs[len(evs)-1].data), &ask)
	e.do("POST", "/v1/sessions/"+id+"/approvals/"+ask.CallID, map[string]any{"allow": true}).want(t, 200)
	evs = s.until(t, "done")
	if done := evs[len(evs)-1].data; !strings.Contains(done, "convert_time: 2026-01-02T12:04:05+09:00") {
		t.Errorf("done = %s", done)
	}
	if n := own.Load(); n != 0 {
		t.Errorf("the agent's own hooks were called %d times, want 0", n)
	}
}

// TestShutdown: a call under way when Shutdown begins finishes within the grace, and
// new connections are refused; past the grace a call is cancelled, and Shutdown
// returns once its handler has.
func TestShutdown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		grace    time.Duration
		finished bool
	}{{"within grace", 30 * time.Second, true}, {"past grace", 200 * time.Millisecond, false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := testserver.Stdio(t, "ts")
			e := start(t, setup{servers: []config.Server{ts}})
			got := make(chan response, 1)
			go func() {
				// Not e.do: it may not call t.Fatal off the test's goroutine.
				req, _ := http.NewRequest("POST", e.url+"/v1/tools/sleep/call", strings.NewReader(`{"arguments": {"ms": 1500}}`))
				res, err := client.Do(req)
				if err != nil {
					got <- response{body: err.Error()}
					return
				}
				defer res.Body.Close()
				var b strings.Builder
				buf := make([]byte, 512)
				for {
					n, err := res.Body.Read(buf)
					b.Write(buf[:n])
					if err != nil {
						break
					}
				}
				got <- response{status: res.StatusCode, body: b.String()}
			}()
			waitLog(t, e, "testserver: sleep started")
			url := e.url
			err := e.shutdown(tc.grace)
			r := <-got
			if tc.finished {
				if err != nil || r.status != 200 || strings.Contains(r.body, `"isError": true`) {
					t.Errorf("shutdown %v; the call under way got %d %s", err, r.status, r.body)
				}
			} else if err == nil || (r.status == 200 && !strings.Contains(r.body, `"isError": true`)) {
				t.Errorf("shutdown %v; the call under way got %d %s, want it cut", err, r.status, r.body)
			}
			if _, err := client.Get(url + "/healthz"); err == nil {
				t.Errorf("a new request was answered after shutdown")
			}
		})
	}
}

// waitLog waits for a log line containing s (the hub logs the servers' stderr).
func waitLog(t *testing.T, e *env, s string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(e.logs.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line with %q", s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestGateway: /mcp serves the catalog to an MCP client, behind the token like the
// rest of the API; its open stream does not delay a shutdown.
func TestGateway(t *testing.T) {
	t.Parallel()
	const token = "tok-gw-Pp4"
	e := start(t, setup{gateway: true, opts: api.Options{Token: token}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	connect := func(header string) (*mcp.ClientSession, error) {
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		c := mcp.NewClient(&mcp.Implementation{Name: "api-test", Version: "1"}, nil)
		return c.Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint:   e.url + "/mcp",
			HTTPClient: &http.Client{Transport: headerRT{header, tr}},
			MaxRetries: -1,
		}, nil)
	}
	if cs, err := connect(""); err == nil {
		cs.Close()
		t.Errorf("connected without the token")
	}
	cs, err := connect("Bearer " + token)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "convert_time", Arguments: map[string]any{"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}})
	if err != nil || res.IsError {
		t.Fatalf("call through /mcp: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "+09:00") {
		t.Errorf("result %q", text)
	}
	// The client's open GET stream does not hold the shutdown up: it is cut at once, and
	// nothing needs cancelling past the grace.
	if err := e.shutdown(30 * time.Second); err != nil {
		t.Errorf("shutdown with an MCP client connected: %v", err)
	}
}

// headerRT sets Authorization on every request, unless header is empty.
type headerRT struct {
	header string
	next   http.RoundTripper
}

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.header != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", h.header)
	}
	return h.next.RoundTrip(r)
}

// TestShutdownTurns: a turn still running at the end of the shutdown grace ends as
// documented, not with an empty reply or a stream cut short: the session turn's JSON
// is a 503 "cancelled", its stream ends with an error event, and a chat completion's
// is OpenAI's error (a body, or an error chunk once its stream began). The call cut
// short is answered as interrupted in the session at once, not by the next turn.
func TestShutdownTurns(t *testing.T) {
	t.Parallel()
	sleep := fakellm.Reply{Text: "Sleeping on it.", Calls: []fakellm.Call{{ID: "c1", Name: "sleep", Arguments: `{"ms": 60000}`}}}
	for _, tc := range []struct {
		name   string
		path   string // "" for the session's messages
		stream bool
	}{
		{"session", "", false},
		{"session stream", "", true},
		{"chat completion", "/v1/chat/completions", false},
		{"chat completion stream", "/v1/chat/completions", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sessions := session.NewJanitor(session.NewMemory(), nil)
			e := start(t, setup{servers: []config.Server{testserver.Stdio(t, "ts")}, script: fakellm.Queue(sleep),
				opts: api.Options{Sessions: sessions}})
			id, path := "", tc.path
			var body any = map[string]any{"model": "m", "stream": tc.stream, "messages": []any{map[string]string{"role": "user", "content": "sleep"}}}
			if path == "" {
				id = newSession(t, e, nil)
				path, body = "/v1/sessions/"+id+"/messages", map[string]string{"content": "sleep"}
			}
			got := make(chan response, 1)
			go func() { got <- post(e, path, body, tc.stream) }()
			waitLog(t, e, "testserver: sleep started")
			if err := e.shutdown(200 * time.Millisecond); err == nil {
				t.Errorf("Shutdown = nil, want the turn reported cancelled")
			}
			r := <-got
			switch {
			case !tc.stream && tc.path == "":
				r.want(t, http.StatusServiceUnavailable)
				if code, msg, _ := r.errorOf(t); code != "cancelled" || !strings.Contains(msg, "shutting down") {
					t.Errorf("error %s: %s, want cancelled, saying the server is shutting down", code, msg)
				}
			case !tc.stream:
				r.want(t, http.StatusServiceUnavailable, `"code": "cancelled"`, `"type": "server_error"`, "shutting down")
			case tc.path == "":
				r.want(t, http.StatusOK, "event: tool_call", "event: error\ndata: {\"error\":{\"code\":\"cancelled\"", "shutting down")
				if strings.Contains(r.body, "event: done") {
					t.Errorf("a done event after the cancellation: %s", r.body)
				}
			default:
				r.want(t, http.StatusOK, `"content":"Sleeping"`, `data: {"error":{"message":"`, `"code":"cancelled"`, "shutting down")
			}
			if id == "" {
				return
			}
			stored, err := sessions.Store().Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(stored.Messages); n != 3 || stored.Messages[2].CallID != "c1" || !stored.Messages[2].Result.IsError ||
				tool.Text(stored.Messages[2].Result) != agent.InterruptedText {
				t.Errorf("stored %+v, want the call cut short answered as interrupted", stored.Messages)
			}
		})
	}
}

// post sends body as JSON to path (asking for a stream when stream is set) and reads
// the whole response; off the test's goroutine, it reports a failure in the body.
func post(e *env, path string, body any, stream bool) response {
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, e.url+path, bytes.NewReader(data))
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	res, err := client.Do(req)
	if err != nil {
		return response{body: err.Error()}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return response{status: res.StatusCode, body: string(b) + "\nreading the body: " + err.Error()}
	}
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}
