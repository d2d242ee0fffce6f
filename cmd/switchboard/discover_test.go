package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestConfigDiscovery runs the CLI in sandboxes holding one config where a host keeps
// it, and checks which one is loaded, in the documented order, and what stderr says.
func TestConfigDiscovery(t *testing.T) {
	t.Parallel()
	config := func(group, name string) string {
		return `{"` + group + `": {"` + name + `": {"command": "` + name + `-server"}}}`
	}
	type file struct{ where, path, content string } // where: "work" or "home"
	tests := []struct {
		name       string
		args       []string
		files      []file
		wantSource string // with ~ for the sandbox's home
		wantServer string
	}{
		{"./.mcp.json", nil, []file{{"work", ".mcp.json", config("mcpServers", "dotmcp")}, {"work", ".vscode/mcp.json", config("servers", "vscode")}},
			".mcp.json", "dotmcp"},
		{"./.vscode/mcp.json", nil, []file{{"work", ".vscode/mcp.json", config("servers", "vscode")}, {"work", ".cursor/mcp.json", config("mcpServers", "cursor")}},
			".vscode/mcp.json", "vscode"},
		{"./.cursor/mcp.json", nil, []file{{"work", ".cursor/mcp.json", config("mcpServers", "cursor")}, {"home", ".cursor/mcp.json", config("mcpServers", "usercursor")}},
			".cursor/mcp.json", "cursor"},
		{"Claude Desktop", nil, []file{{"home", ".config/Claude/claude_desktop_config.json", config("mcpServers", "claude")}, {"home", ".cursor/mcp.json", config("mcpServers", "usercursor")}},
			"~/.config/Claude/claude_desktop_config.json", "claude"},
		{"user Cursor", nil, []file{{"home", ".cursor/mcp.json", config("mcpServers", "usercursor")}},
			"~/.cursor/mcp.json", "usercursor"},
		{"--config claude", []string{"--config", "claude"}, []file{{"work", "mcp.json", config("mcpServers", "cwd")}, {"home", ".config/Claude/claude_desktop_config.json", config("mcpServers", "claude")}},
			"~/.config/Claude/claude_desktop_config.json", "claude"},
		{"--config cursor", []string{"--config", "cursor"}, []file{{"work", "mcp.json", config("mcpServers", "cwd")}, {"home", ".cursor/mcp.json", config("mcpServers", "usercursor")}},
			"~/.cursor/mcp.json", "usercursor"},
		{"--config vscode: the project's", []string{"-c", "vscode"}, []file{{"work", ".vscode/mcp.json", config("servers", "vscode")}, {"home", ".config/Code/User/mcp.json", config("servers", "uservscode")}},
			".vscode/mcp.json", "vscode"},
		{"--config vscode: the user's", []string{"-c", "vscode"}, []file{{"work", "mcp.json", config("mcpServers", "cwd")}, {"home", ".config/Code/User/mcp.json", config("servers", "uservscode")}},
			"~/.config/Code/User/mcp.json", "uservscode"},
		{"a file called claude wins", []string{"--config", "claude"}, []file{{"work", "claude", config("mcpServers", "localfile")}, {"home", ".config/Claude/claude_desktop_config.json", config("mcpServers", "claude")}},
			"claude", "localfile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			for _, f := range tt.files {
				dir := s.Work
				if f.where == "home" {
					dir = s.Home
				}
				writeFile(t, filepath.Join(dir, filepath.FromSlash(f.path)), f.content)
			}
			r := s.run(append(tt.args, "check", "--json")...)
			r.wantCode(t, exitOK)
			out := parseCheck(t, r)
			want := strings.Replace(tt.wantSource, "~", s.Home, 1)
			if out.Source != want || len(out.Servers) != 1 || out.Servers[0].Name != tt.wantServer {
				t.Errorf("source %q, servers %q; want %q with %s\n%s", out.Source, out.names(), want, tt.wantServer, r)
			}
		})
	}
}

