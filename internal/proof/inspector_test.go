//go:build unix

package proof

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// inspectorTimeout bounds one run of the inspector CLI (about 0.5 s normally).
const inspectorTimeout = time.Minute

// demoTools is the built-in demo catalog (servers clock and notes), which `switchboard
// mcp` serves when there is no mcp.json.
var demoTools = []string{
	"add_duration", "convert_time", "current_time", // clock
	"delete_note", "get_note", "list_notes", "put_note", "search_notes", // notes
}

// TestInspectorCLI lists and calls the demo tools through the gateway with the MCP
// Inspector's CLI: over stdio, where the inspector starts `switchboard mcp` itself (once
// per call), and over Streamable HTTP, against one `switchboard mcp --listen`.
func TestInspectorCLI(t *testing.T) {
	node22 := testenv.Node22(t)
	inspector := testenv.Node22Bin(t, "mcp-inspector")
	switchboard := testenv.Switchboard(t)

	t.Run("stdio", func(t *testing.T) {
		sb := testenv.NewSandbox(t)
		// The inspector gives a stdio server only HOME, LOGNAME, PATH, SHELL, TERM and USER
		// of its own environment: pass the sandbox's variables explicitly.
		var target []string
		for _, kv := range sb.Vars() {
			target = append(target, "-e", kv)
		}
		// "--" ends the options: --tool-arg takes every argument up to the next option.
		target = append(target, "--cwd", sb.Work, "--", switchboard, "mcp")
		exerciseDemo(t, inspector, node22, sb, target)
		if _, err := os.Stat(sb.Notes); err != nil {
			t.Errorf("the notes server did not write $SWITCHBOARD_NOTES_FILE: %v", err)
		}
		noProcessesLeft(t, switchboard, "switchboard (started by the inspector)")
	})

	t.Run("http", func(t *testing.T) {
		sb := testenv.NewSandbox(t)
		t.Cleanup(func() { noProcessesLeft(t, switchboard, "switchboard") })
		gw := startServer(t, "switchboard mcp", sb.Work, nodeEnv(sb, node22), func(addr string) []string {
			return []string{switchboard, "mcp", "--listen", addr}
		})
		exerciseDemo(t, inspector, node22, sb, []string{"--transport", "http", "--server-url", gw.url()})
		if _, err := os.Stat(sb.Notes); err != nil {
			t.Errorf("the notes server did not write $SWITCHBOARD_NOTES_FILE: %v", err)
		}
	})
}

// exerciseDemo lists the demo tools and calls convert_time, put_note and get_note
// through the gateway that target (the inspector's connection arguments) reaches.
func exerciseDemo(t *testing.T, inspector, node22 string, sb *testenv.Sandbox, target []string) {
	t.Helper()
	inspect := func(args ...string) json.RawMessage {
		t.Helper()
		argv := append([]string{inspector, "--cli", "--format", "json"}, args...)
		argv = append(argv, target...)
		r := run(t.Context(), node22, nodeEnv(sb, node22), inspectorTimeout, argv...)
		if r.err != nil {
			t.Fatalf("inspector failed: %v", r)
		}
		var out struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Result == nil {
			t.Fatalf("inspector output is not {\"result\": ...} (%v): %v", err, r)
		}
		t.Logf("%s: %s", strings.Join(args, " "), r.elapsed.Round(time.Millisecond))
		return out.Result
	}
	call := func(tool string, args ...string) string {
		t.Helper()
		raw := inspect(append([]string{"--method", "tools/call", "--tool-name", tool, "--tool-arg"}, args...)...)
		var res struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("%s: result %s: %v", tool, raw, err)
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].Type != "text" {
			t.Fatalf("%s: want one text block and no error, got %s", tool, raw)
		}
		return res.Content[0].Text
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
	slices.Sort(names)
	if !slices.Equal(names, demoTools) {
		t.Errorf("tools/list = %q, want the demo catalog %q", names, demoTools)
	}

	const wantTime = "2026-01-15T21:00:00+09:00 (Asia/Tokyo, Thursday)"
	if got := call("convert_time", "time=2026-01-15T12:00:00Z", "to=Asia/Tokyo"); got != wantTime {
		t.Errorf("convert_time = %q, want %q", got, wantTime)
	}

	const title, text = "proof note", "written through the gateway by the MCP Inspector"
	if got, want := call("put_note", "title="+title, "text="+text), `Created note "`+title+`".`; got != want {
		t.Errorf("put_note = %q, want %q", got, want)
	}
	got := call("get_note", "title="+title)
	if !strings.HasPrefix(got, "# "+title+"\n") || !strings.HasSuffix(got, "\n\n"+text) {
		t.Errorf("get_note = %q, want the note %q with text %q", got, title, text)
	}
}
