package main

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestLogFileRefused: a --log-file that cannot take a log stops the CLI at start-up with
// a usage error naming the file, and leaves the disk as it was. Before, a directory was
// renamed to "dir-<time>" with a log file written in its place, /proc/version swallowed
// the logs, and a missing parent was created; all exited 0 with nothing printed.
func TestLogFileRefused(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	dir := filepath.Join(s.Dir, "t")
	writeFile(t, filepath.Join(dir, "notes.txt"), "user data\n")
	tests := []struct{ name, path, want string }{
		{"directory", dir, "is a directory"},
		{"missing parent", filepath.Join(s.Dir, "nonexistent", "dir", "x.log"), "does not exist"},
	}
	if runtime.GOOS == "linux" {
		tests = append(tests, struct{ name, path, want string }{"proc file", "/proc/version", "kernel file"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := testenv.Tree(t, s.Dir)
			r := s.forTest(t).run("--log-file", tt.path, "tools")
			if after := testenv.Tree(t, s.Dir); after != before {
				t.Errorf("the disk changed:\nbefore:\n%safter:\n%s", before, after)
			}
			r.wantCode(t, exitUsage)
			r.wantStderr(t, "switchboard: log file "+tt.path+": ", tt.want)
			if r.stdout != "" {
				t.Errorf("a refused log file should stop the command before it runs\n%s", r)
			}
		})
	}
}
