package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A stdio server read from a file runs in the config's project directory (the file's
// directory, the parent of .vscode/ or .cursor/), and a relative cwd or command is
// taken from there, wherever Switchboard is started; one read from bytes keeps the
// host's working directory, as before.
func TestProjectDir(t *testing.T) {
	root := t.TempDir()
	src := `{"mcpServers": {
  "plain": {"command": "node", "args": ["servers/x.js"]},
  "sub": {"command": "./bin/server", "cwd": "sub"},
  "abs": {"command": "bin/server", "cwd": ` + quote(filepath.Join(root, "elsewhere")) + `},
  "remote": {"url": "https://example.com/mcp"}
}}`
	for _, tt := range []struct{ file, project string }{
		{"mcp.json", root},
		{filepath.Join(".vscode", "mcp.json"), root},
		{filepath.Join(".cursor", "mcp.json"), root},
		{filepath.Join("conf", "switchboard.json"), filepath.Join(root, "conf")},
	} {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(root, tt.file)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			p := tt.project
			for _, want := range []struct{ server, dir, workDir, command string }{
				{"plain", p, p, "node"},
				{"sub", p, filepath.Join(p, "sub"), filepath.Join(p, "sub", "bin", "server")},
				{"abs", p, filepath.Join(root, "elsewhere"), filepath.Join(root, "elsewhere", "bin", "server")},
				{"remote", "", "", ""},
			} {
				s := cfg.Server(want.server)
				if s.ProjectDir != want.dir || s.WorkDir() != want.workDir || s.CommandPath() != want.command {
					t.Errorf("%s: project dir %q, work dir %q, command %q; want %q, %q, %q",
						want.server, s.ProjectDir, s.WorkDir(), s.CommandPath(), want.dir, want.workDir, want.command)
				}
			}
		})
	}

	cfg, err := Parse([]byte(src), "<bytes>", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Server("sub"); s.ProjectDir != "" || s.WorkDir() != "sub" || s.CommandPath() != filepath.Join("sub", "bin", "server") {
		t.Errorf("from bytes: %+v, work dir %q, command %q: want the host's working directory", s, s.WorkDir(), s.CommandPath())
	}
}

// PathProblems names each file of a server that is not on this machine, with the path
// looked for and the directory a relative one was taken from; nothing when all is
// there.
func TestPathProblems(t *testing.T) {
	p := t.TempDir()
	for _, f := range []string{"bin/server", "servers/x.js", "sub/run.sh"} {
		path := filepath.Join(p, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stdio := func(command, cwd string, args ...string) Server {
		return Server{Name: "s", Transport: Stdio, Command: command, Args: args, Cwd: cwd, ProjectDir: p}
	}
	j := func(parts ...string) string { return filepath.Join(append([]string{p}, parts...)...) }
	tests := []struct {
		name string
		s    Server
		want []string
	}{
		{"all there", stdio("./bin/server", "", "servers/x.js", "-v", "@scope/pkg", "https://x.example/a.js"), nil},
		{"in a cwd", stdio("./run.sh", "sub"), nil},
		{"missing script", stdio("node", "", "servers/y.js"),
			[]string{"args[0] servers/y.js: no file " + j("servers", "y.js") + " (the server runs in the config's directory, " + p + ")"}},
		{"missing command", stdio("./bin/absent", ""),
			[]string{"command not found: ./bin/absent (no file " + j("bin", "absent") + ": a relative command is taken from the config's directory, " + p + ")"}},
		{"missing command in a cwd", stdio("./absent", "sub"),
			[]string{"command not found: ./absent (no file " + j("sub", "absent") + ": a relative command is taken from the server's cwd, " + j("sub") + ")"}},
		{"missing cwd", stdio("node", "gone", "servers/x.js"),
			[]string{"cwd gone: " + j("gone") + ": no such file or directory (a relative cwd is taken from the config's directory, " + p + ")"}},
		{"cwd is a file", stdio("node", "servers/x.js"),
			[]string{"cwd servers/x.js: " + j("servers", "x.js") + ": not a directory (a relative cwd is taken from the config's directory, " + p + ")"}},
		{"missing absolute command", stdio(j("bin", "absent"), ""), []string{"command not found: " + j("bin", "absent")}},
		// PATH is the host's business: it may differ where the server starts.
		{"not in this PATH", stdio("no-such-command-xyz", ""), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.PathProblems(); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("PathProblems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }
