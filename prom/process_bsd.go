//go:build unix && !linux

package prom

// readProcess on a Unix system other than Linux: what getrusage and getrlimit tell
// (the resident memory needs the kernel's own interfaces, cgo on macOS).
func readProcess() processStats { return unixStats() }
