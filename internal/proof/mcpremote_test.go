//go:build unix

package proof

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// mcpRemoteEra2026 is what mcp-remote 0.15.1 says on stderr when its --protocol auto
// probe (server/discover) found a server of 2026-07-28: from then on it answers its
// client's initialize itself and turns each request into one of that revision.
const mcpRemoteEra2026 = "Remote server speaks MCP 2026-07-28"

// TestMCPRemote: mcp-remote (testdata/node22), the stdio bridge that hosts knowing
// only stdio (Claude Desktop, Cursor) run to reach a remote server, bridges the
// gateway's /mcp: serve's (its token passed with --header) and `switchboard mcp
// --listen`'s, with and without --stateless. Each of its protocol modes (--protocol
// legacy, the default: initialize passed through; auto: server/discover first, and a
// server of 2026-07-28 spoken to in that revision whatever its client speaks), and a
// client of each era behind it (the Go SDK's client over stdio: 2025-11-25, as most
// hosts today, and 2026-07-28, the SDK's default), list the demo tools and call one.
// Were server/discover to list no 2026-07-28, mcp-remote --protocol auto would refuse
// its 2025-11-25 client's initialize ("cannot bridge to this server"; issue 33), and
// the 2026-07-28 client would fall back to 2025-11-25.
func TestMCPRemote(t *testing.T) {
	node22 := testenv.Node22(t)
	mcpRemote := testenv.Node22Bin(t, "mcp-remote")
	switchboard := testenv.Switchboard(t)
	token := rand.Text()

	for _, target := range []struct {
		name  string
		argv  []string // the gateway's command line, without its address
		token string   // serve's bearer token ($SWITCHBOARD_TOKEN), "" for none
	}{
		{"serve", []string{"serve", "--addr"}, token},
		{"mcp --listen", []string{"mcp", "--listen"}, ""},
		{"mcp --listen --stateless", []string{"mcp", "--stateless", "--listen"}, ""},
	} {
		t.Run(target.name, func(t *testing.T) {
			sb := testenv.NewSandbox(t)
			t.Cleanup(func() { noProcessesLeft(t, switchboard, "switchboard") })
			env := nodeEnv(sb, node22)
			gwEnv := env
			if target.token != "" {
				gwEnv = append(slices.Clip(env), tokenEnv+"="+target.token)
			}
			gw := startServer(t, "switchboard "+target.name, sb.Work, gwEnv, func(addr string) []string {
				return append([]string{switchboard}, append(target.argv, addr)...)
			})
			if target.token != "" {
				// serve answers while its servers still start; mcp --listen only once they are up.
				for _, name := range []string{"clock", "notes"} {
					testenv.WaitFor(t, "serve's demo server "+name+" ready", 30*time.Second, func() bool {
						return serverReady("http://"+gw.addr+"/v1/servers/"+name, target.token)
					})
				}
			}
			for _, mode := range []string{"legacy", "auto"} {
				for _, version := range []string{"2025-11-25", "2026-07-28"} {
					t.Run(mode+"/"+version, func(t *testing.T) {
						argv := []string{mcpRemote, gw.url(), "--protocol", mode}
						what := strings.Join(argv[1:], " ") // for messages: without the token
						if target.token != "" {
							argv = append(argv, "--header", "Authorization: Bearer "+target.token)
							what += " --header 'Authorization: Bearer …'"
						}
						stderr := bridgeDemo(t, sb, env, argv, what, version)
						// Only a client's initialize sets off the probe; a client of
						// 2026-07-28 begins with server/discover, which passes through.
						wantModern := mode == "auto" && version < "2026-07-28"
						if got := strings.Contains(stderr, mcpRemoteEra2026); got != wantModern {
							t.Errorf("mcp-remote said %q: %v, want %v; its stderr:\n%s", mcpRemoteEra2026, got, wantModern, tail(stderr, 40))
						}
					})
				}
			}
		})
	}
}

// tokenEnv is the variable that serve (and mcp --listen) take their token from.
const tokenEnv = "SWITCHBOARD_TOKEN"

