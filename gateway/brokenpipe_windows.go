package gateway

import (
	"errors"
	"syscall"

	"golang.org/x/sys/windows"
)

// isBrokenPipe reports whether err is a write to a pipe whose reader has gone:
// WriteFile fails with ERROR_NO_DATA ("The pipe is being closed") there, or
// ERROR_BROKEN_PIPE, where Unix says EPIPE (libuv maps both to EPIPE too).
func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, windows.ERROR_NO_DATA) || errors.Is(err, windows.ERROR_BROKEN_PIPE)
}
