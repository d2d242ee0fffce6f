//go:build !windows

package demo

import "os"

// replaceFile renames tmp over path, atomically: readers see the old file or the new.
func replaceFile(tmp, path string) error { return os.Rename(tmp, path) }

// readFile reads path.
func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
