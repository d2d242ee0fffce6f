package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// demoTools are the tools of the built-in demo config, by server.
var demoTools = map[string]string{
	"current_time": "clock", "convert_time": "clock", "add_duration": "clock",
	"put_note": "notes", "get_note": "notes", "list_notes": "notes", "delete_note": "notes", "search_notes": "notes",
}

func TestToolsDemo(t *testing.T) {
	t.Parallel()
	t.Run("table", func(t *testing.T) {
		t.Parallel()
		r := newSandbox(t).run("--log-level", "info", "tools")
		r.wantCode(t, exitOK)
		rows := tableRows(r.stdout)
		for name, server := range demoTools {
			if row := rows[name]; len(row) < 3 || row[1] != server {
				t.Errorf("row for %s = %q, want server %s", name, row, server)
			}
		}
		if len(rows) != len(demoTools) {
			t.Errorf("want %d tools, got %d\n%s", len(demoTools), len(rows), r)
		}
		r.wantStdout(t, "TOOL", "SERVER", "DESCRIPTION", "8 tools from 2 servers")
		r.wantStderr(t, "MCP initialized: 2 servers, 8 tools (0 failed)")
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		r := newSandbox(t).run("tools", "--json")
		r.wantCode(t, exitOK)
		var tools []map[string]json.RawMessage
		decodeJSON(t, r.stdout, &tools)
		checkToolsJSON(t, tools)
	})
}

// `tools --format P` prints exactly what provider P's API accepts: checked against the
// providers' published constraints by format.Validate, plus the shape of each entry.
func TestToolsFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		provider format.Provider
		nameAt   []string // where the tool name sits in one definition
	}{
		{[]string{"--format", "mcp"}, format.MCP, []string{"name"}},
		{[]string{"--json", "--format", "openai"}, format.OpenAI, []string{"function", "name"}},
		{[]string{"--format", "openai", "--strict"}, format.OpenAI, []string{"function", "name"}},
		{[]string{"--format", "openai-responses", "--strict"}, format.OpenAIResponses, []string{"name"}},
		{[]string{"--format", "anthropic"}, format.Anthropic, []string{"name"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			r := newSandbox(t).run(append([]string{"tools"}, tt.args...)...)
			r.wantCode(t, exitOK)
			var defs []json.RawMessage
			decodeJSON(t, r.stdout, &defs)
			if len(defs) != len(demoTools) {
				t.Fatalf("%d definitions, want %d", len(defs), len(demoTools))
			}
			if err := format.Validate(tt.provider, defs); err != nil {
				t.Errorf("output does not meet %s's constraints: %v", tt.provider, err)
			}
			for _, d := range defs {
				var v any
				json.Unmarshal(d, &v)
				for _, k := range tt.nameAt {
					m, _ := v.(map[string]any)
					v = m[k]
				}
				if _, ok := demoTools[fmt.Sprint(v)]; !ok {
					t.Errorf("definition %s: name at %v = %v, not a demo tool", d, tt.nameAt, v)
				}
				var compact bytes.Buffer
				json.Compact(&compact, d)
				strict := strings.Contains(compact.String(), `"strict":true`)
				if wantStrict := slices.Contains(tt.args, "--strict"); strict != wantStrict {
					t.Errorf("strict = %v, want %v: %s", strict, wantStrict, d)
				}
			}
		})
	}
	// --strict is for the OpenAI formats only: with another, or none, it is a usage
	// error rather than ignored.
	for _, bad := range []struct {
		args []string
		want string // on stderr
	}{
		{[]string{"--format", "gemini"}, `--format: unknown provider "gemini"`},
		{[]string{"--strict"}, "--strict needs --format openai or openai-responses\n"},
		{[]string{"--format", "mcp", "--strict"}, "--strict needs --format openai or openai-responses, not mcp"},
		{[]string{"--format", "anthropic", "--strict"}, "--strict needs --format openai or openai-responses, not anthropic"},
	} {
		t.Run(strings.Join(bad.args, " "), func(t *testing.T) {
			t.Parallel()
			r := newSandbox(t).run(append([]string{"tools"}, bad.args...)...)
			r.wantCode(t, exitUsage)
			if r.stdout != "" {
				t.Errorf("tools %v printed %q", bad.args, r.stdout)
			}
			r.wantStderr(t, bad.want, helpHint)
		})
	}
}

