//go:build unix || windows

package demo

import (
	"context"
	"os"
	"time"
)

// lockOS is one platform's file lock on an open file: try takes it without waiting
// (busy: someone else holds it), unlock gives it back.
type lockOS struct {
	try    func(f *os.File) (busy bool, err error)
	unlock func(f *os.File)
}

// lockFile takes an exclusive lock on path (created 0600 if missing) through the
// platform's lockOS, polling from 1 ms up to every 50 ms until it is free or ctx is
// done. The lock belongs to the open file, so it serialises goroutines of one
// process as well as separate processes (two hosts that each run the notes server).
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	wait := time.Millisecond
	for {
		busy, err := fileLock.try(f)
		if err == nil {
			break
		}
		if !busy {
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
		fileLock.unlock(f)
		f.Close()
	}, nil
}
