package signin_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/signin"
	"github.com/switchboard-mcp/switchboard/signin/signintest"
)

// TestFiles: the file store keeps the contract.
func TestFiles(t *testing.T) {
	signintest.Run(t, func(t *testing.T) signin.Store {
		return signin.NewFiles(filepath.Join(t.TempDir(), "data", signin.DirName))
	})
}

// TestFilesPrivate: the store's directory is 0700 (made so, or made so again when it
// was wider) and each file 0600, and a save leaves no temporary file behind.
func TestFilesPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix permission bits: the profile directory keeps others out")
	}
	dir := filepath.Join(t.TempDir(), signin.DirName)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	st := signin.NewFiles(dir)
	rec := signintest.Record("https://mcp.example/mcp", "https://auth.example", time.Now())
	if err := st.Save(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("directory mode %o, want 700", perm)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want the one record (no temporary files): %v", len(entries), entries)
	}
	info, err := entries[0].Info()
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("file %s mode %o, want 600", entries[0].Name(), perm)
	}
}

// TestFilesUnreadable: a file that does not parse is an error naming it and saying
// what to do, not an empty store that would make Switchboard register again.
func TestFilesUnreadable(t *testing.T) {
	dir := t.TempDir()
	st := signin.NewFiles(dir)
	rec := signintest.Record("https://mcp.example/mcp", "https://auth.example", time.Now())
	if err := st.Save(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	bad := filepath.Join(dir, entries[0].Name())
	if err := os.WriteFile(bad, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := st.Load(t.Context(), rec.Server, "")
	if err == nil {
		t.Fatal("Load of a spoiled file: no error")
	}
	for _, want := range []string{bad, "switchboard logout"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// TestMemory: the memory store keeps the contract.
func TestMemory(t *testing.T) {
	signintest.Run(t, func(t *testing.T) signin.Store { return signin.NewMemory() })
}

// TestFilesSubjectHidden: a person's own sign-in is a file of its own whose name
// carries no subject (nor URL): hashes only.
func TestFilesSubjectHidden(t *testing.T) {
	dir := t.TempDir()
	st := signin.NewFiles(dir)
	rec := signintest.Record("https://mcp.example/mcp", "https://auth.example", time.Now())
	rec.Subject = "alice@example.com"
	if err := st.Save(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("%d files, want 1", len(entries))
	}
	for _, bad := range []string{"alice", "example", "mcp"} {
		if strings.Contains(entries[0].Name(), bad) {
			t.Errorf("file name %q shows %q", entries[0].Name(), bad)
		}
	}
}
