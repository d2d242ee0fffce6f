package config

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOptionsConvention: the module's public packages take options the MCP Go SDK's
// way (mcp.NewClient(impl, *ClientOptions)): what a function cannot do without is
// a parameter of its own, and the rest one *XxxOptions, the last parameter, where
// nil means the defaults. Never an XxxOptions by value, whose required fields only a
// doc comment tells from the optional ones. internal/ and cmd/ keep their own forms.
func TestOptionsConvention(t *testing.T) {
	const module = "github.com/switchboard-mcp/switchboard"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}", module+"/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err) // no go command: nothing to check with
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, dir, _ := strings.Cut(line, " ")
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		if strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/") || strings.HasPrefix(rel, "cmd/") {
			continue
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := goparser.ParseFile(fset, f, nil, goparser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || !fn.Name.IsExported() || (fn.Recv != nil && !exportedRecv(fn.Recv)) {
					continue
				}
				checked++
				params := fn.Type.Params.List
				for i, p := range params {
					name, byValue := optionsType(p.Type)
					if name == "" {
						continue
					}
					where := fset.Position(fn.Pos())
					loc := rel + "/" + filepath.Base(where.Filename)
					switch {
					case byValue:
						t.Errorf("%s:%d: %s takes %s by value: take *%s, nil meaning the defaults, and what is required as parameters of its own",
							loc, where.Line, fn.Name.Name, name, name)
					case i != len(params)-1:
						t.Errorf("%s:%d: %s takes *%s before other parameters: options come last", loc, where.Line, fn.Name.Name, name)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no exported function found: the check checked nothing")
	}
}

// optionsType is the name of an options struct type (one whose name ends in
// Options) that expr names, and whether it is passed by value rather than by pointer.
func optionsType(expr ast.Expr) (name string, byValue bool) {
	byValue = true
	if star, ok := expr.(*ast.StarExpr); ok {
		expr, byValue = star.X, false
	}
	switch e := expr.(type) {
	case *ast.Ident:
		name = e.Name
	case *ast.SelectorExpr:
		name = e.Sel.Name
		if x, ok := e.X.(*ast.Ident); ok {
			name = x.Name + "." + name
		}
	}
	if !strings.HasSuffix(name, "Options") {
		return "", false
	}
	return name, byValue
}

func exportedRecv(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if idx, ok := t.(*ast.IndexExpr); ok {
		t = idx.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}