// checkToolsJSON checks `tools --json` on the demo config.
func checkToolsJSON(t *testing.T, tools []map[string]json.RawMessage) {
	t.Helper()
	var names []string
	for _, tl := range tools {
		var keys []string
		for k := range tl {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if want := []string{"description", "inputSchema", "name", "originalName", "server"}; !slices.Equal(keys, want) {
			t.Errorf("tool keys = %q, want %q", keys, want)
			continue
		}
		var name, server, orig, desc string
		for k, dst := range map[string]*string{"name": &name, "server": &server, "originalName": &orig, "description": &desc} {
			if err := json.Unmarshal(tl[k], dst); err != nil {
				t.Errorf("%s is not a string: %s", k, tl[k])
			}
		}
		names = append(names, name)
		if demoTools[name] != server || orig != name || desc == "" {
			t.Errorf("tool %s: server %q, originalName %q, description %q", name, server, orig, desc)
		}
		var schema map[string]any
		if err := json.Unmarshal(tl["inputSchema"], &schema); err != nil {
			t.Errorf("tool %s: inputSchema is not an object: %s", name, tl["inputSchema"])
		} else if schema["type"] != "object" {
			t.Errorf("tool %s: inputSchema type = %v, want object", name, schema["type"])
		}
	}
	if len(names) != len(demoTools) {
		t.Errorf("want %d tools, got %q", len(demoTools), names)
	}
}

// TestHubCommandsInProcess runs the hub commands through run() in this process (for
// coverage), against demo servers started from the test binary.
func TestHubCommandsInProcess(t *testing.T) {
	t.Parallel()
	notes := filepath.Join(t.TempDir(), "notes.json")
	env := `"env": {` + jsonString(demo.NotesFileEnv) + `: ` + jsonString(notes) + `}`
	path := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), `{"mcpServers": {
  "clock": `+demoEntry(t, "clock")+`,
  "notes": `+demoEntry(t, "notes", env)+`
}}`)
	r := runInProcess(t, "--config", path, "tools", "--json")
	r.wantCode(t, exitOK)
	var tools []map[string]json.RawMessage
	decodeJSON(t, r.stdout, &tools)
	checkToolsJSON(t, tools)

	r = runInProcess(t, "--config", path, "call", "put_note", `{"title": "in-process", "text": "written by run()"}`)
	r.wantCode(t, exitOK)
	r.wantStdout(t, `Created note "in-process".`)
	r = runInProcess(t, "--config", path, "call", "get_note", `{"title": "in-process"}`)
	r.wantCode(t, exitOK)
	r.wantStdout(t, "written by run()")

	r = runInProcess(t, "--config", path, "status")
	r.wantCode(t, exitOK)
	rows := tableRows(r.stdout)
	for name, tools := range map[string]string{"clock": "3", "notes": "5"} {
		if want := []string{name, "ready", "stdio", tools, "0"}; !slices.Equal(rows[name], want) {
			t.Errorf("status row %s = %q, want %q\n%s", name, rows[name], want, r)
		}
	}
}

