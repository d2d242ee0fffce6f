package main

// End-to-end tests of the switchboard CLI.
//
// The test binary doubles as the CLI: when childEnv is set (or its first argument is
// "demo-server", which is how the built-in demo config starts its servers from
// os.Executable()), TestMain runs main() instead of the tests. Subprocess tests run it
// with a fresh HOME, XDG dirs, notes file and working directory, and after every run
// scan /proc for processes that carry the run's unique marker variable: a live one is
// a process the CLI left behind.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

const (
	// childEnv turns the test binary into the switchboard CLI.
	childEnv = "SWITCHBOARD_TEST_CLI"
	// markerEnv carries a value unique to one CLI run, inherited by everything it starts.
	markerEnv = "SWITCHBOARD_TEST_MARKER"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" || (len(os.Args) > 1 && os.Args[1] == "demo-server") {
		main() // exits
	}
	// A race-enabled binary sleeps a second before a clean exit (GORACE atexit_sleep_ms)
	// to let late races be reported. Every CLI run and every demo server it starts is
	// this binary, so skip the sleep in the children, which inherit this environment.
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
	}
	// In-process runs start and close hubs; nothing of theirs may outlive them.
	os.Exit(testenv.Main(m))
}

// testExe is the path of the test binary, which is also the CLI (see TestMain).
func testExe(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("os.Executable: %v", err)
	}
	return exe
}

// result is what one CLI run produced.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("switchboard %s: exit %d\n--- stdout:\n%s--- stderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// wantCode fails the test unless the run exited with code.
func (r result) wantCode(t testing.TB, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got %d\n%s", code, r.code, r)
	}
}

// wantIn fails the test unless every sub appears in s (the named stream of r).
func (r result) wantIn(t testing.TB, stream, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q\n%s", stream, sub, r)
		}
	}
}

func (r result) wantStdout(t testing.TB, subs ...string) {
	t.Helper()
	r.wantIn(t, "stdout", r.stdout, subs...)
}

func (r result) wantStderr(t testing.TB, subs ...string) {
	t.Helper()
	r.wantIn(t, "stderr", r.stderr, subs...)
}

