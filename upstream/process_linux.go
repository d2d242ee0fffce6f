package upstream

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts the child in its own process group (so the group can be signalled
// as one) and asks the kernel to kill it if this process dies, even by SIGKILL.
// Pdeathsig covers the child only: a grandchild whose parent was killed this way is
// left with stdin at EOF, which ends any well-behaved MCP server.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// startLocked starts cmd from a locked OS thread. Pdeathsig fires when the thread
// that forked the child exits, so the fork must not happen on a thread that the
// runtime may retire; a locked thread that is then unlocked stays alive.
func startLocked(cmd *exec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Start()
}

// groupAlive reports whether any live (non-zombie) process is still in the group.
// kill(-pgid, 0) alone would count zombies, and orphaned grandchildren may stay zombies
// for a while when the machine's init is slow to reap them.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command (which may contain spaces) start after the last ')':
		// state ppid pgrp ...
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}
