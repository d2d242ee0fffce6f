package demo

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// allBytes is the range the lock covers: the whole file, as cmd/go's file locks do.
// Nothing reads the lock file, so the lock being mandatory on Windows does not matter.
const allBytes = ^uint32(0)

// fileLock is LockFileEx: exclusive, per open handle, like flock on Unix. The
// OVERLAPPED only carries the range's offset (0) for a synchronous handle.
var fileLock = lockOS{
	try: func(f *os.File) (bool, error) {
		err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
			0, allBytes, allBytes, new(windows.Overlapped))
		return errors.Is(err, windows.ERROR_LOCK_VIOLATION), err
	},
	unlock: func(f *os.File) {
		_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, allBytes, allBytes, new(windows.Overlapped))
	},
}
