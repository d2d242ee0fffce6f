package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// checkOutput is the shape of `check --json`.
type checkOutput struct {
	Source  string `json:"source"`
	Shape   string `json:"shape"`
	Servers []struct {
		Name      string `json:"name"`
		Transport string `json:"transport"`
		Target    string `json:"target"`
		Disabled  bool   `json:"disabled"`
		Required  bool   `json:"required"`
	} `json:"servers"`
	Skipped  []string `json:"skipped"`
	Warnings []string `json:"warnings"`
}

func parseCheck(t testing.TB, r result) checkOutput {
	t.Helper()
	var out checkOutput
	decodeJSON(t, r.stdout, &out)
	return out
}

func (c checkOutput) names() []string {
	var names []string
	for _, s := range c.Servers {
		names = append(names, s.Name)
	}
	return names
}

// tableRows returns the rows of a command's table (the lines after the header that
// starts with SERVER or TOOL), split into fields and keyed by their first field.
func tableRows(stdout string) map[string][]string {
	rows := map[string][]string{}
	in := false
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		switch {
		case !in:
			in = len(f) > 0 && (f[0] == "SERVER" || f[0] == "TOOL")
		case len(f) == 0 || strings.HasSuffix(f[0], ":") || (len(f) > 1 && (f[1] == "tools" || f[1] == "tool")):
			return rows // the summary lines after the table
		default:
			rows[f[0]] = f
		}
	}
	return rows
}

func TestCheckDemo(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	exe := testExe(t)

	r := s.run("check")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "config: <built-in demo> (demo)\n", "ok: 2 server(s), 0 disabled, 0 warning(s)")
	rows := tableRows(r.stdout)
	for _, name := range []string{"clock", "notes"} {
		want := []string{name, "stdio", "enabled", exe, "demo-server", name}
		if !slices.Equal(rows[name], want) {
			t.Errorf("row for %s = %q, want %q\n%s", name, rows[name], want, r)
		}
	}

	r = s.run("check", "--json")
	r.wantCode(t, exitOK)
	// Lists are arrays even when empty, never null.
	r.wantStdout(t, `"skipped": []`, `"warnings": []`)
	out := parseCheck(t, r)
	if out.Source != "<built-in demo>" || out.Shape != "demo" || !slices.Equal(out.names(), []string{"clock", "notes"}) {
		t.Errorf("check --json = %+v", out)
	}
	for _, srv := range out.Servers {
		if srv.Transport != "stdio" || srv.Target != exe+" demo-server "+srv.Name || srv.Disabled || srv.Required {
			t.Errorf("demo server %+v", srv)
		}
	}
}

