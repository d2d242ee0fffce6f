//go:build unix

package api_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// logSecret is the chatty server's configured secret, which it writes to stderr.
const logSecret = "sk-chatty-0123456789abcdef"

// chattyServer is a test server with a secret in its environment.
func chattyServer(t *testing.T) config.Server {
	s := testserver.Stdio(t, "chatty")
	s.Env = map[string]string{"CHATTY_KEY": logSecret}
	return s
}

// logAnswer is GET /v1/servers/{name}/log's answer.
type logAnswer struct {
	Server  string              `json:"server"`
	Entries []upstream.LogEntry `json:"entries"`
	Last    uint64              `json:"last"`
	Missed  uint64              `json:"missed"`
}

func (e *env) log(path string) logAnswer {
	e.t.Helper()
	r := e.do("GET", path, nil)
	r.want(e.t, http.StatusOK)
	var a logAnswer
	r.decode(e.t, &a)
	return a
}

// say has the chatty server write text to its stderr, through the API.
func (e *env) say(text string) {
	e.t.Helper()
	e.do("POST", "/v1/tools/stderr/call", map[string]any{"arguments": map[string]any{"text": text}}).want(e.t, http.StatusOK, `"isError": false`)
}

// hasEntry reports whether es has an entry of kind whose text has sub.
func hasEntry(es []upstream.LogEntry, kind upstream.LogKind, sub string) bool {
	for _, e := range es {
		if e.Kind == kind && strings.Contains(e.Text, sub) {
			return true
		}
	}
	return false
}

