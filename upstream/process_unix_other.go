//go:build unix && !linux

package upstream

import "syscall"

// groupAlive reports whether any process is still in the group. Without Linux's /proc
// it cannot tell zombies apart: an orphaned zombie in the group (until launchd or init
// reaps it, which is prompt) counts as alive, which at worst makes a stop take the
// SIGTERM and SIGKILL steps that it would otherwise skip.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
