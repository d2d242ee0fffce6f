package api

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/hub"
)

// filled is a T with every field set (strings "x", numbers 7, true, a time, one-item
// slices), so that no omitempty field is left out of its JSON.
func filled[T any](t *testing.T) T {
	t.Helper()
	var v T
	rv := reflect.ValueOf(&v).Elem()
	for i := range rv.NumField() {
		f := rv.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x" + strconv.Itoa(i))
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(7 + i))
		case reflect.Uint64:
			f.SetUint(uint64(7 + i))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.Append(reflect.MakeSlice(f.Type(), 0, 1), reflect.ValueOf("line").Convert(f.Type().Elem())))
		case reflect.Struct:
			if f.Type() != reflect.TypeOf(time.Time{}) {
				t.Fatalf("%s.%s: a field of a kind this test does not fill", rv.Type(), rv.Type().Field(i).Name)
			}
			f.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)))
		default:
			t.Fatalf("%s.%s: a field of a kind this test does not fill", rv.Type(), rv.Type().Field(i).Name)
		}
	}
	return v
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWireMatchesHub: a server's status and a log entry, every field set, are the
// same JSON as apiwire's types that the API writes as they were when the API wrote
// the hub's own: a field the supervisors add, or one the conversion forgets, fails
// here rather than going missing from the API.
func TestWireMatchesHub(t *testing.T) {
	st := filled[hub.Status](t)
	if got, want := jsonOf(t, hub.WireStatus(st)), jsonOf(t, st); got != want {
		t.Errorf("a server's status as the API writes it:\n%s\nas the hub has it:\n%s", got, want)
	}
	e := filled[hub.LogEntry](t)
	if got, want := jsonOf(t, wireEntry(e)), jsonOf(t, e); got != want {
		t.Errorf("a log entry as the API writes it:\n%s\nas the hub has it:\n%s", got, want)
	}
}

// TestErrorCodesDeclared: the API writes its error codes as apiwire's Code
// constants, which clients match on: no string literal with a code's value stands
// in the code of the API, its compatible endpoints or what they share (a literal
// would be a second spelling of the code, free to drift from the first; a code
// nobody declared, like config_invalid was, would go unnoticed). Struct tags and
// import paths aside, any literal spelling a declared code fails.
func TestErrorCodesDeclared(t *testing.T) {
	fset := token.NewFileSet()
	declared := map[string]string{} // value → constant
	wire, err := parser.ParseFile(fset, filepath.Join("..", "apiwire", "errors.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(wire, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && strings.HasPrefix(vs.Names[0].Name, "Code") {
			code, _ := strconv.Unquote(vs.Values[0].(*ast.BasicLit).Value)
			declared[code] = vs.Names[0].Name
		}
		return true
	})
	if len(declared) < 10 {
		t.Fatalf("apiwire declares %d codes: is errors.go where they are?", len(declared))
	}
	var files []string
	for _, dir := range []string{".", "compat", filepath.Join("internal", "httpx")} {
		names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		files = append(files, names...)
	}
	uses := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		skip := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				if n.Tag != nil {
					skip[n.Tag] = true
				}
			case *ast.ImportSpec:
				skip[n.Path] = true
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "apiwire" && strings.HasPrefix(n.Sel.Name, "Code") {
					uses++
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING || skip[n] {
					return true
				}
				if v, _ := strconv.Unquote(n.Value); declared[v] != "" {
					t.Errorf("%s: %s spells an error code: write apiwire.%s", fset.Position(n.Pos()), n.Value, declared[v])
				}
			}
			return true
		})
	}
	if uses == 0 {
		t.Error("found no apiwire.Code… in the API: where does it write its errors now?")
	}
}
