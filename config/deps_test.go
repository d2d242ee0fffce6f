package config

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestImportLayers: config builds on tool alone (for Naming and ToolFilter), tool on
// nothing of ours but its JSON encoder, and the library's packages below the wiring
// import no config, directly or not: each keeps its own defaults, so a program that
// embeds an agent, a search index or a session store does not take the mcp.json
// loader with it.
func TestImportLayers(t *testing.T) {
	const module = "github.com/switchboard-mcp/switchboard"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", module+"/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err) // no go command: nothing to check with
	}
	ours := map[string][]string{} // package → the module's packages it depends on
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		pkg = strings.TrimPrefix(pkg, module+"/")
		ours[pkg] = []string{}
		for _, d := range strings.Fields(deps) {
			if rest, ok := strings.CutPrefix(d, module+"/"); ok {
				ours[pkg] = append(ours[pkg], rest)
			}
		}
	}
	only := map[string][]string{
		"tool":   {"internal/jsonenc"},
		"config": {"internal/editdist", "internal/jsonenc", "tool"},
		// The sign-in of remote servers knows a server's config and masks what it
		// learns; it knows nothing of the supervisors and the hub that use it.
		"signin": {"internal/editdist", "internal/jsonenc", "tool", "config", "redact", "identity"},
		// Who makes a request: every layer may ask it, so it asks nobody.
		"identity": {},
		// What server administration answers: the host makes it, the API (which the
		// host builds) renders it, so it can import neither.
		"host/admin": {},
	}
	for pkg, allowed := range only {
		deps, ok := ours[pkg]
		if !ok {
			t.Errorf("go list names no package %s", pkg)
		}
		for _, d := range deps {
			if !slices.Contains(allowed, d) {
				t.Errorf("%s depends on %s; it may depend only on %v of this module", pkg, d, allowed)
			}
		}
	}
	noConfig := []string{"tool", "format", "relay", "llm", "search", "deferred", "session", "agent"}
	for pkg, deps := range ours {
		root, _, _ := strings.Cut(pkg, "/")
		if slices.Contains(noConfig, root) && slices.Contains(deps, "config") {
			t.Errorf("%s depends on config; it should take its settings as values and keep its defaults itself", pkg)
		}
	}
}
