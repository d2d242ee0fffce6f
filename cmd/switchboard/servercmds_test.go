package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// commentedConfig is a config file with comments around the demo clock server.
func commentedConfig(t *testing.T) string {
	return "// my servers: keep this comment\n{\n  \"mcpServers\": {\n    // the clock\n    \"clock\": " + demoEntry(t, "clock") + ", // its line\n  },\n}\n"
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAddThenTools: `switchboard add` puts a server in the config file, its
// comments kept and its --env value never printed, and `switchboard tools` then
// lists the new server's tools; `switchboard remove` gives the file back byte for
// byte.
func TestAddThenTools(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	before := commentedConfig(t)
	cfg := s.writeConfig("mcp.json", before)
	const secret = "s3cr3t-add-value"
	r := s.run("--config", cfg, "add", "notes", "--env", "NOTES_TOKEN="+secret, "--", testExe(t), "demo-server", "notes")
	r.wantCode(t, exitOK)
	r.wantStdout(t, `added "notes"`, "demo-server notes (env: NOTES_TOKEN)", "wrote "+cfg)
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Errorf("add printed the --env value:\n%s", r)
	}
	after := readText(t, cfg)
	for _, kept := range []string{"// my servers: keep this comment\n", "    // the clock\n", ", // its line\n", `"NOTES_TOKEN": "` + secret + `"`} {
		if !strings.Contains(after, kept) {
			t.Errorf("the file after add lacks %q:\n%s", kept, after)
		}
	}

	r = s.run("--config", cfg, "tools")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "put_note", "list_notes", "current_time")

	r = s.run("--config", cfg, "remove", "notes")
	r.wantCode(t, exitOK)
	r.wantStdout(t, `removed "notes"`)
	if got := readText(t, cfg); got != before {
		t.Errorf("the file after remove:\n%s\nwant it as it was:\n%s", got, before)
	}
}

// TestAddFindsTheConfig: without --config, add changes the file the other commands
// read: ./mcp.json, made when there is none, then read by tools in place of the
// demo servers; with $SWITCHBOARD_CONFIG, that file.
func TestAddFindsTheConfig(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	r := s.run("add", "clock", "--", testExe(t), "demo-server", "clock")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "wrote mcp.json (a new file)")
	made := filepath.Join(s.Work, "mcp.json")
	if fi, err := os.Stat(made); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the made config: %v %v, want mode 0600", err, fi)
	}
	r = s.run("tools")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "current_time")
	if strings.Contains(r.stdout, "put_note") || strings.Contains(r.stdout, "built-in demo") {
		t.Errorf("tools ran the demo servers, not the file add made:\n%s", r)
	}

	env := filepath.Join(s.Dir, "env", "team.json")
	s.env["SWITCHBOARD_CONFIG"] = env
	r = s.run("add", "web", "--url", "https://mcp.example.com/mcp", "--header", "Authorization: Bearer tok-header-secret")
	r.wantCode(t, exitOK)
	r.wantStdout(t, `added "web": https://mcp.example.com/mcp (headers: Authorization)`)
	if strings.Contains(r.stdout+r.stderr, "tok-header-secret") {
		t.Errorf("add printed the --header value:\n%s", r)
	}
	if !strings.Contains(readText(t, env), `"Authorization": "Bearer tok-header-secret"`) {
		t.Errorf("$SWITCHBOARD_CONFIG's file:\n%s", readText(t, env))
	}
}

