package main

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/tool"
)

// demoToolsOf lists the demo tools of servers, sorted.
func demoToolsOf(servers ...string) []string {
	var out []string
	for name, server := range demoTools {
		if slices.Contains(servers, server) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// waitTools waits until cs lists exactly want, and for a tools/list_changed on changed.
func waitTools(ctx context.Context, t *testing.T, cs *mcp.ClientSession, changed <-chan struct{}, want []string) {
	t.Helper()
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatalf("no tools/list_changed within 20s (want %v)", want)
	}
	var got []string
	testenv.WaitFor(t, "the catalog to become "+strings.Join(want, ","), 20*time.Second, func() bool {
		names, _ := listedTools(ctx, t, cs)
		got = slices.Sorted(maps.Keys(names))
		return slices.Equal(got, want)
	})
}

// listChanged returns client options that report each tools/list_changed on the
// returned channel.
func listChanged() (*mcp.ClientOptions, <-chan struct{}) {
	changed := make(chan struct{}, 16)
	return &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}, changed
}

// `switchboard mcp --listen` follows its config file: a server added to the file
// starts and its tools reach the connected client, a file that does not load changes
// nothing (and its problems are logged), and a server removed from the file stops,
// its process included.
func TestMCPFollowsConfigFile(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	clock, notes := demoEntry(t, "clock"), demoEntry(t, "notes")
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {"clock": `+clock+`}}`)
	g := startHTTPGateway(t, s, "--config", cfg, "--watch", "100ms")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts, changed := listChanged()
	cs, err := g.connect(ctx, t, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if names, _ := listedTools(ctx, t, cs); !slices.Equal(slices.Sorted(maps.Keys(names)), demoToolsOf("clock")) {
		t.Fatalf("tools before any change: %v", names)
	}

	s.writeConfig("mcp.json", `{"mcpServers": {"clock": `+clock+`, "notes": `+notes+`}}`)
	waitTools(ctx, t, cs, changed, demoToolsOf("clock", "notes"))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "put_note", Arguments: map[string]any{"title": "t", "text": "added by a reload"}})
	if err != nil || res.IsError {
		t.Fatalf("put_note on the added server: %v %s", err, tool.Text(res))
	}

	s.writeConfig("mcp.json", `{"mcpServers": {"clock": `+clock+`,`+"\n"+`"notes": {"command": 3}}}`)
	testenv.WaitFor(t, "the log to say the broken config was not loaded", 20*time.Second, func() bool {
		return strings.Contains(g.stderr.String(), "config not reloaded")
	})
	if log := g.stderr.String(); !strings.Contains(log, "mcp.json:2:") {
		t.Errorf("the log does not name the broken config's place (mcp.json:2:...):\n%s", log)
	}
	if names, _ := listedTools(ctx, t, cs); len(names) != len(demoTools) {
		t.Errorf("a config that does not load changed the catalog: %v", names)
	}

	s.writeConfig("mcp.json", `{"mcpServers": {"notes": `+notes+`}}`)
	waitTools(ctx, t, cs, changed, demoToolsOf("notes"))
	testenv.WaitFor(t, "the removed clock server's process to exit", 10*time.Second, func() bool {
		return !slices.ContainsFunc(marked(g.marker), func(p string) bool { return strings.HasSuffix(p, "demo-server clock") })
	})
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_note", Arguments: map[string]any{"title": "t"}})
	if err != nil || res.IsError || !strings.Contains(tool.Text(res), "added by a reload") {
		t.Errorf("get_note on the server that ran on: %v %s", err, tool.Text(res))
	}
	cs.Close()
	if code := g.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want %d\n%s", code, exitOK, g.stderr.String())
	}
}

// Over stdio with --watch 0 the config is reloaded on SIGHUP only, and a SIGHUP that
// comes before the servers have started (they wait for the client's first request)
// neither ends the process nor is lost: it applies once they are up.
func TestMCPStdioReloadsOnSIGHUP(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	clock, notes := demoEntry(t, "clock"), demoEntry(t, "notes")
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {"clock": `+clock+`}}`)
	g, stdin, stdout := startStdioGateway(t, s, "--log-level", "debug", "--log-format", "json", "mcp", "--config", cfg, "--watch", "0")
	testenv.WaitFor(t, `the "config loaded" log line`, 30*time.Second, func() bool {
		for line := range strings.Lines(g.stderr.String()) {
			var rec struct{ Msg string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "config loaded" {
				return true
			}
		}
		return false
	})

	s.writeConfig("mcp.json", `{"mcpServers": {"clock": `+clock+`, "notes": `+notes+`}}`)
	if err := g.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts, changed := listChanged()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, opts).
		Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("connect after SIGHUP: %v\n%s", err, g.stderr.String())
	}
	defer cs.Close()
	waitTools(ctx, t, cs, changed, demoToolsOf("clock", "notes"))

	// Once running, the file is checked on SIGHUP only: --watch 0 was not taken
	// for the default (1s), which would apply a change by itself.
	var checks []string
	for line := range strings.Lines(g.stderr.String()) {
		var rec struct{ Msg, Checks string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "following the config file" {
			checks = append(checks, rec.Checks)
		}
	}
	if !slices.Equal(checks, []string{"on SIGHUP only"}) {
		t.Fatalf("following the config file: checks %q, want [on SIGHUP only]\n%s", checks, g.stderr.String())
	}
	s.writeConfig("mcp.json", `{"mcpServers": {"notes": `+notes+`}}`)
	if err := g.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitTools(ctx, t, cs, changed, demoToolsOf("notes"))
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if code := g.waitExit(t, "its client leaving"); code != exitOK {
		t.Errorf("%v, want exit %d\n%s", g.cmd.ProcessState, exitOK, g.stderr.String())
	}
}
