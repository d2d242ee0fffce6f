package config

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBinaryLinksNoTesting: the switchboard binary does not link the testing
// package. A dependency that imports it (Prometheus' expfmt did, through go-abnf's
// fuzz helpers) brings its code and its flags into every user's binary.
func TestBinaryLinksNoTesting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "github.com/switchboard-mcp/switchboard/cmd/switchboard").Output()
	if err != nil {
		t.Skipf("go list: %v", err) // no go command: nothing to check with
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 10 {
		t.Fatalf("go list -deps named %d packages: %s", len(lines), out)
	}
	for _, line := range lines {
		pkg, imports, _ := strings.Cut(line, " ")
		if slices.Contains(strings.Fields(imports), "testing") {
			t.Errorf("cmd/switchboard links the testing package: %s imports it (`go mod why %s` tells who brings it)", pkg, pkg)
		}
	}
}

// maxLines is the length past which a non-test Go file must be split along a seam.
const maxLines = 650

// TestFileLength: no non-test Go file of the module is over maxLines lines (test
// data and node_modules aside).
func TestFileLength(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		n := bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++
		}
		if n > maxLines {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s has %d lines: split it by concern into files of %d lines at most", filepath.ToSlash(rel), n, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d Go files under %s: not the module's root?", checked, root)
	}
}