// runInProcess calls run() directly: cheap, and counted by -cover.
func runInProcess(t testing.TB, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	return result{args: args, code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// sandbox is a fresh user environment for CLI subprocesses (see [testenv.Sandbox]),
// with the test that runs them and extra variables.
type sandbox struct {
	*testenv.Sandbox
	t   testing.TB
	env map[string]string // more variables of every run; they win over the sandbox's
	// onStart, if set, is called on the test's goroutine with each CLI process once it
	// has started, and with its stderr so far.
	onStart func(cli *os.Process, stderr *testenv.Buffer)
}

var runSeq atomic.Int64

func newSandbox(t testing.TB) *sandbox {
	t.Helper()
	return &sandbox{Sandbox: testenv.NewSandbox(t), t: t, env: map[string]string{}}
}

// forTest returns s for use by t, a subtest of the test that made s: the runs share
// s's directories and variables but report to t. The subtests of one sandbox may run
// in parallel as long as none of them changes s.env.
func (s *sandbox) forTest(t testing.TB) *sandbox {
	c := *s
	c.t = t
	return &c
}

// environ is the environment of one run, with marker as its marker value.
func (s *sandbox) environ(marker string) []string {
	extra := []string{childEnv + "=1", markerEnv + "=" + marker}
	for k, v := range s.env {
		extra = append(extra, k+"="+v)
	}
	return s.Env(extra...)
}

// command returns the CLI as a subprocess in the sandbox, not yet started, killed if
// ctx ends first; and the marker value that it and every process it starts carry
// (see [marked]).
func (s *sandbox) command(ctx context.Context, args ...string) (*exec.Cmd, string) {
	marker := fmt.Sprintf("%d.%d", os.Getpid(), runSeq.Add(1))
	cmd := exec.CommandContext(ctx, testExe(s.t), args...)
	cmd.Dir = s.Work
	cmd.Env = s.environ(marker)
	return cmd, marker
}

// run runs the CLI as a subprocess with no stdin.
func (s *sandbox) run(args ...string) result {
	s.t.Helper()
	return s.runStdin(nil, args...)
}

// runStdin runs the CLI as a subprocess, waits for it, and fails the test if any
// process it started is still alive once it has exited.
func (s *sandbox) runStdin(stdin *string, args ...string) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd, marker := s.command(ctx, args...)
	if stdin != nil {
		cmd.Stdin = strings.NewReader(*stdin)
	}
	var stdout bytes.Buffer
	var stderr testenv.Buffer // read by onStart while the CLI runs
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Start()
	if err == nil {
		// Should onStart stop the test (t.Fatal), the CLI is killed and reaped all the same.
		defer func() {
			if cmd.ProcessState == nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		}()
		if s.onStart != nil {
			s.onStart(cmd.Process, &stderr)
		}
		err = cmd.Wait()
	}
	res := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		s.t.Fatalf("switchboard %s: no exit within 45s\n%s", strings.Join(args, " "), res)
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		s.t.Fatalf("running switchboard %s: %v", strings.Join(args, " "), err)
	}
	s.t.Logf("switchboard %s: exit %d in %v", strings.Join(args, " "), res.code, time.Since(start).Round(time.Millisecond))
	left := marked(marker)
	if res.code == -1 {
		// Killed by a signal: the kernel's Pdeathsig to the children is sent as the CLI
		// dies but acted on when each child next runs, so give them a moment to go. A
		// CLI that exits by itself has waited for its children: no grace there.
		for deadline := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = marked(marker) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if len(left) > 0 {
		s.t.Errorf("switchboard %s left processes running:\n%s\n%s", strings.Join(args, " "), strings.Join(left, "\n"), res)
	}
	return res
}

// writeConfig writes content to name in the sandbox and returns its path.
func (s *sandbox) writeConfig(name, content string) string {
	s.t.Helper()
	return writeFile(s.t, filepath.Join(s.Dir, name), content)
}

func writeFile(t testing.TB, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// marked lists the live processes (not zombies) whose environment holds
// markerEnv=marker, as "pid: cmdline".
func marked(marker string) []string {
	if runtime.GOOS != "linux" {
		return nil
	}
	needle := []byte("\x00" + markerEnv + "=" + marker + "\x00")
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue // gone, or not ours
		}
		env = append(append([]byte{0}, env...), 0)
		if !bytes.Contains(env, needle) || !testserver.ProcessAlive(pid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, fmt.Sprintf("%d: %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
	}
	return out
}

// jsonString quotes s for a JSON config.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// demoEntry is a config entry that runs a built-in demo server from the test binary,
// with extra members (`"env": {...}`) appended.
func demoEntry(t testing.TB, name string, extra ...string) string {
	t.Helper()
	members := append([]string{
		`"command": ` + jsonString(testExe(t)),
		`"args": ["demo-server", ` + jsonString(name) + `]`,
	}, extra...)
	return "{" + strings.Join(members, ", ") + "}"
}

// decodeJSON parses s into v, failing the test on error.
func decodeJSON(t testing.TB, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
	if dec.More() {
		t.Fatalf("trailing data after the JSON value:\n%s", s)
	}
}

// TestMarkerScan checks the orphan detector itself, so that a broken scan cannot make
// every "no processes left" check pass for nothing.
func TestMarkerScan(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the scan reads /proc")
	}
	t.Parallel()
	marker := fmt.Sprintf("%d.self-test", os.Getpid())
	// A demo server, as the CLI would start it: it runs until its stdin closes.
	cmd := exec.Command(testExe(t), "demo-server", "clock")
	cmd.Env = append(os.Environ(), markerEnv+"="+marker, childEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	testenv.WaitFor(t, fmt.Sprintf("the scan to find the running demo server %d, and it alone", cmd.Process.Pid), 5*time.Second, func() bool {
		left := marked(marker)
		return len(left) == 1 && strings.HasPrefix(left[0], strconv.Itoa(cmd.Process.Pid)+":")
	})
	if left := marked(marker + "0"); len(left) != 0 {
		t.Errorf("scan matched a longer marker: %q", left)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("demo server exit after stdin EOF: %v", err)
	}
	if left := marked(marker); len(left) != 0 {
		t.Errorf("scan still finds an exited process: %q", left)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, r result) {
		r.wantCode(t, exitOK)
		line := strings.TrimSpace(r.stdout)
		if !strings.HasPrefix(line, "switchboard ") || strings.Contains(line, "\n") {
			t.Errorf("want one line starting with %q\n%s", "switchboard ", r)
		}
		r.wantStdout(t, runtime.Version())
		if r.stderr != "" {
			t.Errorf("unexpected stderr\n%s", r)
		}
	}
	t.Run("in-process", func(t *testing.T) {
		t.Parallel()
		check(t, runInProcess(t, "version"))
	})
	t.Run("subprocess", func(t *testing.T) {
		t.Parallel()
		check(t, newSandbox(t).run("version"))
	})
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := runInProcess(t, args...)
			r.wantCode(t, exitOK)
			r.wantStdout(t, "Usage:", "--config", "--log-level", "Exit codes")
			commands := commandList(r.stdout)
			for _, c := range []string{"check", "tools", "call", "status", "version"} {
				if !commands[c] {
					t.Errorf("help does not list the %s command\n%s", c, r)
				}
			}
			if commands["demo-server"] || strings.Contains(r.stdout, "demo-server") {
				t.Errorf("help lists the hidden demo-server command\n%s", r)
			}
		})
	}
	t.Run("call --help", func(t *testing.T) {
		t.Parallel()
		r := runInProcess(t, "call", "--help")
		r.wantCode(t, exitOK)
		r.wantStdout(t, "call TOOL [ARGS]", "--json", "stdin")
	})
	// tools, call and status start the servers themselves, not a running switchboard's:
	// both the command list and each command's help say so.
	t.Run("own servers", func(t *testing.T) {
		t.Parallel()
		r := runInProcess(t, "--help")
		r.wantStdout(t,
			"Start every server, print the merged tool catalog, and stop them",
			"Start the servers, call one tool, print its result, and stop them",
			"Start every server, print each one's state, and stop them")
		for _, c := range []string{"tools", "call", "status"} {
			r := runInProcess(t, c, "--help")
			r.wantCode(t, exitOK)
			r.wantStdout(t, "starts the servers itself (it does not ask a running switchboard,\nunless --server or $SWITCHBOARD_SERVER names one: see below)")
		}
		r = runInProcess(t, "status", "--help")
		r.wantStdout(t, "Exit codes: 0 every server is ready (or disabled), 1 a server is not ready", `"2/5"`)
	})
}

