package demo

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// lockFile takes an exclusive LockFileEx lock on path (created if missing), waiting
// until it is free or ctx is done. The lock belongs to the open handle, so it
// serialises goroutines of one process as well as separate processes (two hosts that
// each run the notes server), like flock on Unix. It covers the whole file, as
// cmd/go's file locks do; nothing reads the lock file, so the lock being mandatory on
// Windows does not matter.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	const allBytes = ^uint32(0)
	wait := time.Millisecond
	for {
		// The OVERLAPPED only carries the range's offset (0) for this synchronous handle.
		err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
			0, allBytes, allBytes, new(windows.Overlapped))
		if err == nil {
			break
		}
		if !errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			f.Close()
			return nil, err
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-timer.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, allBytes, allBytes, new(windows.Overlapped))
		f.Close()
	}, nil
}
