package upstream

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts the child in its own process group (so the group can be signalled
// as one) and asks the kernel (procctl PROC_PDEATHSIG_CTL) to kill it if this process
// dies, even by SIGKILL. As on Linux this covers the child only: a grandchild is left
// with stdin at EOF, which ends any well-behaved MCP server.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// startLocked starts cmd. FreeBSD's parent-death signal follows the process, not the
// thread that forked, so no thread needs locking.
func startLocked(cmd *exec.Cmd) error { return cmd.Start() }