// commandList returns the names under "Available Commands:" in cobra's help.
func commandList(help string) map[string]bool {
	out := map[string]bool{}
	_, rest, ok := strings.Cut(help, "Available Commands:\n")
	if !ok {
		return out
	}
	for _, line := range strings.Split(rest, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(line, "  ") {
			break
		}
		out[f[0]] = true
	}
	return out
}

const helpHint = "Run 'switchboard --help' for usage."

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string // on stderr
		hint bool     // stderr ends with the --help hint
	}{
		{"unknown command", []string{"bogus"}, []string{`unknown command "bogus"`}, true},
		{"unknown flag", []string{"--bogus"}, []string{"unknown flag: --bogus"}, true},
		{"unknown subcommand flag", []string{"tools", "--bogus"}, []string{"unknown flag: --bogus"}, true},
		{"unknown shorthand", []string{"check", "-z"}, []string{"unknown shorthand flag: 'z'"}, true},
		{"flag without value", []string{"check", "--config"}, []string{"flag needs an argument"}, true},
		{"bad bool value", []string{"check", "--json=maybe"}, []string{`invalid argument "maybe"`}, true},
		{"check with an argument", []string{"check", "extra"}, []string{"switchboard check: want no arguments, got 1"}, true},
		{"version with an argument", []string{"version", "x"}, []string{"switchboard version: want no arguments"}, true},
		{"tools with an argument", []string{"tools", "x"}, []string{"switchboard tools: want no arguments"}, true},
		{"status with an argument", []string{"status", "x"}, []string{"switchboard status: want no arguments"}, true},
		{"call without a tool", []string{"call"}, []string{"switchboard call: want TOOL and optional ARGS, got 0"}, true},
		{"call with three arguments", []string{"call", "a", "{}", "c"}, []string{"got 3 argument(s)"}, true},
		{"bad log level", []string{"--log-level", "bogus", "version"}, []string{`unknown log level "bogus"`}, false},
		{"bad log format", []string{"--log-format", "xml", "check"}, []string{`unknown log format "xml"`}, false},
		{"unknown demo server", []string{"demo-server", "nope"}, []string{`unknown demo server "nope"`, "clock or notes"}, false},
		{"demo server without a name", []string{"demo-server"}, []string{"want a server name"}, true},
		{"call args an array", []string{"call", "current_time", "[1]"}, []string{"ARGS is a JSON array, want an object"}, false},
		{"call args not JSON", []string{"call", "current_time", "nope"}, []string{"ARGS: invalid character 'o' in literal null (expecting 'u') at offset 1"}, false},
		{"call args cut short", []string{"call", "current_time", `{"zone":`}, []string{"ARGS: unexpected end of JSON input"}, false},
		{"call args bad at the last byte", []string{"call", "current_time", `{"zone": }`}, []string{"ARGS: invalid character '}' looking for beginning of value at offset 9"}, false},
		{"call args null", []string{"call", "current_time", "null"}, []string{"ARGS is null, want an object"}, false},
		{"call args a string", []string{"call", "current_time", `"x"`}, []string{"ARGS is a JSON string, want an object"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runInProcess(t, tt.args...)
			r.wantCode(t, exitUsage)
			// One program name in front: "switchboard: …" or a command path, never both.
			if !strings.HasPrefix(r.stderr, "switchboard: ") && !strings.HasPrefix(r.stderr, "switchboard "+tt.args[0]+": ") {
				t.Errorf("stderr should start with %q or the command path\n%s", "switchboard: ", r)
			}
			if strings.Contains(r.stderr, "switchboard: switchboard") {
				t.Errorf("program name doubled\n%s", r)
			}
			r.wantStderr(t, tt.want...)
			if got := strings.HasSuffix(r.stderr, helpHint+"\n"); got != tt.hint {
				t.Errorf("--help hint shown: %v, want %v\n%s", got, tt.hint, r)
			}
			if r.stdout != "" {
				t.Errorf("unexpected stdout\n%s", r)
			}
		})
	}
	// The same through a real process: the exit status, not just run's return value.
	t.Run("subprocess", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		for _, args := range [][]string{{"bogus"}, {"--bogus"}} {
			r := s.run(args...)
			r.wantCode(t, exitUsage)
			r.wantStderr(t, helpHint)
		}
	})
}