// TestAddRemoveBadInput: a command line add or remove cannot act on is exit 2 with a
// message that says why (never a secret of it), and the file is left as it was.
func TestAddRemoveBadInput(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	before := commentedConfig(t)
	cfg := s.writeConfig("mcp.json", before)
	broken := s.writeConfig("broken.json", `{"mcpServers": {"x": {"command": 3}}}`)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no name", []string{"add"}, "want the server's NAME"},
		{"no command", []string{"add", "x"}, "want the server's command after -- or its --url"},
		{"no dash", []string{"add", "x", "npx", "thing"}, "put the server's command after --: switchboard add x -- npx thing"},
		{"both", []string{"add", "x", "--url", "https://a.example/mcp", "--", "npx"}, "not both"},
		{"env on url", []string{"add", "x", "--url", "https://a.example/mcp", "--env", "A=b"}, "--env and --cwd are a command's"},
		{"header on command", []string{"add", "x", "--header", "A: b", "--", "npx"}, "--header and --oauth are a --url server's"},
		{"bad env", []string{"add", "x", "--env", "s3cret-no-equals", "--", "npx"}, `--env: want K=V, got a value without "="`},
		{"bad env name", []string{"add", "x", "--env", "1A=s3cret", "--", "npx"}, "a variable's name is letters"},
		{"bad header", []string{"add", "x", "--url", "https://a.example/mcp", "--header", "s3cret"}, "--header: want 'Name: value'"},
		{"twice", []string{"add", "x", "--env", "A=s3cret", "--env", "A=s3cret2", "--", "npx"}, "A given twice"},
		{"exists", []string{"add", "clock", "--", "npx"}, `"clock" is in ` + cfg + ` already: choose another name, or 'switchboard remove clock' first`},
		{"bad name", []string{"add", "a b", "--", "npx"}, `name "a b": use letters`},
		{"bad url", []string{"add", "x", "--url", "ftp://s3cret@a.example"}, `server "x": url`},
		{"oauth and token", []string{"add", "x", "--url", "https://a.example/mcp", "--oauth", "--header", "Authorization: Bearer s3cret"}, "oauth"},
		{"remove unknown", []string{"remove", "nope"}, `no server "nope"`},
		{"remove no name", []string{"remove"}, "want the server's NAME"},
		{"broken file", []string{"--config", broken, "add", "y", "--", "npx"}, "does not load as it is now"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if args[0] != "--config" {
				args = append([]string{"--config", cfg}, args...)
			}
			r := runInProcess(t, args...)
			r.wantCode(t, exitUsage)
			r.wantStderr(t, c.want)
			if strings.Contains(r.stdout+r.stderr, "s3cret") {
				t.Errorf("a secret of the command line was printed:\n%s", r)
			}
			if got := readText(t, cfg); got != before {
				t.Errorf("a refused command changed the file:\n%s", got)
			}
		})
	}
}

// codexTOML is a Codex config of two servers; %s is docs' API key.
const codexTOML = `model = "o3"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env = { API_KEY = "%s" }
startup_timeout_sec = 20

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_TOKEN"
`

// TestImportCodex: `import codex --dry-run` shows the servers of ~/.codex/config.toml
// (their secrets masked) and writes nothing; a name the config has with another
// entry is refused off a terminal (exit 2, nothing written) until --skip, --replace
// or --rename says what to do.
func TestImportCodex(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	codex := filepath.Join(s.Home, ".codex", "config.toml")
	writeFile(t, codex, strings.Replace(codexTOML, "%s", "codex-key-1", 1))

	r := s.run("import", "codex", "--dry-run")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "read "+filepath.Join("~", ".codex", "config.toml")+" (Codex)",
		"add       docs", "npx -y docs-mcp (env: API_KEY)",
		"add       figma", "https://mcp.figma.com/mcp (headers: Authorization)",
		"dry run: mcp.json not written (it would be: 2 added)")
	if strings.Contains(r.stdout+r.stderr, "codex-key-1") {
		t.Errorf("import printed a secret:\n%s", r)
	}
	made := filepath.Join(s.Work, "mcp.json")
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Fatalf("a dry run made %s: %v", made, err)
	}

	r = s.run("import", "codex")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "wrote mcp.json, a new file (2 added)")
	first := readText(t, made)

	writeFile(t, codex, strings.Replace(codexTOML, "%s", "codex-key-2", 1))
	r = s.run("import", "codex")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, `"docs" is in the config already, with another entry`, "--replace, --skip or --rename", "nothing written")
	if readText(t, made) != first {
		t.Fatal("a refused import changed the file")
	}
	r = s.run("import", "codex", "--skip", "--rename")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "do not go together")

	r = s.run("import", "codex", "--rename")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "rename    docs-codex (was docs)", "unchanged figma", "(1 renamed, 1 unchanged)")
	if got := readText(t, made); !strings.Contains(got, `"API_KEY": "codex-key-1"`) || !strings.Contains(got, `"API_KEY": "codex-key-2"`) {
		t.Errorf("after --rename the file has not both:\n%s", got)
	}

	r = s.run("import", "cursor")
	r.wantCode(t, exitUsage)
	r.wantStderr(t, "no Cursor config found (looked in "+filepath.Join(".cursor", "mcp.json"))
}

