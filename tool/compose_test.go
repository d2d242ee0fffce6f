package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/tool"
)

type addIn struct {
	A float64 `json:"a" jsonschema:"first addend"`
	B float64 `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

func newMath(t *testing.T) *tool.Local {
	t.Helper()
	l := tool.NewLocal()
	if err := tool.Func(l, "add", "Adds two numbers.", func(_ context.Context, in addIn) (addOut, error) {
		return addOut{in.A + in.B}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := tool.Func(l, "boom", "Panics.", func(context.Context, struct{}) (string, error) {
		panic("kaboom")
	}); err != nil {
		t.Fatal(err)
	}
	if err := tool.Func(l, "refuse", "Returns an error.", func(context.Context, struct{}) (string, error) {
		return "", errors.New("not today")
	}); err != nil {
		t.Fatal(err)
	}
	return l
}

func callText(t *testing.T, ts tool.Toolset, name, args string) (string, bool) {
	t.Helper()
	res, err := ts.Call(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s): %v", name, err)
	}
	return tool.Text(res), res.IsError
}

func TestLocalTypedTools(t *testing.T) {
	l := newMath(t)
	tools := l.Tools()
	if len(tools) != 3 || tools[0].Name != "add" || tools[0].Server != tool.LocalServer {
		t.Fatalf("tools = %+v", tools)
	}
	var schema map[string]any
	if err := json.Unmarshal(tools[0].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	props, _ := schema["properties"].(map[string]any)
	if schema["type"] != "object" || props["a"] == nil || props["b"] == nil {
		t.Fatalf("schema = %s", tools[0].InputSchema)
	}
	if !strings.Contains(string(tools[0].InputSchema), "first addend") {
		t.Errorf("schema lost the field description: %s", tools[0].InputSchema)
	}
	if len(tools[0].OutputSchema) == 0 {
		t.Error("struct output should give an output schema")
	}

	tests := []struct {
		name, tool, args string
		want             string
		isErr            bool
	}{
		{"ok", "add", `{"a": 2, "b": 3.5}`, `{"sum":5.5}`, false},
		{"missing required", "add", `{"a": 2}`, `invalid arguments for tool "add"`, true},
		{"wrong type", "add", `{"a": "two", "b": 1}`, `invalid arguments for tool "add"`, true},
		{"not json", "add", `{a:`, `not valid JSON`, true},
		{"not an object", "add", `[1, 2]`, `must be a JSON object`, true},
		{"panic", "boom", `{}`, `tool "boom" panicked: kaboom`, true},
		{"error", "refuse", `{}`, `not today`, true},
		{"unknown", "nope", `{}`, `unknown tool "nope"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, isErr := callText(t, l, tt.tool, tt.args)
			if isErr != tt.isErr || !strings.Contains(got, tt.want) {
				t.Errorf("Call(%s, %s) = %q (error %v), want %q (error %v)", tt.tool, tt.args, got, isErr, tt.want, tt.isErr)
			}
		})
	}
	res, _ := l.Call(context.Background(), "add", json.RawMessage(`{"a":1,"b":1}`))
	if sc, ok := res.StructuredContent.(json.RawMessage); !ok || string(sc) != `{"sum":2}` {
		t.Errorf("structured content = %#v", res.StructuredContent)
	}
}

func TestLocalRawTools(t *testing.T) {
	l := tool.NewLocal()
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","minLength":2}},"required":["q"]}`)
	err := l.AddRaw("lookup", "Looks up q.", schema, func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
		var in struct{ Q string }
		json.Unmarshal(args, &in)
		return tool.TextResult("found " + in.Q), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, isErr := callText(t, l, "lookup", `{"q":"go"}`); isErr || got != "found go" {
		t.Errorf("lookup = %q", got)
	}
	if got, isErr := callText(t, l, "lookup", `{"q":"g"}`); !isErr || !strings.Contains(got, "invalid arguments") {
		t.Errorf("schema not enforced: %q", got)
	}

	for _, bad := range []struct {
		name   string
		schema string
		want   string
	}{
		{"bad.name", `{"type":"object"}`, "must match"},
		{"not_object", `{"type":"string"}`, `must have "type": "object"`},
		{"not_json", `{`, "not a JSON Schema"},
		{"lookup", `{"type":"object"}`, "already registered"},
	} {
		err := l.AddRaw(bad.name, "", json.RawMessage(bad.schema), func(context.Context, json.RawMessage) (*tool.Result, error) { return nil, nil })
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("AddRaw(%s, %s) = %v, want %q", bad.name, bad.schema, err, bad.want)
		}
	}
	if err := tool.Func(l, "scalar", "", func(context.Context, string) (string, error) { return "", nil }); err == nil {
		t.Error("a non-struct input should be refused")
	}

	changed := l.Changed()
	if !l.Remove("lookup") {
		t.Fatal("Remove returned false")
	}
	select {
	case <-changed:
	default:
		t.Error("Remove did not signal a change")
	}
	if len(l.Tools()) != 0 {
		t.Errorf("tools after Remove = %v", l.Tools())
	}
}

