//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// eventLog follows a service's /v1/events and keeps each server event's state, in
// order.
type eventLog struct {
	mu     sync.Mutex
	states []string // "server state", one per server event
}

// has reports whether server's events went through states, in that order (others
// between them).
func (l *eventLog) has(server string, states ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.states {
		if len(states) > 0 && s == server+" "+states[0] {
			states = states[1:]
		}
	}
	return len(states) == 0
}

// followEvents reads p's /v1/events until the test ends.
func followEvents(t *testing.T, p *serveProc) *eventLog {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", p.url+"/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/events: %v %v", res, err)
	}
	l := &eventLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			if e, ok := strings.CutPrefix(line, "event: "); ok {
				event = e
				continue
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok || event != "server" {
				continue
			}
			var s struct{ Name, State string }
			if json.Unmarshal([]byte(data), &s) == nil {
				l.mu.Lock()
				l.states = append(l.states, s.Name+" "+s.State)
				l.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return l
}

// TestServeKilledRemoteServer: a Streamable HTTP server without sessions, killed
// under a running service, leaves "ready" within its two heartbeats (issue 34): a
// server event says so, and `status` against the service exits 1 naming why; started
// again at its address, it is ready again and `status` exits 0. It used to stay ready,
// and status exit 0, for as long as it was down.
func TestServeKilledRemoteServer(t *testing.T) {
	t.Parallel()
	const token = "tok-live-Kk4Ll5"
	srv := testserver.StartHTTPServer(t, "--stateless")
	s := newSandbox(t)
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"remote": {"url": `+jsonString(srv.URL+"/mcp")+`, "heartbeat": "200ms"}},
  "switchboard": {"retryFailed": "500ms"}
}`)
	p := startServe(t, s, cfg, token, "--store", "memory")
	p.waitHealthy(t)
	defer func() {
		if code := p.stop(t); code != exitOK {
			t.Errorf("serve: exit %d after SIGTERM\n%s", code, p.stderr.String())
		}
	}()
	events := followEvents(t, p)
	remote := s.without()
	remote.env[serverEnv] = p.url
	remote.env[tokenEnv] = token

	srv.Kill()
	testenv.WaitFor(t, "a server event that remote is reconnecting", 30*time.Second, func() bool {
		return events.has("remote", "reconnecting")
	})
	r := remote.run("status", "--json")
	r.wantCode(t, exitFailed)
	var st struct{ Servers []serverStatusJSON }
	decodeJSON(t, r.stdout, &st)
	if len(st.Servers) != 1 || st.Servers[0].State == "ready" || st.Servers[0].Error == "" {
		t.Errorf("status while the server is down: %+v", st.Servers)
	}

	testserver.StartHTTPServer(t, "--stateless", "--http", srv.Addr)
	testenv.WaitFor(t, "a server event that remote is ready again", 30*time.Second, func() bool {
		return events.has("remote", "reconnecting", "ready")
	})
	remote.run("status").wantCode(t, exitOK)
}

// TestCallSharedNameOfTheFirst: `switchboard call` resolves a name as `switchboard
// tools` shows it (issue 34): the slow first server's "pid" and "echo" are its own, the
// fast later one's are "grand__pid" and "grand__echo", whichever is ready first. The
// call used to run the fast server's, the only one listed when it went. And it stops
// quietly: a server listed after them, still listing its resources and prompts when
// the call is done, is closed without a warning about the lists its closing cancelled
// (it logged "resources/list failed … context canceled" and the like as it exited).
func TestCallSharedNameOfTheFirst(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	pidfile := filepath.Join(t.TempDir(), "first.pid")
	bin := testserver.Build(t)
	entry := func(args ...string) string {
		b, _ := json.Marshal(map[string]any{"command": bin, "args": args, "timeout": 60})
		return string(b)
	}
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {
  "first": `+entry("--init-delay", "2s", "--pidfile", pidfile)+`,
  "grand": `+entry()+`,
  "lister": `+entry("--extras", "--slow-lists", "1m")+`
}}`)
	r := s.run("--config", cfg, "call", "pid")
	r.wantCode(t, exitOK)
	if want := strconv.Itoa(testserver.ReadPID(t, pidfile)); strings.TrimSpace(r.stdout) != want {
		t.Errorf("call pid answered %q, want the first server's pid %s\n%s", strings.TrimSpace(r.stdout), want, r)
	}
	if r.stderr != "" {
		t.Errorf("call printed more than its answer on stderr\n%s", r)
	}
}
