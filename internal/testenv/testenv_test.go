package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
