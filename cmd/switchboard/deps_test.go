package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestCommandsLeaveWiringToHost: the command line parses flags and renders; the
// start-up, the waiting, the catalogs and the gateway come from host. So it imports
// none of the packages that host wires together (the hub, the deferred catalog, the
// relay, the concrete stores and model backends), nor those whose options, flag
// values and types it used to borrow: the servers' states and search results it
// renders are apiwire's, local or remote alike, and the options, the defaults and
// the checks of its flags are host's (host/flags.go). The goal is narrower still:
// host, the API's wire package, cobra and the terminal libraries only.
func TestCommandsLeaveWiringToHost(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err) // no go command: nothing to check with
	}
	const module = "github.com/switchboard-mcp/switchboard/"
	wiring := []string{"hub", "deferred", "relay", "identity", "llm/openai", "llm/anthropic",
		"session/sqlite", "session/postgres", "signin/postgres"}
	borrowed := []string{"upstream", "gateway", "search", "format", "api", "tool", "redact", "telemetry", "signin", "session", "llm"}
	for _, imp := range strings.Fields(string(out)) {
		pkg, ours := strings.CutPrefix(imp, module)
		if !ours {
			continue
		}
		switch {
		case slices.Contains(wiring, pkg):
			t.Errorf("cmd/switchboard imports %s: that wiring belongs in host", pkg)
		case slices.Contains(borrowed, pkg):
			t.Errorf("cmd/switchboard imports %s: render apiwire's types, and take options, defaults and flag checks from host", pkg)
		}
	}
}

// TestErrorCodesAreWireConstants: the client of a running service decides on an
// error's code with apiwire's Code constants, never a string of its own that could
// drift from what the service sends: no .Code compared with a string literal (==,
// !=, a switch's case) in the command's files.
func TestErrorCodesAreWireConstants(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	isCode := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Code"
	}
	isString := func(e ast.Expr) bool {
		lit, ok := e.(*ast.BasicLit)
		return ok && lit.Kind == token.STRING
	}
	compared := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isCode(n.X) || isCode(n.Y)) {
					compared++
					if isString(n.X) || isString(n.Y) {
						t.Errorf("%s: an error's code compared with a string literal: use apiwire's Code constant", fset.Position(n.Pos()))
					}
				}
			case *ast.SwitchStmt:
				if n.Tag == nil || !isCode(n.Tag) {
					return true
				}
				for _, c := range n.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						compared++
						if isString(e) {
							t.Errorf("%s: a case of an error's code that is a string literal: use apiwire's Code constant", fset.Position(e.Pos()))
						}
					}
				}
			}
			return true
		})
	}
	if compared < 2 {
		t.Errorf("%d comparisons of an error's code found: is the remote client still in this package?", compared)
	}
}
