//go:build unix

package upstream_test

import (
	"context"
	"net"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// find is the first entry of kind whose text has sub, and whether there is one.
func find(l *upstream.Log, kind upstream.LogKind, sub string) (upstream.LogEntry, bool) {
	es, _ := l.Entries(0, 0)
	for _, e := range es {
		if e.Kind == kind && strings.Contains(e.Text, sub) {
			return e, true
		}
	}
	return upstream.LogEntry{}, false
}

// states are the states the log's state entries entered, in order.
func states(l *upstream.Log) []upstream.State {
	es, _ := l.Entries(0, 0)
	var out []upstream.State
	for _, e := range es {
		if e.Kind == upstream.LogState {
			out = append(out, e.State)
		}
	}
	return out
}

// A stdio server's log has its stderr lines (masked), its MCP log messages and its
// state changes, and goes on across a reconnect; Status keeps its stderr tail.
func TestLogOfStdioServer(t *testing.T) {
	t.Parallel()
	cfg := testserver.Stdio(t, "chatty")
	cfg.Env = map[string]string{"CHATTY_KEY": "sk-chatty-0123456789"}
	s := start(t, cfg, testserver.Fast())
	l := s.Log()
	mustText(t, s, "stderr", map[string]any{"text": "warming up with sk-chatty-0123456789"})
	testenv.WaitFor(t, "the stderr line in the log", 5*time.Second, func() bool {
		_, ok := find(l, upstream.LogStderr, "warming up")
		return ok
	})
	e, _ := find(l, upstream.LogStderr, "warming up")
	if strings.Contains(e.Text, "sk-chatty") {
		t.Errorf("the secret is in the log: %q", e.Text)
	}
	if tail := strings.Join(s.Status().Stderr, "\n"); !strings.Contains(tail, "warming up") || strings.Contains(tail, "sk-chatty") {
		t.Errorf("Status's stderr tail %q, want the masked line", tail)
	}
	if got := states(l); !slices.Equal(got, []upstream.State{upstream.Connecting, upstream.Ready}) {
		t.Errorf("states %v, want connecting, ready", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := s.SetLogLevel(ctx, "info"); err != nil {
		t.Fatal(err)
	}
	mustText(t, s, "log", map[string]any{"bytes": 5})
	testenv.WaitFor(t, "the MCP log message in the log", 5*time.Second, func() bool {
		_, ok := find(l, upstream.LogMCP, "testserver: lllll")
		return ok
	})
	if e, _ := find(l, upstream.LogMCP, "testserver: lllll"); e.Level != "info" {
		t.Errorf("MCP log message: %+v, want level info", e)
	}

	pid := pidOf(t, s)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "a reconnect", 10*time.Second, func() bool {
		st := s.Status()
		return st.Restarts == 1 && st.State == upstream.Ready
	})
	want := []upstream.State{upstream.Connecting, upstream.Ready, upstream.Reconnecting, upstream.Ready}
	if got := states(l); !slices.Equal(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
	if e, ok := find(l, upstream.LogState, "killed"); !ok || e.State != upstream.Reconnecting || e.From != upstream.Ready {
		t.Errorf("the reconnect's entry %+v (found %v), want ready → reconnecting saying the process was killed", e, ok)
	}
	if _, ok := find(l, upstream.LogStderr, "warming up"); !ok {
		t.Error("the line before the reconnect is gone from the log")
	}
}

// An HTTP server has no stderr: its log has the failed connection attempts and the
// state changes.
func TestLogOfHTTPServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close() // nothing listens: every attempt is refused
	s := start(t, config.Server{Name: "gone", Transport: config.HTTP, URL: url, InitTimeout: 3 * time.Second}, testserver.Fast())
	l := s.Log()
	if _, ok := find(l, upstream.LogNotice, "connection attempt 1"); !ok {
		es, _ := l.Entries(0, 0)
		t.Errorf("no failed attempt in the log: %+v", es)
	}
	if got := states(l); !slices.Equal(got, []upstream.State{upstream.Connecting, upstream.Failed}) {
		t.Errorf("states %v, want connecting, failed", got)
	}
	if _, ok := find(l, upstream.LogStderr, ""); ok {
		t.Error("an HTTP server's log has stderr entries")
	}
}

// A supervisor given a Log writes to it, so that the log of a server goes on when
// another supervisor takes its place (a hub's restart).
func TestLogOption(t *testing.T) {
	t.Parallel()
	l := upstream.NewLog(0)
	o := testserver.Fast()
	o.Log = l
	first := upstream.New(testserver.Stdio(t, "twice"), o)
	first.Start()
	<-first.Settled()
	first.Close()
	second := start(t, testserver.Stdio(t, "twice"), o)
	if second.Log() != l {
		t.Fatal("the supervisor does not write to the Log of its options")
	}
	want := []upstream.State{upstream.Connecting, upstream.Ready, upstream.Closed, upstream.Connecting, upstream.Ready}
	if got := states(l); !slices.Equal(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
}
