//go:build !unix && !windows

package prom

// readProcess on a platform without processes' figures (js, wasip1, plan9).
func readProcess() processStats { return processStats{} }
