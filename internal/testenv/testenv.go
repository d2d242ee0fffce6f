// Package testenv finds and builds the real MCP servers that Switchboard's
// integration tests run against:
//
//   - the npm reference servers (server-everything, server-filesystem,
//     server-memory) that `make deps` installs under testdata/npm;
//   - the Go SDK's conformance everything-server, built from the module cache;
//   - any main package of this module (the switchboard binary, for its
//     built-in demo servers).
//
// Binaries are built once per test process into one temporary directory; a
// package's TestMain should run its tests with [Main], which then calls [Cleanup].
//
// A missing npm install skips the test with a message naming `make deps`,
// except when the environment variable CI is "true": there it fails the test,
// so that a broken CI set-up cannot pass by skipping everything.
package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// ModulePath is the module whose root ModuleRoot finds.
const ModulePath = "github.com/switchboard-mcp/switchboard"

// EverythingServerPath is the import path of the Go SDK's conformance server. It
// serves MCP over stdio by default (Streamable HTTP with -http ADDR) and exits when
// stdin closes.
const EverythingServerPath = "github.com/modelcontextprotocol/go-sdk/conformance/everything-server"

// The npm reference servers installed by `make deps` (testdata/npm/package.json).
const (
	// ServerEverything: `mcp-server-everything` serves stdio without arguments.
	ServerEverything = "mcp-server-everything"
	// ServerFilesystem: `mcp-server-filesystem DIR...` allows access below DIRs.
	ServerFilesystem = "mcp-server-filesystem"
	// ServerMemory: `mcp-server-memory` keeps a knowledge graph in $MEMORY_FILE_PATH.
	ServerMemory = "mcp-server-memory"
)

// moduleRoot finds the module root once per process.
var moduleRoot = sync.OnceValues(findRoot)

// ModuleRoot returns the root directory of Switchboard's module (where go.mod is).
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatalf("testenv: %v", err)
	}
	return root
}

func findRoot() (string, error) {
	var starts []string
	// This file lives in internal/testenv: the root is two levels up. Without
	// source paths (-trimpath) fall back to the working directory, which for
	// `go test` is a package directory inside the module.
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			if isModuleRoot(d) {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("no go.mod of module %s above %v", ModulePath, starts)
}

func isModuleRoot(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && f[1] == ModulePath {
			return true
		}
	}
	return false
}

// NPMDir returns testdata/npm, the directory holding package.json and (after
// `make deps`) node_modules. Run `npx --no-install NAME` from here to use the
// local install without network access.
func NPMDir(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(ModuleRoot(tb), "testdata", "npm")
}

// NPMBin returns the absolute path of an npm server's executable under
// testdata/npm/node_modules/.bin (for example [ServerMemory]). When it is not
// installed, the test is skipped with a message naming `make deps`, or fails
// when CI=true. node itself must be on PATH too (the executables are node
// scripts), and is checked the same way.
func NPMBin(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(NPMDir(tb), "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		Missing(tb, "npm reference server %s is not installed (%v); run `make deps` (npm ci in testdata/npm)", name, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		Missing(tb, "node is not on PATH, needed by %s; install Node.js and run `make deps`", name)
	}
	return p
}

// Node returns the path of node on PATH, for tests that run a Node.js script of
// their own; when it is missing the test is skipped, or fails when CI=true.
func Node(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		Missing(tb, "node is not on PATH (%v); install Node.js", err)
	}
	return p
}

// Missing reports a missing test dependency: tb.Skipf normally, tb.Fatalf when the
// environment variable CI is "true".
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if InCI() {
		tb.Fatalf("CI=true: "+format, args...)
		return
	}
	tb.Skipf(format, args...)
}

// InCI reports whether the environment variable CI is "true" (or "1").
func InCI() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv("CI")))
	return v == "true" || v == "1"
}

// EverythingServer builds the Go SDK's conformance everything-server (once per
// process) and returns the binary's path. Run without arguments it serves stdio.
// The package is part of the go-sdk module Switchboard already requires, so this
// builds offline from the module cache.
func EverythingServer(tb testing.TB) string {
	tb.Helper()
	return Build(tb, EverythingServerPath, "everything-server")
}

// Switchboard builds ./cmd/switchboard (once per process) and returns the
// binary's path; `BINARY demo-server NAME` runs a built-in demo server.
func Switchboard(tb testing.TB) string {
	tb.Helper()
	return Build(tb, ModulePath+"/cmd/switchboard", "switchboard")
}

var (
	buildMu  sync.Mutex
	builds   = map[string]func() (string, error){} // by import path: go build, once
	dirOnce  sync.Once
	buildDir string
	dirErr   error
)

// dirPrefix starts the build directory's name, followed by the owner's pid.
const dirPrefix = "switchboard-testenv-"

// Build runs `go build -o DIR/name importPath` from the module root, once per
// process and import path, and returns the binary's path. It fails the test when
// the build fails.
func Build(tb testing.TB, importPath, name string) string {
	tb.Helper()
	root := ModuleRoot(tb)
	buildMu.Lock()
	build := builds[importPath]
	if build == nil {
		build = sync.OnceValues(func() (string, error) { return goBuild(root, importPath, name) })
		builds[importPath] = build
	}
	buildMu.Unlock()
	path, err := build()
	if err != nil {
		tb.Fatalf("testenv: %v", err)
	}
	return path
}

func goBuild(root, importPath, name string) (string, error) {
	dirOnce.Do(func() {
		sweepStale()
		buildDir, dirErr = os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	})
	if dirErr != nil {
		return "", dirErr
	}
	goBin, err := goTool()
	if err != nil {
		return "", err
	}
	out := filepath.Join(buildDir, name)
	cmd := exec.Command(goBin, "build", "-o", out, importPath)
	cmd.Dir = root
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", importPath, err, output.String())
	}
	return out, nil
}

// goTool finds the go command: on PATH (go test puts GOROOT/bin first), or under
// $GOROOT/bin.
func goTool() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("go command not found on PATH or in $GOROOT/bin")
}

// sweepStale removes build directories of test processes that have exited
// without calling Cleanup.
func sweepStale() {
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), dirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidStr, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if !alive(pid) {
			_ = os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
		}
	}
}

// alive reports whether a process pid exists (a zombie counts: its directory is
// then left for a later sweep).
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// Cleanup removes the binaries built by this process. Call it from TestMain after
// m.Run; it is safe to call when nothing was built.
func Cleanup() {
	buildMu.Lock()
	defer buildMu.Unlock()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
}

// Main runs a package's tests with a temporary data directory ($XDG_STATE_HOME),
// removes the binaries built for them, and — when they all passed — fails the run if
// any goroutine outlived them. Use it as TestMain's body:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
func Main(m *testing.M) int {
	// The data directory a store or a made token defaults to (sqlite.DefaultDir) is a
	// temporary one: no test reads or writes the person's own (a test that wants a
	// directory of its own sets these itself).
	if state, err := os.MkdirTemp("", "switchboard-test-state-"); err == nil {
		os.Setenv("XDG_STATE_HOME", state)
		os.Setenv("LocalAppData", state)
		defer os.RemoveAll(state)
	}
	code := m.Run()
	Cleanup()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			return 1
		}
	}
	return code
}

// WaitFor polls cond until it holds, failing the test after d. Waits in tests are
// bounded this way, never by a sleep standing in for an assertion.
func WaitFor(tb testing.TB, what string, d time.Duration, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