func TestCall(t *testing.T) {
	t.Parallel()
	stdin := func(s string) *string { return &s }
	tests := []struct {
		name   string
		stdin  *string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"zone", nil, []string{"current_time", `{"zone":"Asia/Tokyo"}`}, exitOK, []string{"Asia/Tokyo"}, nil},
		{"default args", nil, []string{"current_time"}, exitOK, []string{"(UTC, "}, nil},
		{"args from stdin", stdin(`{"zone": "Europe/Paris"}`), []string{"current_time", "-"}, exitOK, []string{"Europe/Paris"}, nil},
		{"convert", nil, []string{"convert_time", `{"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}`}, exitOK, []string{"2026-01-02T12:04:05+09:00 (Asia/Tokyo, Friday)"}, nil},
		{"tool error", nil, []string{"current_time", `{"zone":"Not/AZone"}`}, exitFailed, []string{`unknown time zone "Not/AZone"`}, nil},
		{"unknown tool", nil, []string{"curent_time"}, exitUsage, nil, []string{`switchboard: unknown tool "curent_time" (did you mean current_time?); run 'switchboard tools' to list them`}},
		{"unknown tool without suggestion", nil, []string{"zzzzzzzzzzzzzz"}, exitUsage, nil, []string{`switchboard: unknown tool "zzzzzzzzzzzzzz"; run 'switchboard tools' to list them`}},
		{"array args", nil, []string{"current_time", "[1]"}, exitUsage, nil, []string{"switchboard: ARGS is a JSON array, want an object"}},
		{"word args", nil, []string{"current_time", "nope"}, exitUsage, nil, []string{"switchboard: ARGS: invalid character 'o' in literal null (expecting 'u') at offset 1"}},
		{"bad value in args", nil, []string{"current_time", `{"zone": x}`}, exitUsage, nil, []string{"switchboard: ARGS: invalid character 'x' looking for beginning of value at offset 9"}},
		{"array on stdin", stdin("[1]"), []string{"current_time", "-"}, exitUsage, nil, []string{"switchboard: ARGS is a JSON array, want an object"}},
		{"bad stdin on line 2", stdin("{\n  \"zone\" \"UTC\"}"), []string{"current_time", "-"}, exitUsage, nil, []string{"switchboard: ARGS: invalid character '\"' after object key at line 2, column 10"}},
		{"empty stdin", stdin(""), []string{"current_time", "-"}, exitUsage, nil, []string{"switchboard: ARGS is empty, want a JSON object"}},
		{"bad arguments for the tool", nil, []string{"current_time", `{"zone": 7}`}, exitFailed, []string{"zone"}, nil},
		{"args nested too deep", nil, []string{"current_time", `{"zone": ` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`}, exitUsage, nil,
			[]string{`switchboard: ARGS: arguments nested deeper than 64 levels (the "switchboard.maxArgumentDepth" setting): not sent; flatten them, or raise the setting`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newSandbox(t).runStdin(tt.stdin, append([]string{"call"}, tt.args...)...)
			r.wantCode(t, tt.code)
			r.wantStdout(t, tt.stdout...)
			r.wantStderr(t, tt.stderr...)
			if tt.code == exitUsage && r.stdout != "" {
				t.Errorf("a usage error prints nothing on stdout\n%s", r)
			}
		})
	}
}

func TestCallJSON(t *testing.T) {
	t.Parallel()
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type callResult struct {
		Content           []content      `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
		IsError           bool           `json:"isError"`
	}
	t.Run("ok", func(t *testing.T) {
		t.Parallel()
		r := newSandbox(t).run("call", "--json", "current_time", `{"zone": "Asia/Tokyo"}`)
		r.wantCode(t, exitOK)
		var raw map[string]json.RawMessage
		decodeJSON(t, r.stdout, &raw)
		if _, ok := raw["content"]; !ok {
			t.Fatalf("no content in the result\n%s", r)
		}
		var res callResult
		decodeJSON(t, r.stdout, &res)
		if len(res.Content) != 1 || res.Content[0].Type != "text" || !strings.Contains(res.Content[0].Text, "Asia/Tokyo") || res.IsError {
			t.Errorf("result = %+v", res)
		}
		if res.StructuredContent["zone"] != "Asia/Tokyo" {
			t.Errorf("structuredContent = %v", res.StructuredContent)
		}
	})
	t.Run("tool error", func(t *testing.T) {
		t.Parallel()
		r := newSandbox(t).run("call", "--json", "current_time", `{"zone": "Not/AZone"}`)
		r.wantCode(t, exitFailed)
		var res callResult
		decodeJSON(t, r.stdout, &res)
		if !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "Not/AZone") {
			t.Errorf("result = %+v", res)
		}
	})
}

