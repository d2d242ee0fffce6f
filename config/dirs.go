package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// A config means the same wherever Switchboard is started from. The hosts that run a
// project's servers (VS Code, Cursor, Claude Code) run them in the project's directory,
// and a host given the snippet of `switchboard mcp --print-config` starts Switchboard
// from a directory of its own: "args": ["servers/x.js"] broke there. So a stdio server
// without "cwd" runs in its config's project directory ([Server.ProjectDir], what
// ${workspaceFolder} means), and a relative "cwd" or command path is taken from there,
// as a host that spawns the server in that directory does.

// WorkDir is the directory a stdio server runs in: Cwd when absolute, Cwd taken from
// ProjectDir when relative, ProjectDir when Cwd is empty. "" (a config built in code,
// or read from bytes, has no ProjectDir) means the host process's working directory.
func (s *Server) WorkDir() string {
	switch {
	case s.Cwd == "":
		return s.ProjectDir
	case filepath.IsAbs(s.Cwd) || s.ProjectDir == "":
		return s.Cwd
	}
	return filepath.Join(s.ProjectDir, s.Cwd)
}

// CommandPath is the program a stdio server runs, before the PATH lookup: Command when
// it is a bare name (looked up in PATH) or an absolute path, else Command taken from
// WorkDir ("./bin/server", "servers/run.sh").
func (s *Server) CommandPath() string {
	if !hasDir(s.Command) || filepath.IsAbs(s.Command) {
		return s.Command
	}
	if dir := s.WorkDir(); dir != "" {
		return filepath.Join(dir, s.Command)
	}
	return s.Command
}

// hasDir reports whether a command names a path rather than a program in PATH.
func hasDir(command string) bool {
	return strings.ContainsRune(command, '/') || strings.ContainsRune(command, filepath.Separator)
}

// Program finds the program a stdio server runs, as starting it does: a bare name in
// PATH, a path as [Server.CommandPath] has it. The result is absolute when it can be
// made so (exec takes a relative path from the child's directory, the lookup from
// ours). The error names what was not found and, for a relative path, the directory
// it was taken from.
func (s *Server) Program() (string, error) {
	path := s.CommandPath()
	found, err := exec.LookPath(path)
	if err == nil {
		if abs, err := filepath.Abs(found); err == nil {
			found = abs
		}
		return found, nil
	}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		if path != s.Command {
			return "", fmt.Errorf("command not found: %s (no file %s: %s)", s.Command, path, s.takenFrom("command"))
		}
		return "", fmt.Errorf("command not found: %s", s.Command)
	}
	if path != s.Command {
		return "", fmt.Errorf("command %s: %w (%s)", s.Command, err, s.takenFrom("command"))
	}
	return "", fmt.Errorf("command %s: %w", s.Command, err)
}

// CheckDir reports a stdio server's working directory that does not exist or is not a
// directory, naming the directory a relative cwd was taken from; nil when it is fine
// or the server runs in the host's working directory.
func (s *Server) CheckDir() error {
	dir := s.WorkDir()
	if dir == "" {
		return nil
	}
	what, where := "cwd "+s.Cwd, ""
	switch {
	case s.Cwd == "":
		what = "the config's directory " + dir
	case dir != s.Cwd:
		where = " (" + s.takenFrom("cwd") + ")"
		what += ": " + dir
	}
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is said already
		}
		return fmt.Errorf("%s: %w%s", what, err, where)
	case !fi.IsDir():
		return fmt.Errorf("%s: not a directory%s", what, where)
	}
	return nil
}

// takenFrom says where a relative path of the server (its "cwd", its "command", or
// "args" for a path among them, which the server reads from where it runs) is taken
// from.
func (s *Server) takenFrom(what string) string {
	switch {
	case what == "args" && s.Cwd == "":
		return "the server runs in the config's directory, " + s.ProjectDir
	case what == "args":
		return "the server runs in its cwd, " + s.WorkDir()
	case what == "cwd" || s.Cwd == "":
		return "a relative " + what + " is taken from the config's directory, " + s.ProjectDir
	}
	return "a relative " + what + " is taken from the server's cwd, " + s.WorkDir()
}

// scriptExts are the extensions of the scripts that servers are commonly started
// with; an argument that is a relative path to one is checked by [Server.PathProblems].
var scriptExts = map[string]bool{
	".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".mts": true, ".py": true,
	".rb": true, ".sh": true, ".jar": true, ".php": true, ".pl": true, ".ps1": true,
}

// PathProblems lists what of a stdio server's files is not where its config says on
// this machine: its directory, its program when given as a path, and a relative
// script path among its args ("servers/x.js") — each naming the path looked for and
// the directory a relative one was taken from. For switchboard check, which starts
// nothing.
func (s *Server) PathProblems() []string {
	if s.Transport != Stdio || s.Command == "" {
		return nil
	}
	if err := s.CheckDir(); err != nil {
		return []string{err.Error()} // the rest would be taken from a missing directory
	}
	var out []string
	// A bare name is left to the PATH of wherever the server starts (a host's may
	// differ from this shell's).
	if hasDir(s.Command) {
		if _, err := s.Program(); err != nil {
			out = append(out, err.Error())
		}
	}
	dir := s.WorkDir()
	for i, a := range s.Args {
		if !hasDir(a) || filepath.IsAbs(a) || strings.HasPrefix(a, "-") || strings.Contains(a, "://") || !scriptExts[strings.ToLower(filepath.Ext(a))] {
			continue
		}
		path := a
		if dir != "" {
			path = filepath.Join(dir, a)
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			msg := "args[" + strconv.Itoa(i) + "] " + a + ": no file " + path
			if dir != "" {
				msg += " (" + s.takenFrom("args") + ")"
			}
			out = append(out, msg)
		}
	}
	return out
}