func TestCheckShapes(t *testing.T) {
	t.Parallel()
	type server struct{ name, transport, state, target string }
	tests := []struct {
		name     string
		src      string
		shape    string
		servers  []server
		skipped  []string
		warnings []string // each a substring of one warning, in order
	}{
		{
			name: "mcpServers",
			src: `{"mcpServers": {
				"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
				"web": {"url": "https://example.com/mcp", "required": true},
				"legacy": {"url": "https://example.com/sse"},
				"switchboard": {"command": "switchboard", "args": ["serve"]}
			}}`,
			shape: "mcpServers",
			servers: []server{
				{"fs", "stdio", "enabled", "npx -y @modelcontextprotocol/server-filesystem /tmp"},
				{"web", "http", "required", "https://example.com/mcp"},
				{"legacy", "sse", "enabled", "https://example.com/sse"},
			},
			skipped: []string{"switchboard"},
		},
		{
			name: "servers with inputs",
			src: `{
				"inputs": [{"type": "promptString", "id": "key", "password": true, "default": "k"}],
				"servers": {
					"gh": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${input:key}"}},
					"local": {"type": "stdio", "command": "local-mcp", "args": ["--verbose"]}
				}
			}`,
			shape: "servers",
			servers: []server{
				{"gh", "http", "enabled", "https://api.example.com/mcp"},
				{"local", "stdio", "enabled", "local-mcp --verbose"},
			},
		},
		{
			name: "services",
			src: `{"services": {
				"old": {"command": "old-server"},
				"off": {"command": "x", "enabled": false},
				"events": {"url": "http://localhost:9000/events", "transport": "sse"}
			}}`,
			shape: "services",
			servers: []server{
				{"old", "stdio", "enabled", "old-server"},
				{"off", "stdio", "disabled", "x"},
				{"events", "sse", "enabled", "http://localhost:9000/events"},
			},
		},
		{
			name:  "bare map",
			src:   `{"one": {"command": "a"}, "two": {"url": "http://localhost:3000/sse"}, "three": {"type": "streamable-http", "url": "http://localhost:3000/x"}}`,
			shape: "bare",
			servers: []server{
				{"one", "stdio", "enabled", "a"},
				{"two", "sse", "enabled", "http://localhost:3000/sse"},
				{"three", "http", "enabled", "http://localhost:3000/x"},
			},
		},
		{
			name: "jsonc",
			src: `// Cursor-style config with comments
{
  /* block comment */
  "mcpServers": {
    "clock": {
      "command": "clock-server", // trailing comment
      "args": ["--tz", "UTC",],
      "disabled": true,
    },
    "remote": {"url": "https://mcp.example.com/mcp",},
  },
}
`,
			shape: "mcpServers",
			servers: []server{
				{"clock", "stdio", "disabled", "clock-server --tz UTC"},
				{"remote", "http", "enabled", "https://mcp.example.com/mcp"},
			},
		},
		{
			name:     "empty",
			src:      `{"mcpServers": {}}`,
			shape:    "mcpServers",
			warnings: []string{"no servers configured"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), tt.src)

			// Text.
			r := runInProcess(t, "check", "--config", path)
			r.wantCode(t, exitOK)
			r.wantStdout(t, "config: "+path+" ("+tt.shape+")")
			rows := tableRows(r.stdout)
			if len(rows) != len(tt.servers) {
				t.Errorf("want %d server rows, got %q\n%s", len(tt.servers), rows, r)
			}
			disabled := 0
			for _, s := range tt.servers {
				want := append([]string{s.name, s.transport, s.state}, strings.Fields(s.target)...)
				if !slices.Equal(rows[s.name], want) {
					t.Errorf("row for %s = %q, want %q\n%s", s.name, rows[s.name], want, r)
				}
				if s.state == "disabled" {
					disabled++
				}
			}
			for _, name := range tt.skipped {
				r.wantStdout(t, "skipped: "+name+" (names this gateway)")
			}
			for _, w := range tt.warnings {
				r.wantStdout(t, "warning: ")
				r.wantStdout(t, w)
			}
			r.wantStdout(t, "ok: "+strconv.Itoa(len(tt.servers))+" server(s), "+strconv.Itoa(disabled)+" disabled, "+strconv.Itoa(len(tt.warnings))+" warning(s)")

			// JSON.
			r = runInProcess(t, "-c", path, "check", "--json")
			r.wantCode(t, exitOK)
			out := parseCheck(t, r)
			if out.Source != path || out.Shape != tt.shape {
				t.Errorf("source, shape = %q, %q; want %q, %q", out.Source, out.Shape, path, tt.shape)
			}
			if len(out.Servers) != len(tt.servers) {
				t.Fatalf("want %d servers, got %+v", len(tt.servers), out.Servers)
			}
			for i, s := range tt.servers {
				got := out.Servers[i]
				if got.Name != s.name || got.Transport != s.transport || got.Target != s.target ||
					got.Disabled != (s.state == "disabled") || got.Required != (s.state == "required") {
					t.Errorf("server %d = %+v, want %+v", i, got, s)
				}
			}
			if !slices.Equal(out.Skipped, tt.skipped) {
				t.Errorf("skipped = %q, want %q", out.Skipped, tt.skipped)
			}
			if len(out.Warnings) != len(tt.warnings) {
				t.Errorf("warnings = %q, want %d", out.Warnings, len(tt.warnings))
			} else {
				for i, w := range tt.warnings {
					if !strings.Contains(out.Warnings[i], w) {
						t.Errorf("warning %d = %q, want it to contain %q", i, out.Warnings[i], w)
					}
				}
			}
		})
	}
}