// bridgeDemo connects the Go SDK's client asking for protocol version to the stdio
// bridge that argv (mcp-remote and its arguments; what, for messages) starts, lists the
// demo tools and calls convert_time, closes the client and checks that the bridge
// exited. It returns what the bridge wrote to stderr.
func bridgeDemo(t *testing.T, sb *testenv.Sandbox, env, argv []string, what, version string) string {
	t.Helper()
	var stderr testenv.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = sb.Work, env, &stderr
	ctx := t.Context()
	c := mcp.NewClient(&mcp.Implementation{Name: "mcp-remote-proof", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect through mcp-remote %s: %v; its stderr:\n%s", what, err, tail(stderr.String(), 40))
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = cs.Close()
		}
	})
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format+"; mcp-remote's stderr:\n%s", append(args, tail(stderr.String(), 40))...)
	}

	ir := cs.InitializeResult()
	if ir.ProtocolVersion != version {
		t.Errorf("negotiated %s, want %s", ir.ProtocolVersion, version)
	}
	if ir.ServerInfo == nil || ir.ServerInfo.Name != "switchboard" {
		t.Errorf("serverInfo %+v, want switchboard's", ir.ServerInfo)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		fail("tools/list: %v", err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, demoTools) {
		t.Errorf("tools/list = %q, want the demo catalog %q", names, demoTools)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "convert_time", Arguments: map[string]any{"time": "2026-01-15T12:00:00Z", "to": "Asia/Tokyo"}})
	if err != nil {
		fail("tools/call convert_time: %v", err)
	}
	const wantTime = "2026-01-15T21:00:00+09:00 (Asia/Tokyo, Thursday)"
	if tc, ok := singleText(res); res.IsError || !ok || tc != wantTime {
		t.Errorf("convert_time = %+v, want the one text %q", res, wantTime)
	}

	// Closing stdin ends mcp-remote ("Shutting down..."); CommandTransport waits 5 s
	// for that, then sends SIGTERM (and SIGKILL after another 5 s).
	closed = true
	_ = cs.Close() // the exit status of a process that had to be signalled
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
		t.Errorf("mcp-remote did not exit when its client closed stdin: %v", cmd.ProcessState)
	}
	return stderr.String()
}

// singleText returns the text of a result that holds exactly one text block.
func singleText(res *mcp.CallToolResult) (string, bool) {
	if len(res.Content) != 1 {
		return "", false
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "", false
	}
	return tc.Text, true
}

