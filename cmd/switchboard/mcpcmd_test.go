package main

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/tool"
)

// `switchboard mcp` over stdio, driven by the official SDK client: the demo catalog,
// a call, and nothing left running once the client disconnects.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	marker := "mcp-stdio-" + t.Name()
	cmd := exec.Command(testExe(t), "mcp")
	cmd.Dir = s.work
	cmd.Env = s.environ(marker)
	client := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to switchboard mcp: %v", err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(demoTools) {
		t.Errorf("gateway lists %d tools, want %d", len(res.Tools), len(demoTools))
	}
	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "current_time", Arguments: map[string]any{"zone": "Asia/Tokyo"}})
	if err != nil || out.IsError || !strings.Contains(tool.Text(out), "Asia/Tokyo") {
		t.Fatalf("current_time through the gateway: %v %+v", err, out)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	waitGone(t, marker)
}

func waitGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(marked(marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes left after the gateway's client disconnected: %v", marked(marker))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestMCPPrintConfig(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {}}`)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--print-config", "claude"}, []string{`"mcpServers"`, `"switchboard"`, `"command"`, `"--config"`, jsonString(cfg)}},
		{[]string{"--print-config", "vscode"}, []string{`"servers"`, `"type": "stdio"`}},
		{[]string{"--print-config", "codex"}, []string{"[mcp_servers.switchboard]", `args = ["mcp", "--config", ` + jsonString(cfg) + `]`}},
		{[]string{"--print-config", "claude", "--listen", "127.0.0.1:8931", "--token", "tok-123456"}, []string{`"type": "http"`, `"url": "http://127.0.0.1:8931/mcp"`, "Bearer ${SWITCHBOARD_TOKEN}"}},
		{[]string{"--print-config", "vscode", "--listen", "127.0.0.1:8931", "--token", "tok-123456"}, []string{`"servers"`, `"type": "http"`, `"url": "http://127.0.0.1:8931/mcp"`, "Bearer ${env:SWITCHBOARD_TOKEN}"}},
		{[]string{"--print-config", "codex", "--listen", "127.0.0.1:8931", "--token", "tok-123456"}, []string{`url = "http://127.0.0.1:8931/mcp"`, `bearer_token_env_var = "SWITCHBOARD_TOKEN"`}},
	}
	for _, tt := range tests {
		r := s.run(append([]string{"mcp", "--config", cfg}, tt.args...)...)
		r.wantCode(t, exitOK)
		r.wantStdout(t, tt.want...)
		if strings.Contains(r.stdout+r.stderr, "tok-123456") {
			t.Errorf("%v printed the token:\n%s", tt.args, r)
		}
		if strings.HasPrefix(strings.TrimSpace(r.stdout), "{") {
			var v any
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Errorf("%v: output is not JSON: %v", tt.args, err)
			}
		}
	}
	s.run("mcp", "--print-config", "cursor").wantCode(t, exitUsage)
	r := s.run("mcp", "--listen", "0.0.0.0:0")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "not a loopback address")
	r = s.run("mcp", "--listen", "127.0.0.1:0", "--session-timeout", "-1m")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "--session-timeout -1m0s: must be 0 (never) or more")
}

// Over stdio the servers start with the client's own capabilities: server-everything
// offers its sampling, elicitation and roots tools only to a client that has them,
// and through the gateway its roots and sampling requests reach the client — of the
// 2025-11-25 protocol as requests, of 2026-07-28 (the Go SDK's default) as the input
// requests of a multi-round-trip call.
func TestMCPStdioPassesClientCapabilities(t *testing.T) {
	t.Parallel()
	ev := testenv.NPMBin(t, testenv.ServerEverything)
	capabilityTools := []string{"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"}
	for _, tc := range []struct {
		capable bool
		version string
	}{{false, "2025-11-25"}, {true, "2025-11-25"}, {false, "2026-07-28"}, {true, "2026-07-28"}} {
		capable := tc.capable
		t.Run(fmt.Sprintf("capable=%v,%s", capable, tc.version), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			cfg := s.writeConfig("mcp.json", fmt.Sprintf(`{"mcpServers": {"ev": {"command": %q}}}`, ev))
			marker := "mcp-caps-" + t.Name()
			cmd := exec.Command(testExe(t), "mcp", "--config", cfg)
			cmd.Dir = s.work
			cmd.Env = s.environ(marker)
			opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}} // no roots either
			if capable {
				opts = &mcp.ClientOptions{
					CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
						return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "ok"}}, nil
					},
					ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						return &mcp.ElicitResult{Action: "decline"}, nil
					},
				}
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "caps-test", Version: "1"}, opts)
			const root = "file:///srv/caps-test-root"
			if capable {
				client.AddRoots(&mcp.Root{URI: root, Name: "r"})
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			if v := cs.InitializeResult().ProtocolVersion; v != tc.version {
				t.Fatalf("negotiated %s, want %s", v, tc.version)
			}
			defer func() {
				cs.Close()
				waitGone(t, marker)
			}()
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, tl := range res.Tools {
				names[tl.Name] = true
			}
			if !names["echo"] {
				t.Fatalf("server-everything's echo missing: %v", names)
			}
			for _, n := range capabilityTools {
				if names[n] != capable {
					t.Errorf("tool %s offered = %v, want %v (client capable: %v)", n, names[n], capable, capable)
				}
			}
			if capable {
				out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-roots-list", Arguments: map[string]any{}})
				if err != nil || out.IsError || !strings.Contains(tool.Text(out), root) {
					t.Errorf("get-roots-list: %v %q", err, tool.Text(out))
				}
				out, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "hi", "maxTokens": 5}})
				if err != nil || out.IsError || !strings.Contains(tool.Text(out), `"ok"`) {
					t.Errorf("trigger-sampling-request: %v %q", err, tool.Text(out))
				}
			}
		})
	}
}

// A required server that does not come up: over stdio the servers start at the
// client's first request, so the client learns it from its requests; when it
// disconnects, the command ends with exit 1, leaving nothing running.
func TestMCPStdioRequiredServerFails(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	cfg := s.writeConfig("mcp.json", `{"mcpServers": {"gone": {"command": "/nonexistent/server", "required": true}}}`)
	marker := "mcp-required-" + t.Name()
	cmd := exec.Command(testExe(t), "mcp", "--config", cfg)
	cmd.Dir = s.work
	cmd.Env = s.environ(marker)
	client := mcp.NewClient(&mcp.Implementation{Name: "required-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	for range 2 {
		if _, err := cs.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), `required server(s) not ready: gone`) {
			t.Errorf("tools/list with a required server down: err = %v", err)
		}
	}
	if err := cs.Close(); err != nil {
		t.Logf("session ended: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	waitGone(t, marker)
}
