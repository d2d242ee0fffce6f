//go:build unix

package upstream

import (
	"os/exec"
	"syscall"
	"time"
)

// group is a child's process group: the child leads it (Setpgid), and its
// descendants (npx → node) stay in it unless they leave on purpose (setsid), so one
// signal reaches them all. The group is also why a Ctrl-C in the host's terminal
// reaches the host alone, which then stops its servers in order.
type group struct{ pgid int }

// startGroup starts cmd as the leader of a new process group.
func startGroup(cmd *exec.Cmd) (*group, error) {
	cmd.SysProcAttr = sysProcAttr()
	if err := startLocked(cmd); err != nil {
		return nil, err
	}
	return &group{pgid: cmd.Process.Pid}, nil
}

// argv0 is the child's argv[0]: the command as configured, as a shell would pass it.
func argv0(command, _ string) string { return command }

// terminate ends the group once stdin is closed: the child gets first to exit (exited
// waits for it), then SIGTERM goes to the whole group and it gets grace, then SIGKILL.
// A child that left descendants behind counts as not yet done, so they get SIGTERM too.
func (g *group) terminate(exited func(time.Duration) bool, first, grace time.Duration) {
	if !exited(first) || groupAlive(g.pgid) {
		g.signal(syscall.SIGTERM)
		if !exited(grace) || !g.waitGone(grace) {
			g.signal(syscall.SIGKILL)
		}
	}
}

func (g *group) signal(sig syscall.Signal) {
	_ = syscall.Kill(-g.pgid, sig)
}

func (g *group) waitGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for groupAlive(g.pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