// TestCheckOutput covers what a newcomer first sees: each warning once (in the report,
// not also in the log), variables that are not secrets shown expanded, and lists that
// are JSON arrays when empty.
func TestCheckOutput(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.env["SB_TOKEN"] = "tok-Hh5Jj8Kk2"
	path := s.writeConfig("mcp.json", `{"mcpServers": {
  "fs": {"command": "fs-server", "args": ["${HOME}/data", "--token", "${SB_TOKEN}"], "colour": "red"}
}}`)
	r := s.run("--config", path, "check")
	r.wantCode(t, exitOK)
	warning := path + ":2:86: mcpServers.fs.colour: unknown field (ignored)"
	if n := strings.Count(r.stdout+r.stderr, warning); n != 1 {
		t.Errorf("the warning is printed %d times, want once\n%s", n, r)
	}
	r.wantStdout(t, "warning: "+warning)
	// ${HOME} is a path, not a secret; a variable named like a token is masked.
	row := strings.Join(tableRows(r.stdout)["fs"], " ")
	if want := "fs stdio enabled fs-server " + s.Home + "/data --token [REDACTED]"; row != want {
		t.Errorf("row = %q, want %q\n%s", row, want, r)
	}
	if strings.Contains(r.stdout+r.stderr, "tok-Hh5Jj8Kk2") {
		t.Errorf("output leaks the token\n%s", r)
	}

	r = s.run("--config", path, "check", "--json")
	r.wantCode(t, exitOK)
	r.wantStdout(t, `"skipped": []`)
	if strings.Contains(r.stderr, warning) {
		t.Errorf("check --json logs the warning it reports\n%s", r)
	}
	if out := parseCheck(t, r); len(out.Warnings) != 1 || out.Warnings[0] != warning {
		t.Errorf("warnings = %q", out.Warnings)
	}
}

// TestCheckTypos: a field one typo from a known one is refused with its place and
// the field meant (exit 2), where it was a warning and the server meant disabled ran;
// "comand" says "did you mean", not only that "command" is required; a field far from
// any stays a warning, now at its place.
func TestCheckTypos(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	path := s.writeConfig("mcp.json", `{"mcpServers": {
  "fs": {"command": "fs-server", "disabeld": true},
  "web": {"comand": "web-server"}
}}`)
	for _, cmd := range [][]string{{"check"}, {"tools"}} {
		r := s.run(append([]string{"--config", path}, cmd...)...)
		r.wantCode(t, exitUsage)
		r.wantStderr(t, path+`:2:34: mcpServers.fs.disabeld: unknown field: did you mean "disabled"?`,
			path+`:3:11: mcpServers.web.comand: unknown field: did you mean "command"?`)
		if strings.Contains(r.stderr, "is required") {
			t.Errorf("%s: the typo of command is also said to be a missing command\n%s", cmd, r)
		}
	}

	path = s.writeConfig("far.json", `{"mcpServers": {"fs": {"command": "fs-server", "colour": "red"}}}`)
	r := s.run("--config", path, "check")
	r.wantCode(t, exitOK)
	r.wantStdout(t, "warning: "+path+":1:48: mcpServers.fs.colour: unknown field (ignored)")
}

var problemLineRE = regexp.MustCompile(`^(.+):(\d+):(\d+): (\S+): (.+)$`)

func TestCheckReportsEveryProblem(t *testing.T) {
	t.Parallel()
	path := writeFile(t, filepath.Join(t.TempDir(), "bad.json"), `{
  "mcpServers": {
    "nocmd": {"args": ["x"]},
    "badtype": {"command": "x", "type": "carrier-pigeon"},
    "both": {"command": "x", "url": "http://h/mcp"},
    "badtimeout": {"command": "x", "timeout": "soon"},
    "badscheme": {"url": "ftp://h/mcp"},
    "fine": {"command": "ok"}
  }
}
`)
	want := []string{
		path + `:3:14: mcpServers.nocmd: "command" or "url" is required`,
		path + `:4:41: mcpServers.badtype.type: unknown transport "carrier-pigeon" (want stdio, http or sse)`,
		path + `:5:13: mcpServers.both: "command" and "url" are mutually exclusive`,
		path + `:6:47: mcpServers.badtimeout.timeout: "soon" is not a duration`,
		path + `:7:26: mcpServers.badscheme.url: unsupported scheme (want http or https)`,
	}
	r := runInProcess(t, "check", "--config", path)
	r.wantCode(t, exitUsage)
	if r.stdout != "" {
		t.Errorf("unexpected stdout\n%s", r)
	}
	lines := nonEmptyLines(r.stderr)
	if len(lines) != len(want)+1 {
		t.Fatalf("want %d problems and a summary\n%s", len(want), r)
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("problem %d:\n got %s\nwant %s", i, lines[i], w)
		}
		if !problemLineRE.MatchString(lines[i]) {
			t.Errorf("problem %d is not file:line:col: path: message: %s", i, lines[i])
		}
	}
	if last := lines[len(lines)-1]; last != "5 problem(s) found" {
		t.Errorf("summary = %q", last)
	}
	if strings.Contains(r.stderr, helpHint) {
		t.Errorf("a config error is not a command-line mistake: no --help hint\n%s", r)
	}

	// Every command that loads the config stops at the same problems, before starting
	// anything.
	for _, args := range [][]string{{"tools"}, {"status"}, {"call", "echo"}} {
		r := runInProcess(t, append([]string{"--config", path}, args...)...)
		r.wantCode(t, exitUsage)
		r.wantStderr(t, want...)
	}
}

