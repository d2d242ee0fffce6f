//go:build !unix && !windows

package demo

import (
	"context"
	"sync"
)

// lockMu stands in for flock where it is unavailable: it serialises writers within
// this process only.
var lockMu sync.Mutex

func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	lockMu.Lock()
	if err := ctx.Err(); err != nil {
		lockMu.Unlock()
		return nil, err
	}
	return lockMu.Unlock, nil
}