// TestNotesPersist calls put_note and get_note in two separate processes: the note
// lives in $SWITCHBOARD_NOTES_FILE, inside the sandbox.
func TestNotesPersist(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	r := s.run("call", "put_note", `{"title": "e2e", "text": "hello from process one", "tags": ["test"]}`)
	r.wantCode(t, exitOK)
	r.wantStdout(t, `Created note "e2e".`)
	if _, err := os.Stat(s.Notes); err != nil {
		t.Fatalf("notes file: %v", err)
	}
	r = s.run("call", "get_note", `{"title": "e2e"}`)
	r.wantCode(t, exitOK)
	r.wantStdout(t, "# e2e", "Tags: test", "hello from process one")

	r = s.run("call", "list_notes")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "e2e")

	r = s.run("call", "get_note", `{"title": "never written"}`)
	r.wantCode(t, exitFailed)

	// Another sandbox has its own notebook.
	r = newSandbox(t).run("call", "get_note", `{"title": "e2e"}`)
	r.wantCode(t, exitFailed)
}

// statusOutput is the shape of `status --json`.
type statusOutput struct {
	Servers []struct {
		Name      string   `json:"name"`
		State     string   `json:"state"`
		Transport string   `json:"transport"`
		Tools     int      `json:"tools"`
		Restarts  int      `json:"restarts"`
		Error     string   `json:"error"`
		Stderr    []string `json:"stderr"`
	} `json:"servers"`
	Tools int `json:"tools"`
}

func TestStatusDemo(t *testing.T) {
	t.Parallel()
	r := newSandbox(t).run("status", "--json")
	r.wantCode(t, exitOK)

	// Exact keys, and stderr an array rather than null.
	var raw struct {
		Servers []map[string]json.RawMessage `json:"servers"`
	}
	decodeJSON(t, r.stdout, &raw)
	for _, srv := range raw.Servers {
		var keys []string
		for k := range srv {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if want := []string{"error", "name", "restarts", "state", "stderr", "tools", "toolsTotal", "transport"}; !slices.Equal(keys, want) {
			t.Errorf("server keys = %q, want %q", keys, want)
		}
		if string(srv["stderr"]) != "[]" {
			t.Errorf("stderr = %s, want []", srv["stderr"])
		}
	}

	var st statusOutput
	decodeJSON(t, r.stdout, &st)
	if st.Tools != 8 || len(st.Servers) != 2 {
		t.Fatalf("status = %+v\n%s", st, r)
	}
	for i, want := range []struct {
		name  string
		tools int
	}{{"clock", 3}, {"notes", 5}} {
		got := st.Servers[i]
		if got.Name != want.name || got.State != "ready" || got.Transport != "stdio" || got.Tools != want.tools || got.Restarts != 0 || got.Error != "" || len(got.Stderr) != 0 {
			t.Errorf("server %d = %+v", i, got)
		}
	}
}

// TestFailingServer: one server crashes at every start. It ends up failed with its
// stderr in status, while the rest of the catalog works and the commands succeed.
func TestFailingServer(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	config := func(s *sandbox) string {
		return s.writeConfig("mcp.json", `{"mcpServers": {
  "clock": `+demoEntry(t, "clock")+`,
  "crashy": {"command": `+jsonString(bin)+`, "args": ["--crash-at-start"]}
}}`)
	}
	t.Run("status", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		r := s.run("--config", config(s), "status", "--json")
		r.wantCode(t, exitFailed) // crashy failed
		var st statusOutput
		decodeJSON(t, r.stdout, &st)
		if len(st.Servers) != 2 || st.Tools != 3 {
			t.Fatalf("status = %+v", st)
		}
		clock, crashy := st.Servers[0], st.Servers[1]
		if clock.Name != "clock" || clock.State != "ready" || clock.Tools != 3 {
			t.Errorf("clock = %+v", clock)
		}
		if crashy.Name != "crashy" || crashy.State != "failed" || crashy.Tools != 0 ||
			!strings.Contains(crashy.Error, "exited with status 2") || !slices.Contains(crashy.Stderr, "fatal: crash requested") {
			t.Errorf("crashy = %+v", crashy)
		}
		r.wantStderr(t, "server not ready", "server=crashy", "state=failed")
	})
	t.Run("status table", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		r := s.run("--config", config(s), "status")
		r.wantCode(t, exitFailed)
		rows := tableRows(r.stdout)
		if row := rows["crashy"]; len(row) < 6 || row[1] != "failed" || !strings.Contains(strings.Join(row[5:], " "), "exited with status 2") {
			t.Errorf("crashy row = %q\n%s", row, r)
		}
		if row := rows["clock"]; len(row) < 2 || row[1] != "ready" {
			t.Errorf("clock row = %q\n%s", row, r)
		}
	})
	t.Run("call", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		r := s.run("--config", config(s), "call", "current_time", `{"zone": "UTC"}`)
		r.wantCode(t, exitOK)
		r.wantStdout(t, "(UTC, ")
	})
}

