//go:build !windows

package gateway

import (
	"errors"
	"syscall"
)

// isBrokenPipe reports whether err is a write to a pipe whose reader has gone.
func isBrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
