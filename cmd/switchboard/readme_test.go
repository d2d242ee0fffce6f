//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestREADMEWalk runs the README's shell blocks in order, in one bash, as a newcomer
// types them on a fresh machine (a sandbox: its own HOME, no config), and checks that
// every command succeeds — every curl gets a 2xx — and prints what the README says it
// prints. It found the gateway section's `export SWITCHBOARD_TOKEN` making every curl
// of the next section a 401, a turn example with a placeholder id and no model, and
// search examples whose results were not the tools they were for.
//
// What the walk changes, and only that: bin/switchboard is this test binary (the CLI,
// see TestMain); the fixed ports 7300, 8940 and 8931 become free ones (given as flags
// where the README relies on the default); `make` lines are left out (make run is the
// serve walked below, make test the suite this runs in); each curl fails on an HTTP
// error (-f); a server the README runs in the foreground until Ctrl-C is started, waited
// for and sent SIGINT; a background one is waited for before the next command; and the
// jobs a `kill` ends are waited for.
func TestREADMEWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("walks the whole README")
	}
	for _, prog := range []string{"bash", "curl", "openssl"} {
		if _, err := exec.LookPath(prog); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the README walk needs %s: %v", prog, err)
			}
			t.Skipf("the README walk needs %s: %v", prog, err)
		}
	}
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t)
	bin := filepath.Join(s.Work, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testExe(t), filepath.Join(bin, "switchboard")); err != nil {
		t.Fatal(err)
	}
	ports := map[string]string{"7300": freePort(t), "8940": freePort(t), "8931": freePort(t)}
	out := filepath.Join(s.Dir, "walk")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	steps := readmeCommands(string(readme))
	script := walkScript(steps, ports, out)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd, marker := s.command(ctx)
	cmd.Path, cmd.Args = "/bin/bash", []string{"bash", "-c", script}
	if p, err := exec.LookPath("bash"); err == nil {
		cmd.Path = p
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	transcript, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the walk did not end within 3 minutes\n%s", walkReport(steps, out))
	}
	if err != nil {
		t.Errorf("the walk's bash: %v\n%s", err, transcript)
	}
	waitGone(t, marker)

	read := func(i int, ext string) string {
		b, _ := os.ReadFile(filepath.Join(out, fmt.Sprintf("%d.%s", i, ext)))
		return string(b)
	}
	for i, step := range steps {
		rc := strings.TrimSpace(read(i, "rc"))
		if rc != "0" {
			t.Errorf("README command %d exited %q, want 0: %s\n--- stdout:\n%s--- stderr:\n%s", i, rc, step, read(i, "out"), read(i, "err"))
		}
	}
	// What the README says these print.
	for _, c := range []struct {
		command string // a part of the README's command
		stream  string // out or err
		want    *regexp.Regexp
	}{
		{`chat --base-url`, "out", regexp.MustCompile(`current_time: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+09:00 \(Asia/Tokyo`)},
		{`chat --base-url`, "err", regexp.MustCompile(`(?s)^(time=\S+ level=WARN msg="no config found[^\n]*\n)?session \S+ \(continue it with --session \S+\)\n→ current_time \{"zone": "Asia/Tokyo"\}\n← current_time \d+ms ok\n$`)},
		{`call search_notes`, "out", regexp.MustCompile(`todo: try switchboard`)},
		{`search convert a time`, "out", regexp.MustCompile(`(?m)^1\s+convert_time\s`)},
		{`search --regex 'note|memo' --json`, "out", regexp.MustCompile(`(?s)^\{\s*"query": "note\|memo",\s*"results": \[(\s*\{\s*"name": "(delete_note|get_note|list_notes|put_note|search_notes)",[^}]*\},?){5}\s*\]`)},
		{`curl localhost:7300/health`, "out", regexp.MustCompile(`(?s)"mcp_tools": 8,.*"clock": \{\s*"state": "ready",\s*"tools": 3\s*\}.*"status": "ok"`)},
		{`/v1/sessions -d '{"id": "tokyo"}'`, "out", regexp.MustCompile(`"id": "tokyo"`)},
		{`/v1/sessions/tokyo/messages`, "out", regexp.MustCompile(`(?s)event: tool_call\n.*event: tool_result\n.*event: text\n.*event: usage\n.*event: done\n`)},
		{`SWITCHBOARD_SERVER=`, "out", regexp.MustCompile(`(?m)^- todo\b`)},
		{`/v1/resources/read?uri=notes://index`, "out", regexp.MustCompile(`"text": "# Notes\\n\\n- todo \(`)},
		{`/v1/servers/clock/log?limit=5`, "out", regexp.MustCompile(`"kind": "state"`)},
		{`/v1/servers/notes -d '{"disabled": true}'`, "out", regexp.MustCompile(`"state": "disabled"`)},
	} {
		i := stepOf(steps, c.command)
		if i < 0 {
			t.Errorf("the README has no command with %q: change the test with it", c.command)
			continue
		}
		if got := read(i, c.stream); !c.want.MatchString(got) {
			t.Errorf("README command %d (%s): its std%s does not match %s:\n%s", i, steps[i], c.stream, c.want, got)
		}
	}
	if t.Failed() {
		t.Logf("the walk's script:\n%s\nits own output:\n%s", script, transcript)
	}
}