// TestServePicksUpAddedServer: a running serve, following its config file, starts
// the server that `switchboard add` puts there, and its tools join the catalog.
func TestServePicksUpAddedServer(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	cfg := s.writeConfig("mcp.json", commentedConfig(t))
	p := startServe(t, s, cfg, "tok-add-Qq3", "--store", "memory", "--watch", "100ms")
	p.waitHealthy(t)
	if _, body := p.do(t, "GET", "/v1/tools", ""); strings.Contains(body, "put_note") {
		t.Fatalf("put_note before the add: %s", body)
	}
	r := s.run("--config", cfg, "add", "notes", "--", testExe(t), "demo-server", "notes")
	r.wantCode(t, exitOK)
	testenv.WaitFor(t, "the added server's tools in serve's catalog", 30*time.Second, func() bool {
		_, body := p.do(t, "GET", "/v1/tools", "")
		return strings.Contains(body, "put_note")
	})
	r = s.run("--config", cfg, "remove", "notes")
	r.wantCode(t, exitOK)
	testenv.WaitFor(t, "the removed server's tools gone from serve's catalog", 30*time.Second, func() bool {
		_, body := p.do(t, "GET", "/v1/tools", "")
		return !strings.Contains(body, "put_note") && strings.Contains(body, "current_time")
	})
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM\n%s", code, p.stderr.String())
	}
}

// TestImportAsksOnTerminal: on a terminal (script(1) gives the CLI one), import asks
// what to do with a clash, naming the field that differs and never a secret, and
// does what the answer says; an answer it does not know is asked again, and the
// end of stdin aborts with nothing written.
func TestImportAsksOnTerminal(t *testing.T) {
	scriptBin := scriptCommand(t)
	t.Parallel()
	s := newSandbox(t)
	writeFile(t, filepath.Join(s.Home, ".codex", "config.toml"), strings.Replace(codexTOML, "%s", "codex-key-Tt5", 1))
	cfg := writeFile(t, filepath.Join(s.Work, "mcp.json"), `{"mcpServers": {"docs": {"command": "npx", "args": ["-y", "docs-mcp"], "env": {"API_KEY": "file-key-Yy6"}}}}`)
	before := readText(t, cfg)
	terminal := func(answers string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, scriptBin, "-qec", "'"+testExe(t)+"' import codex", "/dev/null")
		cmd.Dir = s.Work
		cmd.Env = s.environ("import-terminal")
		cmd.Stdin = strings.NewReader(answers)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := terminal("what\n")
	if err == nil {
		t.Fatalf("import with no answer at the end of stdin succeeded:\n%s", out)
	}
	r := result{args: []string{"import", "codex"}, stdout: out}
	r.wantStdout(t, `"docs" is in the config already, with another entry (it differs in env.API_KEY, timeout)`,
		"the config's: npx -y docs-mcp (env: API_KEY)", "codex's: npx -y docs-mcp (env: API_KEY)",
		`re[n]ame the imported one to "docs-codex"`, "import aborted: nothing written")
	if n := strings.Count(out, "[k]eep the config's"); n != 2 {
		t.Errorf("asked %d times, want twice (an unknown answer asks again):\n%s", n, out)
	}
	if readText(t, cfg) != before {
		t.Fatal("an aborted import changed the file")
	}

	out, err = terminal("r\n")
	if err != nil {
		t.Fatalf("import, answered replace: %v\n%s", err, out)
	}
	r = result{args: []string{"import", "codex"}, stdout: out}
	r.wantStdout(t, "replace   docs", "add       figma", "wrote mcp.json (1 added, 1 replaced)")
	if strings.Contains(out, "codex-key-Tt5") || strings.Contains(out, "file-key-Yy6") {
		t.Errorf("the terminal shows a secret:\n%s", out)
	}
	if got := readText(t, cfg); !strings.Contains(got, `"API_KEY": "codex-key-Tt5"`) || strings.Contains(got, "file-key-Yy6") {
		t.Errorf("after replace:\n%s", got)
	}
}
