package testenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// Sandbox is a fresh user environment for the subprocesses of one test: its own HOME,
// XDG directories, working directory and demo notebook, so that no ./mcp.json, user
// config or notebook of the machine is picked up.
type Sandbox struct {
	Dir   string // the root, under tb.TempDir(): a place for the test's own files
	Home  string // $HOME, with its .config, .cache, .local/share and .local/state
	Work  string // a working directory for the subprocesses, empty at first
	Notes string // $SWITCHBOARD_NOTES_FILE of the demo notes server, not created
}

// NewSandbox creates a sandbox in a directory that is removed when the test ends.
func NewSandbox(tb testing.TB) *Sandbox {
	tb.Helper()
	dir := tb.TempDir()
	s := &Sandbox{
		Dir:   dir,
		Home:  filepath.Join(dir, "home"),
		Work:  filepath.Join(dir, "work"),
		Notes: filepath.Join(dir, "notes", "notes.json"),
	}
	for _, d := range append([]string{s.Work, s.Home}, s.xdgDirs()...) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// xdgDirs are the XDG base directories below Home: config, cache, data and state.
func (s *Sandbox) xdgDirs() []string {
	return []string{
		filepath.Join(s.Home, ".config"),
		filepath.Join(s.Home, ".cache"),
		filepath.Join(s.Home, ".local", "share"),
		filepath.Join(s.Home, ".local", "state"),
	}
}

// Vars are the sandbox's own variables, as KEY=VALUE pairs: HOME, the XDG directories
// and the demo notes file.
func (s *Sandbox) Vars() []string {
	xdg := s.xdgDirs()
	return []string{
		"HOME=" + s.Home,
		"XDG_CONFIG_HOME=" + xdg[0],
		"XDG_CACHE_HOME=" + xdg[1],
		"XDG_DATA_HOME=" + xdg[2],
		"XDG_STATE_HOME=" + xdg[3],
		demo.NotesFileEnv + "=" + s.Notes,
	}
}

// Env is the environment of a subprocess, built from scratch so that nothing such as
// SWITCHBOARD_CONFIG or CI leaks in from the test's own: PATH, TMPDIR, GORACE and
// GOCOVERDIR of the test process, then [Sandbox.Vars], then extra (KEY=VALUE pairs).
// For a key given twice the last value wins, as in os/exec.
func (s *Sandbox) Env(extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH")}
	for _, k := range []string{"TMPDIR", "GORACE", "GOCOVERDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, s.Vars()...)
	return append(env, extra...)
}
