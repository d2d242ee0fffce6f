package conversation_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/switchboard-mcp/switchboard/conversation"
)

// TestFormCheck: one reader of a server's form for every front end: its fields
// (required first, with their titles, choices and defaults) and the check of an
// answer (types, bounds, required fields, unknown fields, defaults filled in).
func TestFormCheck(t *testing.T) {
	t.Parallel()
	form, err := conversation.ReadForm(json.RawMessage(`{"type": "object", "required": ["name"], "properties": {
		"name": {"type": "string", "title": "Your name", "minLength": 2},
		"size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"], "default": "m"},
		"age": {"type": "integer", "minimum": 0, "maximum": 150}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range form.Fields {
		names = append(names, f.Name)
	}
	if !reflect.DeepEqual(names, []string{"name", "age", "size"}) || !form.Fields[0].Required || form.Fields[0].Title != "Your name" {
		t.Fatalf("fields %v, first %+v", names, form.Fields[0])
	}
	if size := form.Fields[2]; size.Default != "m" || !reflect.DeepEqual(size.Choices, []conversation.Choice{{"s", "Small"}, {"m", "Medium"}}) {
		t.Fatalf("size %+v", size)
	}
	for _, tc := range []struct {
		content, want, problem string
	}{
		{`{"name": "Ada"}`, `{"name": "Ada", "size": "m"}`, ""},
		{`{"name": "Ada", "size": "s", "age": 36}`, `{"name": "Ada", "size": "s", "age": 36}`, ""},
		{`{}`, "", `"content.name": required`},
		{`{"name": "A", "age": 200}`, "", `"content.age": maximum: 200 is greater than 150; "content.name": minLength: "A" contains 1 Unicode code points, fewer than 2`},
		{`{"name": "Ada", "colour": "red"}`, "", `"content.colour": the form has no such field (its fields: age, name, size)`},
		{`[1]`, "", `"content": want an object with the form's fields`},
	} {
		got, err := form.Check(json.RawMessage(tc.content))
		if tc.problem != "" {
			if err == nil || err.Error() != tc.problem {
				t.Errorf("%s: error %v, want %s", tc.content, err, tc.problem)
			}
			continue
		}
		var want map[string]any
		_ = json.Unmarshal([]byte(tc.want), &want)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v (%v), want %v", tc.content, got, err, want)
		}
	}
	if _, err := conversation.ReadForm(map[string]any{"type": "array"}); err == nil || err.Error() != `its form is of type "array", not an object` {
		t.Errorf("an array's schema: %v", err)
	}
}
