package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// recorder stands in for a test: it records Skipf and Fatalf instead of stopping.
type recorder struct {
	testing.TB
	skipped, fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) { r.skipped = fmt.Sprintf(format, args...) }

func (r *recorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

func TestModuleRoot(t *testing.T) {
	root := ModuleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("ModuleRoot() = %s: %v", root, err)
	}
	if got := NPMDir(t); got != filepath.Join(root, "testdata", "npm") {
		t.Errorf("NPMDir() = %s", got)
	}
}

func TestMissingServerSkipsOrFails(t *testing.T) {
	for _, ci := range []string{"", "false", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			r := &recorder{TB: t}
			NPMBin(r, "mcp-server-does-not-exist")
			msg := r.skipped
			if ci == "true" {
				if r.skipped != "" || r.fatal == "" {
					t.Fatalf("CI=true: skipped %q, fatal %q; want a failure", r.skipped, r.fatal)
				}
				msg = r.fatal
			} else if r.fatal != "" || r.skipped == "" {
				t.Fatalf("skipped %q, fatal %q; want a skip", r.skipped, r.fatal)
			}
			if !strings.Contains(msg, "make deps") || !strings.Contains(msg, "mcp-server-does-not-exist") {
				t.Errorf("message %q should name the server and `make deps`", msg)
			}
		})
	}
}

func TestSandbox(t *testing.T) {
	s := NewSandbox(t)
	for _, d := range append([]string{s.Work, s.Home}, s.xdgDirs()...) {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			t.Errorf("%s: not a directory (%v)", d, err)
		}
		if !strings.HasPrefix(d, s.Dir+string(os.PathSeparator)) {
			t.Errorf("%s is not inside the sandbox %s", d, s.Dir)
		}
	}
	if _, err := os.Stat(s.Notes); !os.IsNotExist(err) {
		t.Errorf("notes file %s: %v, want it not created", s.Notes, err)
	}
	t.Setenv("SWITCHBOARD_CONFIG", "/leaked.json")
	env := s.Env("HOME=/elsewhere", "EXTRA=1")
	last := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		last[k] = v
	}
	want := map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": "/elsewhere", "EXTRA": "1",
		"XDG_CONFIG_HOME": filepath.Join(s.Home, ".config"), "XDG_STATE_HOME": filepath.Join(s.Home, ".local", "state"),
		demo.NotesFileEnv: s.Notes,
	}
	for k, v := range want {
		if last[k] != v {
			t.Errorf("%s = %q (last of %q), want %q", k, last[k], env, v)
		}
	}
	if _, ok := last["SWITCHBOARD_CONFIG"]; ok {
		t.Errorf("the test's own SWITCHBOARD_CONFIG leaked into %q", env)
	}
}
