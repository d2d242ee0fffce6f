package testenv

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// RunCalls makes n calls spread over callers, one goroutine per caller (a single
// caller runs on this goroutine), and returns the first error, which stops the
// others. Benchmarks give it the same call several times for concurrent calls on
// one session, or one call per session.
func RunCalls(ctx context.Context, n int, callers []func(context.Context) error) error {
	if len(callers) == 1 {
		for range n {
			if err := callers[0](ctx); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		first   error
	)
	for _, call := range callers {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if err := call(ctx); err != nil {
					errOnce.Do(func() { first = err })
					next.Store(int64(n)) // stop the others
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// Repeat is n callers that make the same call.
func Repeat(call func(context.Context) error, n int) []func(context.Context) error {
	out := make([]func(context.Context) error, max(n, 1))
	for i := range out {
		out[i] = call
	}
	return out
}

// Median is the median of xs (0 for none); xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// VmRSSKiB reads process pid's resident memory (VmRSS, in KiB) from
// /proc/PID/status.
func VmRSSKiB(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:")); ok {
			if f := bytes.Fields(rest); len(f) >= 1 { // "1234", "kB"
				return strconv.ParseInt(string(f[0]), 10, 64)
			}
		}
	}
	return 0, errors.New("no VmRSS line in /proc/PID/status")
}