func TestUnionNamingAndRouting(t *testing.T) {
	a, b := tool.NewLocal(), tool.NewLocal()
	echo := func(prefix string) func(context.Context, struct{ Text string }) (string, error) {
		return func(_ context.Context, in struct{ Text string }) (string, error) { return prefix + in.Text, nil }
	}
	tool.Func(a, "echo", "", echo("a:"))
	tool.Func(a, "only_a", "", echo("a-only:"))
	tool.Func(b, "echo", "", echo("b:"))
	// Same server label ("local") on both: the union still keeps them apart.
	u := tool.Union("auto", a, b)
	t.Cleanup(func() { u.Close() })
	var names []string
	for _, tl := range u.Tools() {
		names = append(names, tl.Name)
	}
	if len(names) != 3 || !slices.Contains(names, "only_a") {
		t.Fatalf("names = %v", names)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if n == "only_a" {
			continue
		}
		if !strings.HasPrefix(n, "local__echo") {
			t.Errorf("colliding name %q is not prefixed", n)
		}
		got, _ := callText(t, u, n, `{"Text":"x"}`)
		seen[got] = true
	}
	if !seen["a:x"] || !seen["b:x"] {
		t.Errorf("calls did not reach both members: %v", seen)
	}

	never := tool.Union("never", a, b)
	if never.Err() == nil || len(never.Tools()) != 0 {
		t.Errorf("never: err = %v, tools = %v", never.Err(), never.Tools())
	}
	if got, isErr := callText(t, never, "echo", `{}`); !isErr || !strings.Contains(got, "naming conflict") {
		t.Errorf("never call = %q", got)
	}

	always := tool.Union("always", a)
	if tl := always.Tools(); len(tl) != 2 || tl[0].Name != "local__echo" {
		t.Errorf("always = %+v", tl)
	}
}

func TestUnionFollowsChanges(t *testing.T) {
	a, b := tool.NewLocal(), tool.NewLocal()
	u := tool.Union("", a, tool.Prefix(tool.Filter(b, nil, []string{"secret_*"}), "team"))
	t.Cleanup(func() { u.Close() })
	changed := u.Changed()
	tool.Func(b, "roster", "", func(context.Context, struct{}) (string, error) { return "ada", nil })
	tool.Func(b, "secret_plans", "", func(context.Context, struct{}) (string, error) { return "x", nil })
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("union did not pass the change on")
	}
	var names []string
	for _, tl := range u.Tools() {
		names = append(names, tl.Name)
	}
	if len(names) != 1 || names[0] != "team__roster" {
		t.Fatalf("names = %v, want [team__roster] (secret_* filtered)", names)
	}
	if got, _ := callText(t, u, "team__roster", `{}`); got != "ada" {
		t.Errorf("team__roster = %q", got)
	}
	if got, isErr := callText(t, tool.Filter(b, nil, []string{"secret_*"}), "secret_plans", `{}`); !isErr || !strings.Contains(got, "unknown tool") {
		t.Errorf("a filtered tool was callable: %q", got)
	}
	tool.Func(a, "mine", "", func(context.Context, struct{}) (string, error) { return "m", nil })
	if len(u.Tools()) != 2 {
		t.Errorf("union missed a change of its first member: %v", u.Tools())
	}
}

func TestFilterFuncAndAllow(t *testing.T) {
	l := newMath(t)
	f := tool.Filter(l, []string{"a*", "b*"}, []string{"boom"})
	if tl := f.Tools(); len(tl) != 1 || tl[0].Name != "add" {
		t.Errorf("allow/deny = %v", tl)
	}
	ff := tool.FilterFunc(l, func(t tool.Tool) bool { return strings.Contains(t.Description, "error") })
	if tl := ff.Tools(); len(tl) != 1 || tl[0].Name != "refuse" {
		t.Errorf("predicate = %v", tl)
	}
}
