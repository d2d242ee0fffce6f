package demo

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// On Windows a file that another process has open cannot be replaced, and a file
// being replaced cannot be opened: MoveFileEx and CreateFile fail with
// ERROR_ACCESS_DENIED or ERROR_SHARING_VIOLATION until the other side is done, a
// matter of milliseconds. Readers of the notes file take no lock, so a writer and a
// reader in two processes meet that way; both retry for up to 2s, as cmd/go's
// robustio does.

// replaceFile renames tmp over path.
func replaceFile(tmp, path string) error {
	return retryBusy(func() error { return os.Rename(tmp, path) })
}

// readFile reads path.
func readFile(path string) (data []byte, err error) {
	err = retryBusy(func() error {
		data, err = os.ReadFile(path)
		return err
	})
	return data, err
}

func retryBusy(op func() error) error {
	deadline := time.Now().Add(2 * time.Second)
	wait := time.Millisecond
	for {
		err := op()
		if !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 100*time.Millisecond)
	}
}

func isBusy(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}
