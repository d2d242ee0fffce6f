package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNode22Env(t *testing.T) {
	bin := filepath.Join("/x", "node_modules", ".bin")
	sep := string(os.PathListSeparator)
	for _, tc := range []struct {
		name string
		env  []string
		want []string
	}{
		{"prepends", []string{"HOME=/h", "PATH=/usr/bin" + sep + "/bin"}, []string{"HOME=/h", "PATH=" + bin + sep + "/usr/bin" + sep + "/bin"}},
		{"last PATH wins", []string{"PATH=/a", "A=1", "PATH=/b"}, []string{"A=1", "PATH=" + bin + sep + "/b"}},
		{"no PATH", []string{"A=1"}, []string{"A=1", "PATH=" + bin}},
		{"empty PATH", []string{"PATH="}, []string{"PATH=" + bin}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := slices.Clone(tc.env)
			got := Node22Env("/x", env)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Node22Env(%q) = %q, want %q", tc.env, got, tc.want)
			}
			if !slices.Equal(env, tc.env) {
				t.Errorf("Node22Env modified its argument: %q", env)
			}
		})
	}
}

// TestNode22 checks the installed toolchain: node on the returned PATH is node 22, and
// both tools are there.
func TestNode22(t *testing.T) {
	dir := Node22(t)
	if dir != filepath.Join(ModuleRoot(t), "testdata", "node22") {
		t.Errorf("Node22() = %s", dir)
	}
	for _, name := range []string{"conformance", "mcp-inspector"} {
		Node22Bin(t, name)
	}
	cmd := exec.Command("node", "--version")
	cmd.Env = Node22Env(dir, os.Environ())
	// exec.Command resolved "node" with this process's PATH; resolve it again with the
	// child's, as a shell or `#!/usr/bin/env node` would.
	cmd.Path = lookPath(t, "node", cmd.Env)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, Node22Version) {
		t.Errorf("node on Node22Env's PATH is %s (%s), want %sx", v, cmd.Path, Node22Version)
	}
}

func TestNode22BinMissing(t *testing.T) {
	Node22(t)
	for _, ci := range []string{"", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			r := &recorder{TB: t}
			Node22Bin(r, "no-such-tool")
			msg := r.skipped + r.fatal
			if (ci == "true") != (r.fatal != "") {
				t.Errorf("CI=%q: skipped %q, fatal %q", ci, r.skipped, r.fatal)
			}
			if !strings.Contains(msg, "make deps") || !strings.Contains(msg, "no-such-tool") {
				t.Errorf("message %q should name the tool and `make deps`", msg)
			}
		})
	}
}

// lookPath finds name in the PATH of env.
func lookPath(t *testing.T, name string, env []string) string {
	t.Helper()
	for _, kv := range slices.Backward(env) {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(path) {
				p := filepath.Join(dir, name)
				if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
					return p
				}
			}
			break
		}
	}
	t.Fatalf("%s not found on the PATH of %q", name, env)
	return ""
}
