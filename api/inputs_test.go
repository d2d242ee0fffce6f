package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// askServer is the test server with its ask tool, whose calls last long enough for a
// test to answer.
func askServer(t *testing.T) config.Server {
	srv := testserver.Stdio(t, "ts", "--ask")
	srv.ToolTimeout = time.Minute
	return srv
}

// askedInput is an input_required event.
type askedInput struct {
	RequestID string          `json:"requestId"`
	Server    string          `json:"server"`
	Mode      string          `json:"mode"`
	Message   string          `json:"message"`
	Schema    json.RawMessage `json:"schema"`
	URL       string          `json:"url"`
	TimeoutMs int64           `json:"timeoutMs"`
	CallID    string          `json:"callId"`
}

// asked reads a turn's stream up to its input_required event.
func asked(t *testing.T, s *stream) askedInput {
	t.Helper()
	evs := s.until(t, "input_required")
	var in askedInput
	if err := json.Unmarshal([]byte(evs[len(evs)-1].data), &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// toolResult reads a turn's stream up to its done event and returns the text of its
// tool_result, checking that input_closed said action before it.
func toolResult(t *testing.T, s *stream, requestID, action string) string {
	t.Helper()
	var result, closed string
	for _, ev := range s.until(t, "done") {
		var d map[string]any
		json.Unmarshal([]byte(ev.data), &d)
		switch ev.name {
		case "input_closed":
			if d["requestId"] != requestID {
				t.Errorf("input_closed %s, want request %s", ev.data, requestID)
			}
			closed, _ = d["action"].(string)
		case "tool_result":
			if closed == "" {
				t.Errorf("tool_result before input_closed")
			}
			result, _ = d["result"].(string)
		}
	}
	if closed != action {
		t.Errorf("input_closed with action %q, want %q", closed, action)
	}
	return result
}

// TestInputs: a server's question during a session's turn reaches the person: the
// stream sends input_required with the form (or the URL) and the time left, the
// session lists it under inputs, and POST .../inputs/{request_id} answers it. A form's
// content is checked against it (400 naming each field wrong, and the question still
// waits); the fields left out take their defaults; decline and cancel carry no
// content; a URL-mode question takes none either. A question is answered once.
func TestInputs(t *testing.T) {
	t.Parallel()
	e := start(t, setup{servers: []config.Server{askServer(t)}, model: true, ask: true})
	id := newSession(t, e, nil)
	base := "/v1/sessions/" + id + "/inputs/"

	t.Run("form", func(t *testing.T) {
		s, r := e.openStream("/v1/sessions/"+id+"/messages", map[string]string{"content": `call ask {"message": "Who are <b>you</b>?"}`})
		if s == nil {
			t.Fatalf("no stream: %d %s", r.status, r)
		}
		in := asked(t, s)
		if in.Server != "ts" || in.Mode != "form" || in.Message != "Who are <b>you</b>?" || in.CallID == "" || in.URL != "" ||
			in.TimeoutMs <= 0 || in.TimeoutMs > time.Minute.Milliseconds() || !strings.Contains(string(in.Schema), `"subscribe"`) {
			t.Fatalf("input_required %+v", in)
		}
		e.do("GET", "/v1/sessions/"+id, nil).want(t, 200, `"busy": true`, `"inputs": [`, `"requestId": "`+in.RequestID+`"`, `"mode": "form"`)
		e.do("POST", base+"in_nope", map[string]any{"action": "decline"}).want(t, 404, "no question")
		e.do("POST", base+in.RequestID, map[string]any{}).want(t, 400, `\"action\": required`)
		e.do("POST", base+in.RequestID, map[string]any{"action": "maybe"}).want(t, 400, `want \"accept\", \"decline\" or \"cancel\"`)
		e.do("POST", base+in.RequestID, map[string]any{"action": "accept", "content": []int{1}}).want(t, 400, `\"content\": want an object`)
		r = e.do("POST", base+in.RequestID, map[string]any{"action": "accept", "content": map[string]any{"name": "", "count": 99, "color": "purple", "size": "s", "extra": 1}})
		r.want(t, 400, `\"content.name\": minLength`, `\"content.count\": maximum: 99 is greater than 10;`, `\"content.color\": enum`, `\"content.extra\": the form has no such field (its fields: color, count, name, size, subscribe)`)
		if strings.Contains(r.body, "content.size") {
			t.Errorf("a valid field is named: %s", r.body)
		}
		e.do("POST", base+in.RequestID, map[string]any{"action": "accept", "content": map[string]any{"count": 2.5}}).want(t, 400, `\"content.name\": required`, `\"content.count\": type`)
		// Still waiting: the person corrects the form.
		e.do("POST", base+in.RequestID, map[string]any{"action": "accept", "content": map[string]any{"name": "ada", "subscribe": false}}).want(t, 200, `"action": "accept"`)
		e.do("POST", base+in.RequestID, map[string]any{"action": "accept", "content": map[string]any{"name": "ada"}}).want(t, 404)
		want := `action=accept content={"color":"green","count":3,"name":"ada","size":"l","subscribe":false}`
		if got := toolResult(t, s, in.RequestID, "accept"); got != want {
			t.Errorf("the server got %q, want %q (the defaults filled in)", got, want)
		}
		e.do("GET", "/v1/sessions/"+id, nil).want(t, 200, `"busy": false`)
	})

	t.Run("decline", func(t *testing.T) {
		s, r := e.openStream("/v1/sessions/"+id+"/messages", map[string]string{"content": `call ask {}`})
		if s == nil {
			t.Fatalf("no stream: %d %s", r.status, r)
		}
		in := asked(t, s)
		e.do("POST", base+in.RequestID, map[string]any{"action": "decline", "content": map[string]any{"name": "ada"}}).want(t, 200, `"action": "decline"`)
		if got := toolResult(t, s, in.RequestID, "decline"); got != "action=decline content=null" {
			t.Errorf("the server got %q, want a decline without content", got)
		}
	})

	t.Run("url", func(t *testing.T) {
		s, r := e.openStream("/v1/sessions/"+id+"/messages", map[string]string{"content": `call ask {"url": "https://example.com/connect?id=1"}`})
		if s == nil {
			t.Fatalf("no stream: %d %s", r.status, r)
		}
		in := asked(t, s)
		if in.Mode != "url" || in.URL != "https://example.com/connect?id=1" || in.Schema != nil || in.Message == "" {
			t.Fatalf("input_required %+v", in)
		}
		e.do("POST", base+in.RequestID, map[string]any{"action": "accept", "content": map[string]any{"name": "ada"}}).want(t, 400, "a URL-mode question takes none")
		e.do("POST", base+in.RequestID, map[string]any{"action": "accept"}).want(t, 200)
		if got := toolResult(t, s, in.RequestID, "accept"); got != "action=accept content=null" {
			t.Errorf("the server got %q", got)
		}
	})

	// A URL that is no web address is never shown: declined, and the model told.
	t.Run("not a web address", func(t *testing.T) {
		r := e.do("POST", "/v1/sessions/"+id+"/messages", map[string]string{"content": `call ask {"url": "javascript:alert(1)"}`})
		r.want(t, 200, `action=decline content=null`, `cannot show (the URL to open is not an http(s) address)`)
	})
}

// TestInputTimeout: nobody answering within InputTimeout cancels the question, and
// the model is told; a turn that is not streamed waits for its questions too.
func TestInputTimeout(t *testing.T) {
	t.Parallel()
	e := start(t, setup{servers: []config.Server{askServer(t)}, model: true, ask: true, conv: conversation.Options{InputTimeout: 100 * time.Millisecond}})
	id := newSession(t, e, nil)
	r := e.do("POST", "/v1/sessions/"+id+"/messages", map[string]string{"content": `call ask {}`})
	r.want(t, 200, `ask: action=cancel content=null`, `nobody answered server ts's question within 100ms; it was cancelled`)
}

// TestChatCompletionDeclinesInputs: /v1/chat/completions has nobody to ask: a
// server's question is declined, and the model reads why with the call's result.
func TestChatCompletionDeclinesInputs(t *testing.T) {
	t.Parallel()
	e := start(t, setup{servers: []config.Server{askServer(t)}, model: true, ask: true})
	r := e.do("POST", "/v1/chat/completions", map[string]any{"model": "m", "messages": []any{map[string]string{"role": "user", "content": `call ask {"message": "Your name?"}`}}})
	r.want(t, 200)
	reqs := e.fake.Requests()
	last := reqs[len(reqs)-1].Messages
	got := last[len(last)-1]
	if got.Role != "tool" || !strings.Contains(got.Text, "action=decline content=null") ||
		!strings.Contains(got.Text, `server ts asked the user "Your name?" during this call, which /v1/chat/completions cannot ask`) ||
		!strings.Contains(got.Text, "POST /v1/sessions") {
		t.Errorf("the model got %+v, want the decline and why", got)
	}
}
