package main

import (
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// dockerInstr is one instruction of a Dockerfile: its keyword (upper case) and the
// rest of its (joined) line.
type dockerInstr struct {
	cmd, args string
	line      int
}

// parseDockerfile reads a Dockerfile's instructions: comments and blank lines
// skipped, lines ending in a backslash joined to the next.
func parseDockerfile(t *testing.T, path string) []dockerInstr {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		out  []dockerInstr
		cur  strings.Builder
		from int
	)
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur.Len() == 0 {
			from = i + 1
		}
		if rest, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(rest + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, dockerInstr{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args), line: from})
		cur.Reset()
	}
	if cur.Len() != 0 {
		t.Fatalf("%s ends in a continued line", path)
	}
	return out
}

// execForm is an instruction's JSON array (the exec form), failing the test for a
// shell form: the image has no shell.
func execForm(t *testing.T, in dockerInstr, args string) []string {
	t.Helper()
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil || len(argv) == 0 {
		t.Fatalf("Dockerfile:%d: %s %s: want the exec form (a JSON array): the image has no shell", in.line, in.cmd, args)
	}
	return argv
}

// TestDockerfile: images cannot be pulled here, so the Dockerfile is checked and its
// binary run as the image would run it. Its instructions are known ones; its stages
// copy only from earlier stages; the final one runs as a user that is not root,
// keeps /data in a volume, and runs the binary in the exec form (no shell in the
// image). Its build line, run as it is, makes a static binary that names the
// version and commit given as build arguments; that binary serves as ENTRYPOINT and
// CMD say (on a free loopback port instead of 0.0.0.0:7300, a temporary directory
// for /data, the token from $SWITCHBOARD_TOKEN), and the HEALTHCHECK's command
// says it is healthy; against a port where nothing listens it says not.
func TestDockerfile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image is a Linux one: its build line, its binary and sh are checked on Linux")
	}
	t.Parallel()
	root := testenv.ModuleRoot(t)
	ins := parseDockerfile(t, filepath.Join(root, "Dockerfile"))
	known := []string{"FROM", "WORKDIR", "COPY", "RUN", "ARG", "ENV", "USER", "VOLUME", "EXPOSE", "ENTRYPOINT", "CMD", "HEALTHCHECK", "LABEL"}
	var (
		stages             []string
		final              = map[string]dockerInstr{}
		buildLine          string
		args               = map[string]string{}
		entrypoint, cmdArg []string
	)
	for _, in := range ins {
		if !slices.Contains(known, in.cmd) {
			t.Errorf("Dockerfile:%d: unknown instruction %s", in.line, in.cmd)
		}
		switch in.cmd {
		case "FROM":
			f := strings.Fields(in.args)
			if len(f) != 3 || !strings.EqualFold(f[1], "AS") {
				t.Fatalf("Dockerfile:%d: FROM %s: want IMAGE AS NAME", in.line, in.args)
			}
			stages = append(stages, f[2])
			clear(final)
		case "COPY":
			for f := range strings.FieldsSeq(in.args) {
				if st, ok := strings.CutPrefix(f, "--from="); ok && !slices.Contains(stages[:len(stages)-1], st) {
					t.Errorf("Dockerfile:%d: COPY --from=%s: no earlier stage of that name (%v)", in.line, st, stages)
				}
			}
		case "ARG":
			k, v, _ := strings.Cut(in.args, "=")
			args[k] = v
		case "RUN":
			if strings.Contains(in.args, "go build") {
				buildLine = in.args
			}
		}
		if len(stages) == 0 {
			t.Fatalf("Dockerfile:%d: %s before any FROM", in.line, in.cmd)
		}
		final[in.cmd] = in
	}
	if len(stages) < 2 {
		t.Fatalf("Dockerfile: stages %v, want a build stage and the image's", stages)
	}
	if u := final["USER"].args; u == "" || u == "root" || strings.HasPrefix(u, "0") {
		t.Errorf("the image runs as %q, want a user that is not root", u)
	}
	if !strings.Contains(final["VOLUME"].args, "/data") {
		t.Errorf("the image's VOLUME is %q, want /data", final["VOLUME"].args)
	}
	if !strings.Contains(buildLine, "CGO_ENABLED=0") {
		t.Errorf("the build line %q does not build a static binary (CGO_ENABLED=0)", buildLine)
	}
	entrypoint = execForm(t, final["ENTRYPOINT"], final["ENTRYPOINT"].args)
	cmdArg = execForm(t, final["CMD"], final["CMD"].args)
	hc := final["HEALTHCHECK"].args
	_, hcCmd, ok := strings.Cut(hc, " CMD ")
	if !ok {
		t.Fatalf("HEALTHCHECK %s: want OPTIONS CMD [...]", hc)
	}
	health := execForm(t, final["HEALTHCHECK"], hcCmd)
	if health[0] != entrypoint[0] {
		t.Errorf("the health check runs %s, not the image's binary %s", health[0], entrypoint[0])
	}
	var imageBin string
	for _, in := range ins {
		if in.cmd == "COPY" && strings.HasSuffix(in.args, " "+entrypoint[0]) {
			imageBin = in.args
		}
	}
	if imageBin == "" {
		t.Errorf("no COPY puts the binary at %s", entrypoint[0])
	}

	// The build line as the Dockerfile runs it, into a directory of the test's.
	out := filepath.Join(t.TempDir(), "switchboard")
	f := strings.Fields(buildLine)
	i := slices.Index(f, "-o")
	if i < 0 || i+1 >= len(f) {
		t.Fatalf("the build line %q names no -o", buildLine)
	}
	run := strings.Replace(buildLine, "-o "+f[i+1], "-o "+out, 1)
	build := exec.Command("sh", "-c", run)
	build.Dir = root
	build.Env = append(os.Environ(), "VERSION=v0.0.0-image", "REVISION=0123abc")
	for k, v := range args {
		if k != "VERSION" && k != "REVISION" {
			build.Env = append(build.Env, k+"="+v)
		}
	}
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", run, err, b)
	}
	exe, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range exe.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary needs a dynamic loader: the image has none")
		}
	}
	exe.Close()
	ver, err := exec.Command(out, "--version").Output()
	if err != nil || !strings.Contains(string(ver), "switchboard v0.0.0-image (commit 0123abc,") {
		t.Errorf("--version = %q, %v; want the build arguments' version and commit", ver, err)
	}

	s := newSandbox(t)
	data := filepath.Join(s.Dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	subst := func(argv []string) []string {
		var r []string
		for _, a := range argv {
			a = strings.ReplaceAll(a, "0.0.0.0:7300", "127.0.0.1:"+port)
			a = strings.ReplaceAll(a, "127.0.0.1:7300", "127.0.0.1:"+port)
			if a == "/data" {
				a = data
			}
			r = append(r, a)
		}
		return r
	}
	serveArgv := subst(append(entrypoint[1:], cmdArg...))
	if !slices.Contains(serveArgv, data) {
		t.Errorf("the image's command %q keeps nothing in /data", append(entrypoint, cmdArg...))
	}
	s.env[tokenEnv] = "image-token-Hh7"
	marker := strconv.FormatInt(time.Now().UnixNano(), 10)
	srv := exec.Command(out, serveArgv...)
	srv.Dir, srv.Env = s.Work, s.environ(marker)
	p := startProc(t, srv, marker)
	probe := subst(health)
	var last []byte
	testenv.WaitFor(t, "the HEALTHCHECK's command to say healthy", 60*time.Second, func() bool {
		select {
		case <-p.exited:
			t.Fatalf("the image's command exited: %v\n%s", srv.ProcessState, p.stderr.String())
		default:
		}
		c := exec.Command(out, probe[1:]...)
		var err error
		last, err = c.CombinedOutput()
		return err == nil
	})
	if !strings.Contains(string(last), `"status"`) {
		t.Errorf("health printed %q, want /health's answer", last)
	}
	if _, err := os.Stat(filepath.Join(data, "sessions.db")); err != nil {
		t.Errorf("nothing kept in the data directory: %v", err)
	}

	down := exec.Command(out, "health", "--url", "http://127.0.0.1:"+freePort(t))
	b, err := down.CombinedOutput()
	if code := down.ProcessState.ExitCode(); code != exitFailed {
		t.Errorf("health with nothing listening: exit %d (%v), want %d\n%s", code, err, exitFailed, b)
	}
}