func TestCheckSyntaxError(t *testing.T) {
	t.Parallel()
	path := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), "{\"mcpServers\": {\"a\": {\"command\": \"x\"}\n  \"b\": {}}}\n")
	r := runInProcess(t, "check", "--config", path)
	r.wantCode(t, exitUsage)
	r.wantStderr(t, path+`:2:3: invalid character '"' after object key:value pair`, "1 problem(s) found")
}

func TestCheckMissingFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "does-not-exist.json")
	for _, cmd := range []string{"check", "tools"} {
		r := runInProcess(t, cmd, "--config", path)
		r.wantCode(t, exitUsage)
		r.wantStderr(t, path, "no such file or directory")
	}
}

// TestConfigResolution checks the order --config > $SWITCHBOARD_CONFIG > ./mcp.json >
// built-in demo, with real processes whose environment and working directory are known.
func TestConfigResolution(t *testing.T) {
	t.Parallel()
	config := func(name string) string {
		return `{"mcpServers": {"` + name + `": {"command": "` + name + `-server"}}}`
	}
	tests := []struct {
		name       string
		flag, env  bool // pass --config, set $SWITCHBOARD_CONFIG
		cwd        bool // write ./mcp.json
		wantSource string
		wantServer string
	}{
		{"demo when nothing is given", false, false, false, "<built-in demo>", "clock"},
		{"./mcp.json", false, false, true, "mcp.json", "fromcwd"},
		{"env over ./mcp.json", false, true, true, "ENV", "fromenv"},
		{"env alone", false, true, false, "ENV", "fromenv"},
		{"flag over env and ./mcp.json", true, true, true, "FLAG", "fromflag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			var args []string
			envPath := s.writeConfig("env.json", config("fromenv"))
			flagPath := s.writeConfig("flag.json", config("fromflag"))
			if tt.cwd {
				writeFile(t, filepath.Join(s.Work, "mcp.json"), config("fromcwd"))
			}
			if tt.env {
				s.env["SWITCHBOARD_CONFIG"] = envPath
			}
			if tt.flag {
				args = append(args, "--config", flagPath)
			}
			r := s.run(append(args, "check", "--json")...)
			r.wantCode(t, exitOK)
			out := parseCheck(t, r)
			want := strings.NewReplacer("ENV", envPath, "FLAG", flagPath).Replace(tt.wantSource)
			if out.Source != want || len(out.Servers) == 0 || out.Servers[0].Name != tt.wantServer {
				t.Errorf("source %q, servers %q; want %q with %s", out.Source, out.names(), want, tt.wantServer)
			}
		})
	}
	t.Run("broken env config does not fall back", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		missing := filepath.Join(s.Dir, "missing.json")
		s.env["SWITCHBOARD_CONFIG"] = missing
		writeFile(t, filepath.Join(s.Work, "mcp.json"), config("fromcwd"))
		r := s.run("check")
		r.wantCode(t, exitUsage)
		r.wantStderr(t, missing+": open: no such file or directory")
	})
	t.Run("broken ./mcp.json does not fall back", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		writeFile(t, filepath.Join(s.Work, "mcp.json"), `{"mcpServers": {"x": {}}}`)
		r := s.run("tools")
		r.wantCode(t, exitUsage)
		r.wantStderr(t, `mcp.json:1:22: mcpServers.x: "command" or "url" is required`)
	})
}