// TestMCPRemoteInputRequestsAndListChanges: what a server asks in the middle of a call,
// and a change of the tool list, reach a 2025-11-25 client behind mcp-remote in each of
// its --protocol modes. In auto mode mcp-remote speaks 2026-07-28 to serve's /mcp, so
// both take that revision's ways, which it turns back into the older ones: a call's
// input requests (SEP-2322: the gateway's own for a server of 2025-11-25 that sends
// elicitation/create, or the everything-server's, of 2026-07-28, over two rounds)
// become elicitation/create to the client, and the subscriptions/listen stream it
// opens for the client carries notifications/tools/list_changed. In legacy mode the
// same go over the client's session.
func TestMCPRemoteInputRequestsAndListChanges(t *testing.T) {
	node22 := testenv.Node22(t)
	mcpRemote := testenv.Node22Bin(t, "mcp-remote")
	switchboard := testenv.Switchboard(t)
	everything := testenv.EverythingServer(t)
	sb := testenv.NewSandbox(t)
	t.Cleanup(func() {
		noProcessesLeft(t, everything, "everything-server")
		noProcessesLeft(t, switchboard, "switchboard")
	})
	env := nodeEnv(sb, node22)
	token := rand.Text()
	config := filepath.Join(sb.Dir, "mcp.json")
	writeJSON(t, config, map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": everything},
		"old":        map[string]any{"command": everything, "protocolVersion": "2025-11-25"}, // its tools: old__NAME
	}})
	gw := startServer(t, "switchboard serve", sb.Work, append(slices.Clip(env), tokenEnv+"="+token), func(addr string) []string {
		return []string{switchboard, "serve", "--config", config, "--addr", addr}
	})
	for _, name := range []string{"everything", "old"} {
		testenv.WaitFor(t, "serve's server "+name+" ready", 30*time.Second, func() bool {
			return serverReady("http://"+gw.addr+"/v1/servers/"+name, token)
		})
	}

	for _, mode := range []string{"legacy", "auto"} {
		t.Run(mode, func(t *testing.T) {
			var stderr testenv.Buffer
			cmd := exec.Command(mcpRemote, gw.url(), "--protocol", mode, "--header", "Authorization: Bearer "+token)
			cmd.Dir, cmd.Env, cmd.Stderr = sb.Work, env, &stderr
			var (
				mu    sync.Mutex
				asked []string // the messages of the elicitations, in order
			)
			answers := map[string]map[string]any{
				"Who are you?":                         {"username": "ada"},
				"Step 1: What is your name?":           {"name": "Ada"},
				"Step 2: What is your favorite color?": {"color": "blue"},
			}
			listChanged := make(chan struct{}, 1)
			c := mcp.NewClient(&mcp.Implementation{Name: "mcp-remote-proof", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					asked = append(asked, req.Params.Message)
					mu.Unlock()
					content, ok := answers[req.Params.Message]
					if !ok {
						return &mcp.ElicitResult{Action: "decline"}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: content}, nil
				},
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
					select {
					case listChanged <- struct{}{}:
					default:
					}
				},
			})
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatalf("connect through mcp-remote --protocol %s: %v; its stderr:\n%s", mode, err, tail(stderr.String(), 40))
			}
			closed := false
			t.Cleanup(func() {
				if !closed {
					_ = cs.Close()
				}
			})

			for _, call := range []struct {
				tool      string
				args      map[string]any
				wantAsked []string
				want      string
			}{
				{"old__test_elicitation", map[string]any{"message": "Who are you?"},
					[]string{"Who are you?"}, "Elicitation result: action=accept, content=map[username:ada]"},
				{"test_input_required_result_multi_round", nil,
					[]string{"Step 1: What is your name?", "Step 2: What is your favorite color?"}, "Multi-round complete: Ada likes blue"},
			} {
				mu.Lock()
				asked = nil
				mu.Unlock()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
				if err != nil {
					t.Fatalf("%s: %v; mcp-remote's stderr:\n%s", call.tool, err, tail(stderr.String(), 40))
				}
				if text, ok := singleText(res); res.IsError || !ok || text != call.want {
					t.Errorf("%s = %+v, want the one text %q", call.tool, res.Content, call.want)
				}
				mu.Lock()
				if !slices.Equal(asked, call.wantAsked) {
					t.Errorf("%s asked the client %q, want %q", call.tool, asked, call.wantAsked)
				}
				mu.Unlock()
			}

			before, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			// A server added over serve's API changes the tool list: the demo clock, its
			// 3 tools prefixed (clock-MODE__current_time) where an earlier run's took
			// the names.
			select {
			case <-listChanged: // none is expected before; only the one after counts
			default:
			}
			addServer(t, "http://"+gw.addr, token, "clock-"+mode, switchboard, "demo-server", "clock")
			select {
			case <-listChanged:
			case <-time.After(30 * time.Second):
				t.Fatalf("no notifications/tools/list_changed within 30s of adding a server; mcp-remote's stderr:\n%s", tail(stderr.String(), 40))
			}
			after, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if len(after.Tools) != len(before.Tools)+3 {
				t.Errorf("tools/list after the change: %d tools, want %d (the 3 of the clock added)", len(after.Tools), len(before.Tools)+3)
			}

			// mcp-remote's stderr is all there once it exited (read earlier, it may
			// lag behind what its stdout already answered).
			closed = true
			_ = cs.Close()
			if got, want := strings.Contains(stderr.String(), mcpRemoteEra2026), mode == "auto"; got != want {
				t.Errorf("mcp-remote said %q: %v, want %v; its stderr:\n%s", mcpRemoteEra2026, got, want, tail(stderr.String(), 40))
			}
		})
	}
}

// addServer adds a stdio server over serve's API (POST /v1/servers) at base.
func addServer(t *testing.T, base, token, name string, command ...string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"name": name, "command": command[0], "args": command[1:]})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/v1/servers", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST /v1/servers %s: %s %s", name, resp.Status, msg)
	}
}