func TestLogging(t *testing.T) {
	t.Parallel()
	t.Run("json format", func(t *testing.T) {
		t.Parallel()
		r := newSandbox(t).run("--log-format", "json", "--log-level", "info", "tools")
		r.wantCode(t, exitOK)
		r.wantStdout(t, "current_time")
		lines := nonEmptyLines(r.stderr)
		if len(lines) == 0 {
			t.Fatalf("no log lines on stderr\n%s", r)
		}
		msgs := ""
		for _, line := range lines {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("stderr line is not JSON: %v: %q\n%s", err, line, r)
			}
			for _, k := range []string{"time", "level", "msg"} {
				if _, ok := rec[k]; !ok {
					t.Errorf("log record lacks %q: %s", k, line)
				}
			}
			msgs += fmt.Sprint(rec["msg"]) + "\n"
		}
		if !strings.Contains(msgs, "MCP initialized") {
			t.Errorf("no start-up summary among the log messages:\n%s", msgs)
		}
	})
	t.Run("json format in process", func(t *testing.T) {
		t.Parallel()
		// A config warning is logged by a command that starts the servers (check
		// reports it on stdout instead).
		path := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), `{"mcpServers": {"clock": `+demoEntry(t, "clock", `"colour": "red"`)+`}}`)
		r := runInProcess(t, "--log-format", "json", "--config", path, "tools")
		r.wantCode(t, exitOK)
		warned := 0
		for _, line := range nonEmptyLines(r.stderr) {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, r)
			}
			if rec["level"] == "WARN" && strings.Contains(fmt.Sprint(rec["msg"]), "mcpServers.clock.colour: unknown field") {
				warned++
			}
		}
		if warned != 1 {
			t.Errorf("want the config warning logged once as a JSON WARN record\n%s", r)
		}
	})
	t.Run("log file", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		logFile := filepath.Join(s.Dir, "switchboard.log") // its directory must exist: TestLogFileRefused
		r := s.run("--log-file", logFile, "--log-level", "debug", "tools")
		r.wantCode(t, exitOK)
		r.wantStdout(t, "current_time")
		if r.stderr != "" {
			t.Errorf("with --log-file, stderr should be empty\n%s", r)
		}
		data, err := os.ReadFile(logFile)
		if err != nil {
			t.Fatalf("log file: %v", err)
		}
		for _, want := range []string{"MCP initialized", "level=DEBUG", "server=clock"} {
			if !strings.Contains(string(data), want) {
				t.Errorf("log file lacks %q:\n%s", want, data)
			}
		}
	})
	t.Run("level filters", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		cfg := s.writeConfig("mcp.json", `{"mcpServers": {"clock": `+demoEntry(t, "clock")+`}}`)
		r := s.run("--log-level", "warn", "--config", cfg, "tools")
		r.wantCode(t, exitOK)
		if r.stderr != "" {
			t.Errorf("--log-level warn on a healthy run should log nothing\n%s", r)
		}
	})
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	return out
}

// freePort is a port that was free a moment ago on loopback.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}
