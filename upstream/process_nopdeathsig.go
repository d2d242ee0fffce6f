//go:build unix && !linux && !freebsd

package upstream

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts the child in its own process group, so that the group can be
// signalled as one.
//
// macOS and the other BSDs have no parent-death signal, so what happens to a server
// depends on how the host ends. Any orderly end (SIGTERM, SIGINT, the client closing
// its pipes) runs the full stop of every server: stdin closed, SIGTERM, SIGKILL, to the
// whole group. If the host is killed by SIGKILL (or crashes), nothing signals the
// group: the child sees EOF on stdin, which ends every well-behaved MCP server and,
// through it, the descendants it waits for (npx → node), but a server that ignores EOF
// on stdin, and any descendant left running, outlive the host, re-parented to launchd
// or init.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// startLocked starts cmd; only Linux's Pdeathsig needs the fork on a locked thread.
func startLocked(cmd *exec.Cmd) error { return cmd.Start() }
