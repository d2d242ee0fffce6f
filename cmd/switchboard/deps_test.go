package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryOwnPackagesSkipTesting: none of this module's packages linked into the
// binary imports testing (internal/fakellm, which `switchboard fake-llm` ships, once
// did, for its Start helpers). A dependency of a dependency still may: Prometheus's
// expfmt links github.com/pandatix/go-abnf, whose fuzz helpers import testing.
func TestBinaryOwnPackagesSkipTesting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err) // no go command: nothing to check with
	}
	const module = "github.com/switchboard-mcp/switchboard"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if pkg != module && !strings.HasPrefix(pkg, module+"/") {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if imp == "testing" {
				t.Errorf("%s imports testing, and the binary links it", pkg)
			}
		}
	}
}