// TestConfigNotices checks what is said about the config: that the demo runs, where a
// config was looked for and what to do (once, where it helps: the output of tools,
// status and check, serve's log; a WARN line on every one-shot command before), or the
// file loaded (at info level).
func TestConfigNotices(t *testing.T) {
	t.Parallel()
	t.Run("demo", func(t *testing.T) {
		t.Parallel()
		const notice = "no config found (looked in mcp.json, .mcp.json, .vscode/mcp.json, .cursor/mcp.json, " +
			"~/.config/Claude/claude_desktop_config.json, ~/.cursor/mcp.json); " +
			"using the built-in demo servers clock and notes — point --config at your mcp.json"
		s := newSandbox(t)
		for _, args := range [][]string{{"tools"}, {"status"}, {"check"}} {
			r := s.run(args...)
			r.wantCode(t, exitOK)
			r.wantStdout(t, "\n\n"+notice+"\n")
			if r.stderr != "" {
				t.Errorf("%s: stderr is not empty\n%s", args, r)
			}
		}
		for _, args := range [][]string{{"call", "current_time"}, {"search", "time"}, {"tools", "--json"}, {"status", "--json"}} {
			r := s.run(args...)
			r.wantCode(t, exitOK)
			if strings.Contains(r.stdout+r.stderr, "no config found") {
				t.Errorf("%s says there is no config\n%s", args, r)
			}
		}
		p := startServe(t, s, "", "", "--store", "memory")
		if code := p.stop(t); code != exitOK || !strings.Contains(p.stderr.String(), `"level":"WARN","msg":"`+notice) {
			t.Errorf("serve's log does not say there is no config (exit %d)\n%s", code, p.stderr.String())
		}
	})
	t.Run("project file", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		writeFile(t, filepath.Join(s.Work, ".vscode", "mcp.json"), `{"servers": {"clock": `+demoEntry(t, "clock")+`}}`)
		r := s.run("--log-level", "info", "tools")
		r.wantCode(t, exitOK)
		r.wantStderr(t, `msg="config: .vscode/mcp.json (servers shape, 1 server)"`)
		// check's report names the file already: not twice.
		r = s.run("--log-level", "info", "check")
		r.wantCode(t, exitOK)
		r.wantStdout(t, "config: .vscode/mcp.json (servers)\n")
		if strings.Contains(r.stderr, "config: .vscode/mcp.json") {
			t.Errorf("check names the file on stderr too\n%s", r)
		}
	})
	t.Run("user file", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		writeFile(t, filepath.Join(s.Home, ".cursor", "mcp.json"), `{"mcpServers": {"clock": `+demoEntry(t, "clock")+`, "notes": `+demoEntry(t, "notes")+`}}`)
		r := s.run("--log-level", "info", "tools")
		r.wantCode(t, exitOK)
		r.wantStderr(t, `msg="config: ~/.cursor/mcp.json (Cursor's user config, mcpServers shape, 2 servers)"`)
	})
	t.Run("missing shortcut", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		r := s.run("--config", "claude", "check")
		r.wantCode(t, exitUsage)
		r.wantStderr(t, "switchboard: --config claude: no Claude Desktop config at "+filepath.Join(s.Home, ".config", "Claude", "claude_desktop_config.json"))
	})
}

// TestVSCodeVariables: ${workspaceFolder} is the project holding .vscode/, and
// ${input:ID} comes from $SWITCHBOARD_INPUT_<ID>, is masked as a secret, and without
// it (stdin not a terminal) is an error naming the input and the variable.
func TestVSCodeVariables(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, filepath.Join(s.Work, ".vscode", "mcp.json"), `{
  "inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": true}],
  "servers": {"fs": {"command": "fs-server", "args": ["${workspaceFolder}/data", "--key", "${input:api-key}"]}}
}`)
	r := s.run("check")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, ".vscode/mcp.json:3:91: servers.fs.args[2]: ${input:api-key} has no value: set $SWITCHBOARD_INPUT_API_KEY (stdin is not a terminal to ask on)")

	s.env["SWITCHBOARD_INPUT_API_KEY"] = "inputsecret-Rr5Tt6"
	r = s.run("check")
	r.wantCode(t, exitOK)
	row := strings.Join(tableRows(r.stdout)["fs"], " ")
	if want := "fs stdio enabled fs-server " + s.Work + "/data --key [REDACTED]"; row != want {
		t.Errorf("row = %q, want %q\n%s", row, want, r)
	}
	if strings.Contains(r.stdout+r.stderr, "inputsecret-Rr5Tt6") {
		t.Errorf("output leaks the input value\n%s", r)
	}
}

