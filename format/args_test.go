package format

import (
	"encoding/json"
	"testing"
)

func TestDropOptionalNulls(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"req":{"type":"string"},
		"opt":{"type":"integer"},
		"nullable":{"type":["string","null"]},
		"legacy":{"type":"string","nullable":true},
		"obj":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]},
		"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"number"}}}}
	},"required":["req"]}`)
	tests := []struct{ name, in, want string }{
		{"optional null dropped", `{"req":"r","opt":null}`, `{"req":"r"}`},
		{"required null kept", `{"req":null}`, `{"req":null}`},
		{"nullable kept", `{"req":"r","nullable":null,"legacy":null}`, `{"req":"r","nullable":null,"legacy":null}`},
		{"nested", `{"req":"r","obj":{"a":null,"b":null},"list":[{"x":null},{"x":1}]}`, `{"req":"r","obj":{"a":null},"list":[{},{"x":1}]}`},
		{"unknown key kept", `{"req":"r","zzz":null}`, `{"req":"r","zzz":null}`},
		{"no change", `{"req":"r"}`, `{"req":"r"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jsonEqual(t, DropOptionalNulls(schema, json.RawMessage(tt.in)), tt.want)
		})
	}
	// Input that cannot be processed comes back unchanged.
	for _, in := range []string{`not json`, `[1]`, `null`} {
		if got := DropOptionalNulls(schema, json.RawMessage(in)); string(got) != in {
			t.Errorf("%s -> %s", in, got)
		}
	}
	if got := DropOptionalNulls(json.RawMessage(`{`), json.RawMessage(`{"a":null}`)); string(got) != `{"a":null}` {
		t.Errorf("bad schema: %s", got)
	}
}

// BenchmarkDropOptionalNulls is the per-call cost for arguments with and without a null:
//
//	go test -run=NONE -bench=DropOptionalNulls ./format/
func BenchmarkDropOptionalNulls(b *testing.B) {
	schema := toolNamed("nested").InputSchema
	for _, bc := range []struct{ name, args string }{
		{"no null", `{"query":"q","limit":5,"filters":{"tags":["a"]},"note":"n"}`},
		{"optional null", `{"query":"q","limit":null,"filters":{"tags":["a"],"since":null},"note":null}`},
	} {
		args := json.RawMessage(bc.args)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				DropOptionalNulls(schema, args)
			}
		})
	}
}