// TestNodeCrashReason: a Node.js server that crashes at start-up shows Node's error
// in status, the table and --json, not the version banner Node prints last (the
// table showed "process exited with status 1 during start-up: Node.js v20.2…").
func TestNodeCrashReason(t *testing.T) {
	t.Parallel()
	node := testenv.Node(t)
	s := newSandbox(t)
	script := writeFile(t, filepath.Join(s.Dir, "server.js"), "require('no-such-module-xyz');\n")
	path := s.writeConfig("mcp.json", `{"mcpServers": {"nodey": {"command": `+jsonString(node)+`, "args": [`+jsonString(script)+`]}}}`)
	const want = "process exited with status 1 during start-up: Error: Cannot find module 'no-such-module-xyz'"

	r := s.run("--config", path, "status", "--json")
	r.wantCode(t, exitFailed)
	var st statusOutput
	decodeJSON(t, r.stdout, &st)
	if len(st.Servers) != 1 || st.Servers[0].Error != want {
		t.Errorf("status --json = %+v, want the error %q", st.Servers, want)
	}

	r = s.run("--config", path, "status")
	r.wantCode(t, exitFailed)
	if row := tableRows(r.stdout)["nodey"]; len(row) < 6 || strings.Join(row[5:], " ") != want {
		t.Errorf("nodey row = %q, want the error %q\n%s", row, want, r)
	}
}

// TestRequiredServer: a required server that cannot start fails the command (exit 1)
// with an error that names it.
func TestRequiredServer(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	missing := filepath.Join(s.Dir, "no-such-command")
	path := s.writeConfig("mcp.json", `{"mcpServers": {
  "clock": `+demoEntry(t, "clock")+`,
  "needed": {"command": `+jsonString(missing)+`, "required": true}
}}`)
	r := s.run("--config", path, "check")
	r.wantCode(t, exitOK)
	if row := tableRows(r.stdout)["needed"]; len(row) < 3 || row[2] != "required" {
		t.Errorf("check row = %q\n%s", row, r)
	}

	r = s.run("--config", path, "tools")
	r.wantCode(t, exitFailed)
	r.wantStderr(t, "switchboard: required server(s) not ready: needed (failed: ", "command not found", missing)
	if strings.Contains(r.stdout, "current_time") {
		t.Errorf("no catalog should be printed\n%s", r)
	}
}

// TestNoOrphans: servers that leave a grandchild behind, and a CLI stopped by a signal
// in the middle of a call, still leave no process running (runStdin checks every run).
func TestNoOrphans(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	t.Run("grandchild", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		pidfile := filepath.Join(s.Dir, "server.pid")
		path := s.writeConfig("mcp.json", `{"mcpServers": {
  "clock": `+demoEntry(t, "clock")+`,
  "parent": {"command": `+jsonString(bin)+`, "args": ["--grandchild", "--pidfile", `+jsonString(pidfile)+`]}
}}`)
		r := s.run("--config", path, "call", "echo", `{"text": "hello"}`)
		r.wantCode(t, exitOK)
		r.wantStdout(t, "hello")
		gc := testserver.ReadPID(t, pidfile+".grandchild")
		if testserver.ProcessAlive(gc) {
			t.Errorf("grandchild %d still alive", gc)
		}
	})
	t.Run("sigterm during call", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		path := s.writeConfig("mcp.json", `{"mcpServers": {
  "clock": `+demoEntry(t, "clock")+`,
  "slow": {"command": `+jsonString(bin)+`}
}}`)
		// Signal the CLI once the call is under way: the slow server says so on its
		// stderr, which the CLI logs at info level. The call itself would take a minute.
		s.onStart = func(cli *os.Process, stderr *testenv.Buffer) {
			testenv.WaitFor(t, `the slow server's "testserver: sleep started" in the CLI's log`, 30*time.Second, func() bool {
				return strings.Contains(stderr.String(), "testserver: sleep started")
			})
			if err := cli.Signal(syscall.SIGTERM); err != nil {
				t.Fatalf("SIGTERM: %v", err)
			}
		}
		start := time.Now()
		r := s.run("--log-level", "info", "--config", path, "call", "sleep", `{"ms": 60000}`)
		r.wantCode(t, exitFailed)
		r.wantStdout(t, `tool "sleep"`)
		r.wantStderr(t, "server=slow", "testserver: sleep started")
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("interrupted call took %v", d)
		}
	})
}