// TestSecretsNeverPrinted runs check, tools and status at debug level on a config full
// of secrets (env values, header values, a token in a URL, a value from the
// environment) and looks for them in everything the CLI printed.
func TestSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	const (
		envSecret    = "envsecret-Zq9Xk2Lw7"
		fromEnv      = "fromenv-Vv8Gg1Hh4" // the value of $SB_E2E_SECRET
		headerSecret = "hdrsecret-Mm3Nn6Bb5"
		apiKey       = "xkeysecret-Jj2Kk5Ll"
		urlToken     = "urltok-Pp4Hh8Rr1"
		downToken    = "downtok-Cc7Dd9Ff2"
	)
	secrets := []string{envSecret, fromEnv, headerSecret, apiKey, urlToken, downToken}
	// A working HTTP server that insists on the API key, so the secret header is used.
	base := testserver.StartHTTP(t, "--require-header", "X-Api-Key="+apiKey)

	s := newSandbox(t)
	s.env["SB_E2E_SECRET"] = fromEnv
	path := s.writeConfig("mcp.json", `{"mcpServers": {
  "clock": `+demoEntry(t, "clock", `"env": {"API_TOKEN": "`+envSecret+`", "FROM_ENV": "${SB_E2E_SECRET}", "MAYBE": "${SB_E2E_MISSING}"}`)+`,
  "remote": {"url": "`+base+`/mcp?token=`+urlToken+`", "headers": {"Authorization": "Bearer `+headerSecret+`", "X-Api-Key": "`+apiKey+`"}},
  "down": {"url": "http://127.0.0.1:1/mcp?token=`+downToken+`", "headers": {"X-Api-Key": "${SB_E2E_SECRET}"}, "timeout": "1s"}
}}`)
	const missingWarning = `mcpServers.clock.env.MAYBE: ${SB_E2E_MISSING} is not set`

	tests := []struct {
		args       []string
		code       int
		wantStdout []string
		wantStderr []string
	}{
		{[]string{"check"}, exitOK, []string{"warning: " + missingWarning, "remote", "down"}, nil},
		{[]string{"check", "--json"}, exitOK, []string{missingWarning}, nil},
		{[]string{"tools"}, exitOK, []string{"current_time", "echo"}, []string{missingWarning, "server=down", "connection attempt failed"}},
		{[]string{"tools", "--json"}, exitOK, []string{"current_time"}, []string{missingWarning}},
		{[]string{"status", "--json"}, exitFailed, []string{`"name": "down"`, "127.0.0.1:1"}, []string{missingWarning}}, // down is not ready
		{[]string{"--log-format", "json", "status"}, exitFailed, []string{"down"}, []string{"SB_E2E_MISSING"}},
		{[]string{"call", "echo", `{"text": "hi"}`}, exitOK, []string{"hi"}, []string{missingWarning}},
	}
	// The runs share the sandbox, the config and the HTTP server, and write nothing
	// (the config has no notes server): they may run at once.
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--config", path, "--log-level", "debug"}, tt.args...)
			r := s.forTest(t).run(args...)
			r.wantCode(t, tt.code)
			r.wantStdout(t, tt.wantStdout...)
			r.wantStderr(t, tt.wantStderr...)
			for _, secret := range secrets {
				if strings.Contains(r.stdout, secret) {
					t.Errorf("stdout leaks %q\n%s", secret, r)
				}
				if strings.Contains(r.stderr, secret) {
					t.Errorf("stderr leaks %q\n%s", secret, r)
				}
			}
		})
	}
}

// TestSecretsInURLs covers credentials in a URL that are neither registered secrets nor
// named like tokens: a password and arbitrary query parameters (signed URLs, ?key=).
// check masks them, but the connection errors of an unreachable server carry the raw
// URL into the logs and into status's error column.
func TestSecretsInURLs(t *testing.T) {
	t.Parallel()
	const (
		password = "pw-Uu7Yy3Tt"
		key      = "keysecret-Qq1Ww2"
		sig      = "sigsecret-Ee3Rr4"
	)
	s := newSandbox(t)
	path := s.writeConfig("mcp.json", `{"mcpServers": {
  "down": {"url": "http://bob:`+password+`@127.0.0.1:1/mcp?key=`+key+`&sig=`+sig+`", "timeout": "1s"}
}}`)
	// The runs only read the sandbox and the config: they may run at once.
	for _, args := range [][]string{{"check"}, {"status"}, {"status", "--json"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := s.forTest(t).run(append([]string{"--config", path, "--log-level", "debug"}, args...)...)
			if args[0] == "status" {
				r.wantCode(t, exitFailed) // down is not ready
			} else {
				r.wantCode(t, exitOK)
			}
			for _, secret := range []string{password, key, sig} {
				if strings.Contains(r.stdout+r.stderr, secret) {
					t.Errorf("output leaks %q\n%s", secret, r)
				}
			}
		})
	}
}
