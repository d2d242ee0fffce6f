package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// TestConfigMeansTheSameFromAnyDirectory: started from another directory (as a host
// given `mcp --print-config`'s snippet starts it), a config's relative paths are
// taken from its own directory: a server without "cwd" runs there, a relative "cwd"
// and command are found from there. Before, both servers failed ("command not found:
// ./bin/testserver"), relative to the directory switchboard was started in.
func TestConfigMeansTheSameFromAnyDirectory(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	proj := filepath.Join(s.Dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(proj, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testserver.Build(t), filepath.Join(proj, "bin", "testserver")); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, filepath.Join(proj, ".vscode", "mcp.json"), `{"servers": {
  "here": {"command": "./bin/testserver", "args": ["--pidfile", "here.pid"]},
  "sub": {"command": "../bin/testserver", "cwd": "sub", "args": ["--pidfile", "sub.pid"]}
}}`)
	r := s.run("--config", path, "status", "--json") // from s.Work
	r.wantCode(t, exitOK)
	var st statusOutput
	decodeJSON(t, r.stdout, &st)
	for _, srv := range st.Servers {
		if srv.State != "ready" {
			t.Errorf("%s: %s (%s)", srv.Name, srv.State, srv.Error)
		}
	}
	for _, pid := range []string{filepath.Join(proj, "here.pid"), filepath.Join(proj, "sub", "sub.pid")} {
		if _, err := os.Stat(pid); err != nil {
			t.Errorf("the server did not run where its config says: %v", err)
		}
	}
}

// TestCheckNamesMissingPaths: check says which of a server's files is not there, the
// path looked for and the directory a relative one is taken from; status says the same
// of the command when the server fails to start.
func TestCheckNamesMissingPaths(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	proj := filepath.Join(s.Dir, "proj")
	path := writeFile(t, filepath.Join(proj, "mcp.json"), `{"mcpServers": {
  "script": {"command": "node", "args": ["servers/x.js"]},
  "program": {"command": "./bin/server"}
}}`)
	r := s.run("--config", path, "check")
	r.wantCode(t, exitOK)
	r.wantStdout(t,
		"warning: server script: args[0] servers/x.js: no file "+filepath.Join(proj, "servers", "x.js")+" (the server runs in the config's directory, "+proj+")",
		"warning: server program: command not found: ./bin/server (no file "+filepath.Join(proj, "bin", "server")+": a relative command is taken from the config's directory, "+proj+")",
		"2 warning(s)")

	r = s.run("--config", path, "status", "--json")
	r.wantCode(t, exitFailed)
	var st statusOutput
	decodeJSON(t, r.stdout, &st)
	for _, srv := range st.Servers {
		if srv.Name == "program" && srv.Error != "command not found: ./bin/server (no file "+filepath.Join(proj, "bin", "server")+": a relative command is taken from the config's directory, "+proj+")" {
			t.Errorf("program: %q", srv.Error)
		}
	}
}