// TestNamingNever: under naming "never" a collision is one line, printed once, that
// says what resolves it, with exit 2 (a configuration problem); a server's explicit
// "prefix" resolves it.
func TestNamingNever(t *testing.T) {
	t.Parallel()
	t.Run("collision", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		path := s.writeConfig("mcp.json", `{"switchboard": {"naming": "never"}, "mcpServers": {
  "clock": `+demoEntry(t, "clock")+`,
  "clock2": `+demoEntry(t, "clock")+`
}}`)
		want := `switchboard: naming "never": 3 tools collide between "clock" and "clock2" (add_duration, convert_time, current_time); ` +
			`set "prefix" on one of them, allow/deny the tools, or use naming "auto"`
		// The gateway refuses the same config with the same line and code.
		for _, args := range [][]string{{"tools"}, {"mcp", "--listen", "127.0.0.1:0"}} {
			r := s.run(append([]string{"--config", path}, args...)...)
			r.wantCode(t, exitUsage)
			if args[0] == "tools" {
				r.wantStderr(t, want+"\n")
			} else if !strings.HasSuffix(r.stderr, want+"\n") { // after the servers' state lines
				t.Errorf("%v: stderr does not end with %q\n%s", args, want, r)
			}
			if n := strings.Count(r.stderr, "collide"); n != 1 {
				t.Errorf("%v: the collision is told %d times, want once\n%s", args, n, r)
			}
			if r.stdout != "" {
				t.Errorf("%v: nothing should be printed on stdout\n%s", args, r)
			}
		}
	})
	t.Run("explicit prefix", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		path := s.writeConfig("mcp.json", `{"switchboard": {"naming": "never"}, "mcpServers": {
  "clock": `+demoEntry(t, "clock")+`,
  "clock2": `+demoEntry(t, "clock", `"prefix": "c2"`)+`
}}`)
		r := s.run("--config", path, "tools")
		r.wantCode(t, exitOK)
		rows := tableRows(r.stdout)
		for name, server := range map[string]string{"current_time": "clock", "c2__current_time": "clock2", "c2__add_duration": "clock2"} {
			if row := rows[name]; len(row) < 2 || row[1] != server {
				t.Errorf("row for %s = %q, want server %s\n%s", name, row, server, r)
			}
		}
	})
}

// TestCallDoesNotWaitForOthers: a server that never answers initialize does not hold up
// a call to the tool of a server listed before it. Its init timeout is 10 minutes, so
// a call that waited for it would run past runStdin's 45 s limit. (One listed before
// the tool's server is waited for, since it would own a name they share:
// TestCallSharedNameOfTheFirst.)
func TestCallDoesNotWaitForOthers(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	config := func(s *sandbox, timeout string, more ...string) string {
		pidfile := filepath.Join(s.Dir, "hung.pid")
		return s.writeConfig("mcp.json", `{"mcpServers": {
  "clock": `+demoEntry(t, "clock")+strings.Join(more, "")+`,
  "hung": {"command": `+jsonString(bin)+`, "args": ["--hang-init", "--pidfile", `+jsonString(pidfile)+`], "timeout": "`+timeout+`"}
}}`)
	}
	t.Run("owner ready", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		r := s.run("--config", config(s, "10m"), "call", "current_time", `{"zone": "UTC"}`)
		r.wantCode(t, exitOK)
		r.wantStdout(t, "(UTC, ")
		// runStdin found no process of the run alive; the hung server, if it got as far
		// as writing its pid, is gone too.
		if data, err := os.ReadFile(filepath.Join(s.Dir, "hung.pid")); err == nil {
			var pid int
			if _, err := fmt.Sscan(string(data), &pid); err == nil && testserver.ProcessAlive(pid) {
				t.Errorf("hung server %d still alive after the call\n%s", pid, r)
			}
		}
	})
	t.Run("owner starts later", func(t *testing.T) {
		t.Parallel()
		// echo is nobody's until the slower server is ready: call waits for it.
		s := newSandbox(t)
		r := s.run("--config", config(s, "10m", `, "late": {"command": `+jsonString(bin)+`, "args": ["--init-delay", "300ms"]}`),
			"call", "echo", `{"text": "late but there"}`)
		r.wantCode(t, exitOK)
		r.wantStdout(t, "late but there")
	})
	t.Run("unknown tool once every server settled", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		r := s.run("--config", config(s, "1s"), "call", "nosuch")
		r.wantCode(t, exitUsage)
		r.wantStderr(t, `switchboard: unknown tool "nosuch"; run 'switchboard tools' to list them`)
	})
}