func TestCheckDidYouMean(t *testing.T) {
	t.Parallel()
	path := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), `{"mcpservers": {"a": {"command": "a"}}}`)
	r := runInProcess(t, "check", "--config", path)
	r.wantCode(t, exitUsage)
	r.wantStderr(t, path+`:1:2: mcpservers: unknown top-level key: did you mean "mcpServers"?`, "1 problem(s) found")
}

// TestInputPrompt answers an ${input:...} on a real terminal: the CLI runs under
// script(1), which gives it a pseudo-terminal as stdin. The prompt goes to the terminal
// (stderr), and the answer is used and masked.
func TestInputPrompt(t *testing.T) {
	scriptBin := scriptCommand(t)
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, filepath.Join(s.Work, ".vscode", "mcp.json"), `{
  "inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": true}],
  "servers": {"fs": {"command": "fs-server", "args": ["--key", "${input:api-key}"]}}
}`)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, scriptBin, "-qec", "'"+testExe(t)+"' check", "/dev/null")
	cmd.Dir = s.Work
	cmd.Env = s.environ("prompt")
	cmd.Stdin = strings.NewReader("typed-Ww3Ee4\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("check under script: %v\n%s", err, out)
	}
	r := result{args: []string{"check"}, stdout: string(out)}
	r.wantStdout(t, `input "api-key" (API key) (shown as you type; $SWITCHBOARD_INPUT_API_KEY avoids typing it): `,
		"fs-server --key [REDACTED]", "ok: 1 server(s)")
	// The terminal echoes what is typed (no golang.org/x/term to turn that off); the
	// CLI itself never prints it.
	if n := strings.Count(string(out), "typed-Ww3Ee4"); n > 1 {
		t.Errorf("the answer appears %d times, want at most the terminal's echo\n%s", n, out)
	}
}

// scriptCommand is util-linux's script(1), which runs a command on a terminal of its
// own: the tests of what the CLI asks a person use it. Elsewhere than Linux they skip.
func scriptCommand(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("uses util-linux script(1) for a terminal")
	}
	bin, err := exec.LookPath("script")
	if err != nil {
		testenv.Missing(t, "script(1) not found: %v", err)
	}
	return bin
}

// TestHelpConfigPlaces: --help and the --config flag's help name every place a config
// is looked for, in discovery's order, from the list discovery follows
// (config.SearchPlaces): they named ./mcp.json only, and "the Claude Desktop and
// Cursor user configs" without saying where. docs/cli.md and docs/config.md list the
// same places.
func TestHelpConfigPlaces(t *testing.T) {
	t.Parallel()
	var places []string
	for _, c := range config.SearchPlaces(nil) {
		places = append(places, tildePath(c.Path))
	}
	if len(places) < 6 {
		t.Fatalf("config.SearchPlaces gave %q, want the 4 project files and the 2 user configs", places)
	}
	inOrder := func(what, text string) {
		t.Helper()
		text = strings.Join(strings.Fields(text), " ") // the help is wrapped
		at := 0
		for _, want := range append([]string{"--config", "claude, cursor or vscode", "$SWITCHBOARD_CONFIG"}, append(places, "built-in demo servers")...) {
			i := strings.Index(text[at:], want)
			if i < 0 {
				t.Errorf("%s does not name %q after what came before:\n%s", what, want, text)
				return
			}
			at += i + len(want)
		}
	}
	r := runInProcess(t, "--help")
	r.wantCode(t, exitOK)
	long, _, _ := strings.Cut(r.stdout, "Usage:")
	inOrder("switchboard --help", long)
	r = runInProcess(t, "tools", "--help")
	r.wantCode(t, exitOK)
	for line := range strings.SplitSeq(r.stdout, "\n") {
		if strings.Contains(line, "--config string") {
			inOrder("the --config flag's help", line)
		}
	}

	root := testenv.ModuleRoot(t)
	cli, err := os.ReadFile(filepath.Join(root, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, goos := range []string{"linux", "darwin"} {
		for _, c := range config.SearchPlaces(&config.DiscoverOptions{GOOS: goos, Home: "~", LookupEnv: func(string) (string, bool) { return "", false }}) {
			want := "`" + c.Path + "`"
			if !strings.Contains(string(doc), want) {
				t.Errorf("docs/config.md does not list %s (%s)", want, goos)
			}
			if c.From == "project" || c.Host == "Cursor" {
				if !strings.Contains(string(cli), want) {
					t.Errorf("docs/cli.md does not list %s", want)
				}
			}
		}
	}
}
