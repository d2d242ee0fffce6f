package testenv

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// StartChild runs this test binary again as a helper process, with env added (the
// helper's init or TestMain acts on a variable the test sets), and returns it once it
// has printed its first line, which must be ready. Its stdin stays open until the test
// ends (a helper may wait for it to close); at cleanup it is closed, and the helper
// killed and reaped if the test has not done so.
func StartChild(tb testing.TB, ready string, env ...string) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stderr := &Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if !strings.HasPrefix(line, ready) {
		tb.Fatalf("helper process said %q (%v), want %q first; its stderr:\n%s", line, err, ready, stderr)
	}
	return cmd
}