// TestStatusNotReady: status says which servers it still waits for (once), why a
// server is not ready, shows exposed/offered tools, and exits 1; tools names the
// servers that are not ready in its summary.
func TestStatusNotReady(t *testing.T) {
	t.Parallel()
	bin := testserver.Build(t)
	config := func(s *sandbox) string {
		return s.writeConfig("mcp.json", `{"mcpServers": {
  "clock": `+demoEntry(t, "clock", `"tools": {"allow": ["current_time"]}`)+`,
  "crashy": {"command": `+jsonString(bin)+`, "args": ["--crash-at-start"]},
  "hung": {"command": `+jsonString(bin)+`, "args": ["--hang-init"], "timeout": "4s"},
  "off": {"command": "nothing", "disabled": true}
}}`)
	}
	t.Run("table", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		r := s.run("--config", config(s), "status")
		r.wantCode(t, exitFailed)
		// crashy may still be between attempts then, and be named too.
		r.wantStderr(t, `msg="waiting for `, "hung (still connecting, within its 4s init timeout)")
		if n := strings.Count(r.stderr, "waiting for"); n != 1 {
			t.Errorf(`"waiting for" told %d times, want once`+"\n%s", n, r)
		}
		rows := tableRows(r.stdout)
		for name, want := range map[string][]string{
			"clock":  {"ready", "stdio", "1/3", "0"},
			"crashy": {"failed", "stdio", "0", "0", "process", "exited", "with", "status", "2"},
			"hung":   {"connecting", "stdio", "0", "0"},
			"off":    {"disabled", "stdio", "0", "0"},
		} {
			if row := rows[name]; len(row) < len(want)+1 || !slices.Equal(row[1:len(want)+1], want) {
				t.Errorf("row %s = %q, want %q…\n%s", name, row, want, r)
			}
		}
		// Why hung is not ready: the hub's wait or the server's attempt ends first.
		if row := strings.Join(rows["hung"], " "); !strings.Contains(row, "still connecting after its 4s init timeout") &&
			!strings.Contains(row, "no answer to initialize within 4s") {
			t.Errorf("row hung = %q does not say why it is not ready\n%s", row, r)
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		r := s.run("--config", config(s), "status", "--json")
		r.wantCode(t, exitFailed)
		var st struct {
			Servers []struct {
				Name       string `json:"name"`
				Tools      int    `json:"tools"`
				ToolsTotal int    `json:"toolsTotal"`
				Error      string `json:"error"`
			} `json:"servers"`
		}
		decodeJSON(t, r.stdout, &st)
		if len(st.Servers) != 4 || st.Servers[0].Tools != 1 || st.Servers[0].ToolsTotal != 3 {
			t.Errorf("servers = %+v", st.Servers)
		}
		if e := st.Servers[min(2, len(st.Servers)-1)].Error; e != "still connecting after its 4s init timeout" && e != "no answer to initialize within 4s" {
			t.Errorf("hung error = %q", st.Servers[2].Error)
		}
	})
	t.Run("tools", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		r := s.run("--config", config(s), "tools")
		r.wantCode(t, exitOK)
		r.wantStdout(t, "1 tool from 1 of 4 servers (1 failed: crashy; 1 connecting: hung; 1 disabled: off)\n")
	})
}
