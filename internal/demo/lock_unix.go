//go:build unix

package demo

import (
	"errors"
	"os"
	"syscall"
)

// fileLock is flock: exclusive, per open file.
var fileLock = lockOS{
	try: func(f *os.File) (bool, error) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		return errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR), err
	},
	unlock: func(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) },
}
