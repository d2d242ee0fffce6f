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
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}} | {{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err) // no go command: nothing to check with
	}
	ours := map[string][]string{}    // package → the module's packages it depends on
	imports := map[string][]string{} // package → the module's packages it imports itself
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		line, direct, _ := strings.Cut(line, " | ")
		pkg, deps, _ := strings.Cut(line, " ")
		pkg = strings.TrimPrefix(pkg, module+"/")
		ours[pkg] = []string{}
		for _, d := range strings.Fields(deps) {
			if rest, ok := strings.CutPrefix(d, module+"/"); ok {
				ours[pkg] = append(ours[pkg], rest)
			}
		}
		for _, d := range strings.Fields(direct) {
			if rest, ok := strings.CutPrefix(d, module+"/"); ok {
				imports[pkg] = append(imports[pkg], rest)
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
		// What a request may reach: the hub, the gateway, the agent and the API take
		// it, so it knows only who calls and what a tool is.
		"access": {"identity", "tool", "internal/jsonenc"},
		// Metrics in Prometheus' text format: whoever counts may use it.
		"prom": {},
		// What server administration answers: the host makes it, the API (which the
		// host builds) renders it, so it can import neither.
		"host/admin": {},
		// The HTTP API's JSON, which a client of the API imports: nothing of ours (nor
		// anything outside the standard library, TestWireStandardLibraryOnly).
		"apiwire": {},
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
	// The HTTP API reads its servers through the hub (whose names for their status,
	// state, events and logs are its supervisors') and writes them as apiwire's
	// types: a supervisor's Go type is never its wire format.
	for pkg, never := range map[string]string{"api": "upstream"} {
		if slices.Contains(imports[pkg], never) {
			t.Errorf("%s imports %s; it should reach it only through hub, and write apiwire's types", pkg, never)
		}
	}
	// The compatible endpoints (api/compat) and what they share with the rest of the
	// API (api/internal/httpx) import no api: api mounts them. They run turns through
	// conversation, never the agent directly, as api does; httpx knows no endpoint.
	for pkg, never := range map[string][]string{
		"api":                {"agent"},
		"api/compat":         {"api", "agent"},
		"api/internal/httpx": {"api", "api/compat", "agent"},
	} {
		if _, ok := ours[pkg]; !ok {
			t.Errorf("go list names no package %s", pkg)
		}
		for _, n := range never {
			if slices.Contains(imports[pkg], n) {
				t.Errorf("%s imports %s; it should not", pkg, n)
			}
		}
	}
	noConfig := []string{"access", "tool", "format", "relay", "llm", "search", "deferred", "session", "agent"}
	for pkg, deps := range ours {
		root, _, _ := strings.Cut(pkg, "/")
		if slices.Contains(noConfig, root) && slices.Contains(deps, "config") {
			t.Errorf("%s depends on config; it should take its settings as values and keep its defaults itself", pkg)
		}
	}
}

// TestWireStandardLibraryOnly: apiwire imports the standard library alone, so that
// a program that talks to the API takes nothing else with it.
func TestWireStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/switchboard-mcp/switchboard/apiwire").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg != "github.com/switchboard-mcp/switchboard/apiwire" {
			t.Errorf("apiwire depends on %s; it should need the standard library alone", pkg)
		}
	}
}
