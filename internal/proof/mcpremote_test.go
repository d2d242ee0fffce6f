//go:build unix

package proof

import (
	"crypto/rand"
	"os/exec"
	"slices"
	"strings"
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
