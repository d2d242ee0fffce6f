package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/tool"
)

// deferredDemoList is what `switchboard mcp --deferred` lists for the demo catalog
// before any search (nothing is pinned).
var deferredDemoList = []string{"tool_search", "tool_search_regex", "tool_call"}

// wantConvertTime is convert_time's answer to time=2026-01-15T12:00:00Z, to=Asia/Tokyo.
const wantConvertTime = "2026-01-15T21:00:00+09:00 (Asia/Tokyo, Thursday)"

// deferredSession connects the official SDK client to `switchboard ARGS...` over
// stdio; version "" is the SDK's default protocol. It records tools/list_changed and
// the acknowledgement of the client's listen (2026-07-28).
func deferredSession(t *testing.T, s *sandbox, version string, args ...string) (cs *mcp.ClientSession, changed, acked chan struct{}, marker string) {
	t.Helper()
	changed, acked = make(chan struct{}, 16), make(chan struct{}, 16)
	cmd, marker := s.command(context.Background(), args...)
	client := mcp.NewClient(&mcp.Implementation{Name: "cli-deferred-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { notice(changed) },
	})
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				notice(acked)
			}
			return next(ctx, method, req)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
	if err != nil {
		t.Fatalf("connect to switchboard %s: %v", strings.Join(args, " "), err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, changed, acked, marker
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res, tool.Text(res)
}

// TestMCPDeferredStdio runs `switchboard mcp --deferred` over stdio with the official
// SDK client, in both protocol eras: the search tools only; a search finds convert_time
// and loads it (the client is told, and a re-list shows it); calling it through
// tool_call and by its name works without that re-list; nothing is left running.
func TestMCPDeferredStdio(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "2025-11-25"} {
		name := version
		if name == "" {
			name = "default protocol"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			cs, changed, acked, marker := deferredSession(t, s, version, "mcp", "--deferred")
			if version == "" {
				// The client's listen is sent without waiting: loads before its
				// acknowledgement would have nowhere to be told.
				select {
				case <-acked:
				case <-time.After(30 * time.Second):
					t.Fatal("no acknowledgement of the client's subscriptions/listen")
				}
			}
			if got := toolNames(t, cs); !slices.Equal(got, deferredDemoList) {
				t.Fatalf("tools/list = %v, want the search tools %v", got, deferredDemoList)
			}
			res, text := callTool(t, cs, "tool_search", map[string]any{"query": "convert a time to another time zone", "limit": 1})
			if res.IsError || !strings.Contains(text, "convert_time") || !strings.Contains(text, "tool_call") {
				t.Fatalf("tool_search: want convert_time and how to call it through tool_call, got (error %v):\n%s", res.IsError, text)
			}
			if _, text := callTool(t, cs, "tool_call", map[string]any{"name": "convert_time", "arguments": map[string]any{"time": "2026-01-15T12:00:00Z", "to": "Asia/Tokyo"}}); text != wantConvertTime {
				t.Errorf("tool_call convert_time = %q, want %q", text, wantConvertTime)
			}
			if _, text := callTool(t, cs, "convert_time", map[string]any{"time": "2026-01-15T12:00:00Z", "to": "Asia/Tokyo"}); text != wantConvertTime {
				t.Errorf("convert_time = %q, want %q", text, wantConvertTime)
			}
			select {
			case <-changed:
			case <-time.After(30 * time.Second):
				t.Fatal("no notifications/tools/list_changed after the search loaded convert_time")
			}
			if got := toolNames(t, cs); !slices.Equal(got, append(slices.Clone(deferredDemoList), "convert_time")) {
				t.Errorf("after the search, tools/list = %v, want the search tools and convert_time", got)
			}
			if err := cs.Close(); err != nil {
				t.Logf("close: %v", err)
			}
			waitGone(t, marker)
		})
	}
}

