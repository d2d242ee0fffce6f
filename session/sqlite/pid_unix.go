//go:build unix

package sqlite

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process pid exists (EPERM: it does, under another user).
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