// openGet opens a GET event stream.
func (e *env) openGet(path string) *stream {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.url+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	res, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		e.t.Fatalf("GET %s: %d %s: %s", path, res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	e.t.Cleanup(func() { res.Body.Close() })
	return &stream{res: res, rd: bufio.NewReader(res.Body)}
}

// untilLog reads log events until one of kind whose text has sub, failing at the
// end of the stream; it returns the entries read.
func (s *stream) untilLog(t *testing.T, kind upstream.LogKind, sub string) []upstream.LogEntry {
	t.Helper()
	var es []upstream.LogEntry
	for {
		ev, ok := s.next()
		if !ok {
			t.Fatalf("the stream ended before a %s entry with %q; got %+v", kind, sub, es)
		}
		if ev.name != "log" {
			continue
		}
		var e upstream.LogEntry
		if err := json.Unmarshal([]byte(ev.data), &e); err != nil {
			t.Fatalf("log event %s: %v", ev.data, err)
		}
		es = append(es, e)
		if e.Kind == kind && strings.Contains(e.Text, sub) {
			return es
		}
	}
}

// A server's log over the API: its stderr lines masked, its state changes across a
// restart, since and limit; with follow, the backlog and then the lines written
// after it started.
func TestServerLog(t *testing.T) {
	t.Parallel()
	e := start(t, setup{servers: []config.Server{chattyServer(t)}, opts: api.Options{Token: "log-token"}})
	e.say("hello from chatty, key " + logSecret)
	var a logAnswer
	testenv.WaitFor(t, "the line in the log", 5*time.Second, func() bool {
		a = e.log("/v1/servers/chatty/log")
		return hasEntry(a.Entries, upstream.LogStderr, "hello from chatty")
	})
	if a.Server != "chatty" || a.Last != a.Entries[len(a.Entries)-1].Seq || a.Missed != 0 {
		t.Errorf("answer %+v", a)
	}
	if !hasEntry(a.Entries, upstream.LogState, "") {
		t.Errorf("no state change in %+v", a.Entries)
	}
	raw := e.do("GET", "/v1/servers/chatty/log", nil)
	if strings.Contains(raw.body, logSecret) || !strings.Contains(raw.body, "key ") {
		t.Errorf("the secret is in the answer, or the line is not: %s", raw.body)
	}

	t.Run("restart", func(t *testing.T) {
		before := e.log("/v1/servers/chatty/log").Last
		e.do("POST", "/v1/servers/chatty/restart", nil).want(t, http.StatusAccepted)
		testenv.WaitFor(t, "the restart in the log", 10*time.Second, func() bool {
			a = e.log("/v1/servers/chatty/log?since=" + strconv.FormatUint(before, 10))
			var got []string
			for _, x := range a.Entries {
				if x.Kind == upstream.LogState {
					got = append(got, string(x.State))
				}
			}
			return strings.Join(got, " ") == "closed connecting ready"
		})
		for _, x := range a.Entries {
			if x.Seq <= before {
				t.Errorf("since=%d answered entry %d", before, x.Seq)
			}
		}
		if !hasEntry(e.log("/v1/servers/chatty/log").Entries, upstream.LogStderr, "hello from chatty") {
			t.Error("the line before the restart is gone from the log")
		}
	})

	t.Run("limit", func(t *testing.T) {
		all := e.log("/v1/servers/chatty/log")
		two := e.log("/v1/servers/chatty/log?limit=2")
		if len(two.Entries) != 2 || two.Entries[1].Seq != all.Last || two.Missed != uint64(len(all.Entries)-2) {
			t.Errorf("limit=2: %+v, of %d entries up to %d", two, len(all.Entries), all.Last)
		}
		none := e.log("/v1/servers/chatty/log?since=" + strconv.FormatUint(all.Last, 10))
		if len(none.Entries) != 0 || none.Last != all.Last || !strings.Contains(e.do("GET", "/v1/servers/chatty/log?since="+strconv.FormatUint(all.Last, 10), nil).body, `"entries": []`) {
			t.Errorf("since=last: %+v", none)
		}
	})

	t.Run("follow", func(t *testing.T) {
		s := e.openGet("/v1/servers/chatty/log?follow=1&limit=3")
		first, ok := s.next()
		if !ok || first.name != "missed" {
			t.Errorf("a backlog cut by limit starts with %+v, want a missed event", first)
		}
		s.untilLog(t, upstream.LogState, "") // the backlog's newest is the restart's ready
		e.say("written after the stream began <b>" + logSecret + "</b>")
		got := s.untilLog(t, upstream.LogStderr, "written after")
		if last := got[len(got)-1]; strings.Contains(last.Text, logSecret) || !strings.Contains(last.Text, "<b>") {
			t.Errorf("followed line %q", last.Text)
		}
	})

	t.Run("errors", func(t *testing.T) {
		r := e.do("GET", "/v1/servers/nope/log", nil)
		r.want(t, http.StatusNotFound, `unknown server \"nope\"`)
		if _, _, sugg := r.errorOf(t); strings.Join(sugg, ",") != "chatty" {
			t.Errorf("404 suggests %v, want chatty", sugg)
		}
		for q, field := range map[string]string{"since=-1": "since=-1", "since=abc": "since=abc", "limit=0": "limit=0",
			"limit=x": "limit=x", "follow=maybe": "follow=maybe"} {
			r := e.do("GET", "/v1/servers/chatty/log?"+q, nil)
			r.want(t, http.StatusBadRequest, field)
			if code, _, _ := r.errorOf(t); code != "bad_request" {
				t.Errorf("%s: code %q", q, code)
			}
		}
		e.do("POST", "/v1/servers/chatty/log", nil).want(t, http.StatusMethodNotAllowed)
		e.do("GET", "/v1/servers/chatty/log", nil, "Authorization: Bearer wrong").want(t, http.StatusUnauthorized)
	})
}

// With identities on, a server's log is for admins.
func TestServerLogAdmins(t *testing.T) {
	t.Parallel()
	e := start(t, setup{servers: []config.Server{chattyServer(t)}, opts: api.Options{Identify: testPeople}})
	e.token = "alice-token"
	e.do("GET", "/v1/servers/chatty/log", nil).want(t, http.StatusForbidden, "forbidden", "admins")
	e.do("GET", "/v1/servers/chatty/log?follow=1", nil).want(t, http.StatusForbidden)
	e.token = "carol-token"
	if a := e.log("/v1/servers/chatty/log"); !hasEntry(a.Entries, upstream.LogState, "") {
		t.Errorf("an admin's answer %+v", a)
	}
	e.token = ""
	e.do("GET", "/v1/servers/chatty/log", nil).want(t, http.StatusUnauthorized)
}

// A follow stream ends when the server leaves the service (with an end event) and
// at Shutdown.
func TestServerLogFollowEnds(t *testing.T) {
	t.Parallel()
	e := start(t, setup{servers: []config.Server{chattyServer(t), clockServer(t)}})
	api.SetEventsHeartbeat(e.srv, 20*time.Millisecond)
	s := e.openGet("/v1/servers/chatty/log?follow=1")
	s.untilLog(t, upstream.LogState, "")
	if err := e.hub.Remove("chatty"); err != nil {
		t.Fatal(err)
	}
	s.untilLog(t, upstream.LogState, "closed")
	s.until(t, "end")
	if ev, ok := s.next(); ok {
		t.Errorf("the stream goes on after its end: %+v", ev)
	}

	c := e.openGet("/v1/servers/clock/log?follow=1")
	c.untilLog(t, upstream.LogState, "")
	if err := e.shutdown(5 * time.Second); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	for {
		if _, ok := c.next(); !ok {
			break
		}
	}
}
