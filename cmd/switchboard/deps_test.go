package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
// config it finds and loads, the start-up, the waiting, the catalogs, the turns it
// shows, the gateway, its logger and the development stand-ins of its hidden
// commands come from host (and its sub-packages: host/devtools). So every non-test
// file of it imports nothing of this module but host, host/… and apiwire (the
// servers' states, search results, a turn's events and the errors it renders, local
// or remote alike, are apiwire's), and nothing outside the standard library but
// cobra, pflag and the terminal libraries: not the packages host wires together
// (the hub, the deferred catalog, the relay, the concrete stores and model
// backends), nor those whose options, flag values and types it used to borrow
// (config, agent, conversation, the MCP SDK: host names them). Each file is read
// itself, whatever its build tags.
func TestCommandsLeaveWiringToHost(t *testing.T) {
	const module = "github.com/switchboard-mcp/switchboard/"
	allowed := func(imp string) bool {
		first, _, _ := strings.Cut(imp, "/")
		switch {
		case !strings.Contains(first, "."): // the standard library
			return true
		case imp == module+"host", strings.HasPrefix(imp, module+"host/"), imp == module+"apiwire":
			return true
		}
		return slices.Contains([]string{
			"github.com/spf13/cobra", "github.com/spf13/pflag", // flags
			"golang.org/x/term", "github.com/mattn/go-isatty", // the terminal
		}, imp)
	}
	wiring := []string{"hub", "deferred", "relay", "identity", "llm/openai", "llm/anthropic",
		"session/sqlite", "session/postgres", "signin/postgres"}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	checked, host := 0, 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, is := range f.Imports {
			imp, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if imp == module+"host" {
				host++
			}
			if allowed(imp) {
				continue
			}
			if pkg, ours := strings.CutPrefix(imp, module); ours && slices.Contains(wiring, pkg) {
				t.Errorf("%s imports %s: that wiring belongs in host", name, imp)
				continue
			}
			t.Errorf("%s imports %s: take it from host (an alias where only a type is named), and render apiwire's types; "+
				"the command line imports host, host/…, apiwire, cobra, pflag, the terminal libraries and the standard library only", name, imp)
		}
	}
	if checked < 10 || host == 0 {
		t.Errorf("%d non-test files read, %d importing host: is this the command's directory?", checked, host)
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
