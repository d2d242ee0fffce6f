//go:build unix

package logging

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestLogFileRefused: a path that cannot take a log is an error from New, and nothing
// on disk is moved or created (lumberjack, left alone, renamed a directory given as
// the log file to "dir-<time>" and wrote a file in its place).
func TestLogFileRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "t"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t", "keep"), []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, path, want string }{
		{"directory", filepath.Join(dir, "t"), "is a directory"},
		{"directory with slash", filepath.Join(dir, "t") + "/", "is a directory"},
		{"missing parent", filepath.Join(dir, "nonexistent", "dir", "x.log"), "directory " + filepath.Join(dir, "nonexistent", "dir") + " does not exist"},
		{"parent is a file", filepath.Join(dir, "plain", "x.log"), "not a directory"},
		{"named pipe", filepath.Join(dir, "fifo"), "is a named pipe"},
		{"device", "/dev/null", "is a device"},
	}
	if runtime.GOOS == "linux" {
		tests = append(tests, struct{ name, path, want string }{"proc file", "/proc/version", "kernel file"})
	}
	before := testenv.Tree(t, dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := New(Options{File: tt.path})
			if err == nil {
				t.Fatalf("New(File: %q) succeeded", tt.path)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "log file "+tt.path) {
				t.Errorf("New(File: %q): err = %q, want it to name the file and say %q", tt.path, err, tt.want)
			}
			if after := testenv.Tree(t, dir); after != before {
				t.Errorf("the disk changed:\nbefore:\n%safter:\n%s", before, after)
			}
		})
	}
}