// readmeCommands are the commands of the README's sh blocks in order, continuation
// lines joined, comments removed, `make` lines left out.
func readmeCommands(readme string) []string {
	var cmds []string
	in, cont := false, ""
	for line := range strings.SplitSeq(readme, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```sh":
			in = true
			continue
		case in && strings.TrimSpace(line) == "```":
			in = false
			continue
		case !in:
			continue
		}
		line = strings.TrimSpace(stripComment(line))
		if rest, ok := strings.CutSuffix(line, `\`); ok {
			cont += strings.TrimSpace(rest) + " "
			continue
		}
		line, cont = cont+line, ""
		if line != "" && !strings.HasPrefix(line, "make ") {
			cmds = append(cmds, line)
		}
	}
	return cmds
}

// stripComment cuts a shell comment off line: a # that starts a word outside quotes.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

// walkScript is the bash script that runs steps as the walk does (see TestREADMEWalk),
// writing step i's output, errors and exit code to out/i.out, .err and .rc.
func walkScript(steps []string, ports map[string]string, out string) string {
	var b strings.Builder
	b.WriteString(`# waitfor FILE TEXT: until FILE holds TEXT, for 60 s at most.
waitfor() { for _ in $(seq 600); do grep -qF -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "waited in vain for $2 in $1" >&2; return 1; }
curl() { command curl -sS -f --max-time 60 "$@"; }
trap 'kill $(jobs -p) 2>/dev/null' EXIT
`)
	var pairs []string
	for from, to := range ports {
		pairs = append(pairs, from, to)
	}
	moved := strings.NewReplacer(pairs...) // in one pass: a new port may hold an old one
	for i, step := range steps {
		step = moved.Replace(step)
		o, e, rc := filepath.Join(out, strconv.Itoa(i)+".out"), filepath.Join(out, strconv.Itoa(i)+".err"), filepath.Join(out, strconv.Itoa(i)+".rc")
		redirect := fmt.Sprintf(" >%q 2>%q", o, e)
		cmd, background := strings.CutSuffix(step, "&")
		cmd = strings.TrimSpace(cmd)
		// The servers' default ports are the README's fixed ones: name the free ones.
		switch {
		case strings.Contains(cmd, "bin/switchboard serve") && !strings.Contains(cmd, "--addr"):
			cmd += " --addr 127.0.0.1:" + ports["7300"]
		case strings.Contains(cmd, "bin/switchboard fake-llm") && !strings.Contains(cmd, "--listen"):
			cmd += " --listen 127.0.0.1:" + ports["8940"]
		}
		fmt.Fprintf(&b, "# %d: %s\n", i, steps[i])
		switch {
		case background:
			ready := "servers started"
			file := e
			if strings.Contains(cmd, "fake-llm") {
				ready, file = "fake openai model at", o
			}
			fmt.Fprintf(&b, "%s%s &\nwaitfor %q %q; echo $? >%q\n", cmd, redirect, file, ready, rc)
		case strings.Contains(cmd, "bin/switchboard mcp --listen"):
			// Runs until Ctrl-C: started, waited for, interrupted; its exit code is the step's.
			fmt.Fprintf(&b, "%s%s &\npid=$!; waitfor %q %q && kill -INT $pid; wait $pid; echo $? >%q\n", cmd, redirect, e, "gateway listening", rc)
		case strings.HasPrefix(cmd, "kill "):
			fmt.Fprintf(&b, "%s%s; echo $? >%q; wait\n", cmd, redirect, rc)
		default:
			fmt.Fprintf(&b, "{ %s; }%s; echo $? >%q\n", cmd, redirect, rc)
		}
	}
	return b.String()
}

// stepOf is the index of the first step holding part, or -1.
func stepOf(steps []string, part string) int {
	for i, s := range steps {
		if strings.Contains(s, part) {
			return i
		}
	}
	return -1
}

// walkReport is every step with what it wrote so far, for a walk that hung.
func walkReport(steps []string, out string) string {
	var b strings.Builder
	for i, s := range steps {
		o, _ := os.ReadFile(filepath.Join(out, fmt.Sprintf("%d.out", i)))
		e, _ := os.ReadFile(filepath.Join(out, fmt.Sprintf("%d.err", i)))
		rc, _ := os.ReadFile(filepath.Join(out, fmt.Sprintf("%d.rc", i)))
		fmt.Fprintf(&b, "%d: %s\n  rc %q\n  stdout: %s\n  stderr: %s\n", i, s, strings.TrimSpace(string(rc)), o, e)
	}
	return b.String()
}