// TestMCPDeferredConfig: without --deferred, the gateway defers only when the config
// gives "deferred" (any value but never); --deferred=never overrides the config; the
// config's pinned tools stay listed; a bad mode is a usage error naming the flag and
// the modes.
func TestMCPDeferredConfig(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	servers := `"mcpServers": {"clock": ` + demoEntry(t, "clock") + `, "notes": ` + demoEntry(t, "notes", `"pinned": ["list_*"]`) + `}`
	plain := s.writeConfig("plain.json", `{`+servers+`}`)
	auto := s.writeConfig("auto.json", `{`+servers+`, "switchboard": {"deferred": "auto"}}`)
	always := s.writeConfig("always.json", `{`+servers+`, "switchboard": {"deferred": {"mode": "always", "pinned": ["current_*"]}}}`)
	// Twice the demo servers: 16 tools, past auto's threshold of 15.
	big := `"mcpServers": {"clock": ` + demoEntry(t, "clock") + `, "notes": ` + demoEntry(t, "notes") +
		`, "clock2": ` + demoEntry(t, "clock") + `, "notes2": ` + demoEntry(t, "notes") + `}`
	bigPlain := s.writeConfig("big-plain.json", `{`+big+`}`)
	bigAuto := s.writeConfig("big-auto.json", `{`+big+`, "switchboard": {"deferred": "auto"}}`)
	for _, c := range []struct {
		name  string
		args  []string
		want  []string // nil: the whole catalog, of whole tools
		whole int
	}{
		{"no setting", []string{"--config", plain}, nil, len(demoTools)},
		{"no setting, large catalog", []string{"--config", bigPlain}, nil, 2 * len(demoTools)},
		{"auto below the threshold", []string{"--config", auto}, nil, len(demoTools)},
		{"auto, large catalog", []string{"--config", bigAuto}, deferredDemoList, 0},
		{"always, pinned", []string{"--config", always}, append(slices.Clone(deferredDemoList), "current_time", "list_notes"), 0},
		{"flag over a config without", []string{"--config", plain, "--deferred=always"}, append(slices.Clone(deferredDemoList), "list_notes"), 0},
		{"never over the config", []string{"--config", always, "--deferred=never"}, nil, len(demoTools)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := s.forTest(t)
			cs, _, _, marker := deferredSession(t, s, "2025-11-25", append([]string{"mcp"}, c.args...)...)
			got := toolNames(t, cs)
			if c.want == nil {
				if len(got) != c.whole || slices.Contains(got, "tool_search") {
					t.Errorf("tools/list = %v, want the whole catalog of %d tools", got, c.whole)
				}
			} else if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(c.want))) {
				t.Errorf("tools/list = %v, want %v", got, c.want)
			}
			cs.Close()
			waitGone(t, marker)
		})
	}

	r := runInProcess(t, "mcp", "--deferred=sometimes")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, `"--deferred"`, `"auto", "auto:N%", "always" or "never"`)

	r = s.run("mcp", "--config", plain, "--deferred=auto:10%", "--print-config", "codex")
	r.wantCode(t, exitOK)
	r.wantStdout(t, `"--deferred=auto:10%"`)
}

// TestMCPDeferredInspector drives `switchboard mcp --deferred` with the MCP Inspector's
// CLI, which starts the gateway afresh for each of its calls and never lists tools
// again: a client that ignores tools/list_changed. The search's result is all it has
// to go on for the call that follows.
func TestMCPDeferredInspector(t *testing.T) {
	t.Parallel()
	node22 := testenv.Node22(t)
	inspector := testenv.Node22Bin(t, "mcp-inspector")
	s := newSandbox(t)
	inspect := func(args ...string) json.RawMessage {
		t.Helper()
		cmd, marker := s.command(context.Background())
		// The inspector passes a stdio server only a few variables of its own
		// environment: the CLI's go explicitly; "--" ends the options.
		argv := append([]string{"--cli", "--format", "json"}, args...)
		for _, kv := range cmd.Env {
			argv = append(argv, "-e", kv)
		}
		argv = append(argv, "--cwd", s.Work, "--", cmd.Path, "mcp", "--deferred")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		run := exec.CommandContext(ctx, inspector, argv...)
		run.Dir, run.Env = node22, testenv.Node22Env(node22, s.Env())
		run.WaitDelay = 5 * time.Second
		out, err := run.Output()
		if err != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("inspector %s: %v\n--- stdout:\n%s\n--- stderr:\n%s", strings.Join(args, " "), err, out, stderr)
		}
		waitGone(t, marker)
		var res struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(out, &res); err != nil || res.Result == nil {
			t.Fatalf("inspector output is not {\"result\": ...} (%v):\n%s", err, out)
		}
		return res.Result
	}

	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if raw := inspect("--method", "tools/list"); json.Unmarshal(raw, &list) != nil {
		t.Fatalf("tools/list result: %s", raw)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, deferredDemoList) {
		t.Fatalf("tools/list = %v, want the search tools %v", names, deferredDemoList)
	}

	var found struct {
		StructuredContent struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"structuredContent"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	raw := inspect("--method", "tools/call", "--tool-name", "tool_search", "--tool-arg", "query=convert a time to another time zone", "limit=1")
	if err := json.Unmarshal(raw, &found); err != nil || len(found.StructuredContent.Tools) != 1 || len(found.Content) != 1 {
		t.Fatalf("tool_search result: %s (%v)", raw, err)
	}
	name := found.StructuredContent.Tools[0].Name
	if name != "convert_time" || !strings.Contains(found.Content[0].Text, "tool_call") {
		t.Fatalf("tool_search found %q, want convert_time and how to call it through tool_call:\n%s", name, found.Content[0].Text)
	}

	// A fresh gateway, a fresh session: tool_call with the name the search gave.
	raw = inspect("--method", "tools/call", "--tool-name", "tool_call",
		"--tool-arg", "name="+name, `arguments={"time": "2026-01-15T12:00:00Z", "to": "Asia/Tokyo"}`)
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != wantConvertTime {
		t.Errorf("tool_call %s: got %s (%v), want the text %q", name, raw, err, wantConvertTime)
	}
}

// notice records a notification on ch without ever blocking the client's handler:
// a full channel already says something arrived, and a handler that blocked would
// hold the client's Close forever (TestMCPDeferredConfig hung 10 minutes on a loaded
// CI machine where servers joining sent more list changes than the buffer held).
func notice(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
