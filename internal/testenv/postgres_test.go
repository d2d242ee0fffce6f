package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPostgresBin: the newest installed version wins (by number, not by name), a bin
// directory without initdb does not count, and without any it falls back to PATH.
func TestPostgresBin(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9", "15", "16"} {
		if err := os.MkdirAll(filepath.Join(root, v, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []string{"9", "15"} { // 16 is a leftover without initdb
		if err := os.WriteFile(filepath.Join(root, v, "bin", "initdb"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := postgresBinIn(root), filepath.Join(root, "15", "bin"); got != want {
		t.Errorf("postgresBinIn = %q, want %q", got, want)
	}
	onPath := t.TempDir()
	if err := os.WriteFile(filepath.Join(onPath, "initdb"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", onPath)
	if got := postgresBinIn(t.TempDir()); got != onPath {
		t.Errorf("with none installed, postgresBinIn = %q, want PATH's %q", got, onPath)
	}
	t.Setenv("PATH", t.TempDir())
	if got := postgresBinIn(t.TempDir()); got != "" {
		t.Errorf("with none anywhere, postgresBinIn = %q, want none", got)
	}
}
