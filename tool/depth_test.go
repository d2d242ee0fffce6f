package tool

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name string
		args string
		max  int
		want bool // refused
	}{
		{"empty object", `{}`, 1, false},
		{"at the bound", `{"a":` + nest(3) + `}`, 4, false},
		{"past the bound", `{"a":` + nest(4) + `}`, 4, true},
		{"objects count as arrays do", `{"a":{"b":{"c":{}}}}`, 3, true},
		{"siblings do not add up", `{"a":[[]],"b":[[]],"c":[[]]}`, 3, false},
		{"brackets in strings are text", `{"a":"[[[[{{{{"}`, 1, false},
		{"an escaped quote does not end the string", `{"a":"\"[[[[","b":1}`, 1, false},
		{"an escaped backslash does", `{"a":"\\","b":[[]]}`, 2, true},
		{"zero means the default", `{"a":` + nest(63) + `}`, 0, false},
		{"the default is 64", `{"a":` + nest(64) + `}`, 0, true},
		{"malformed JSON is not its business", `]]]{`, 1, false},
	}
	for _, tt := range tests {
		err := CheckDepth([]byte(tt.args), tt.max)
		var de *DepthError
		if got := errors.As(err, &de); got != tt.want {
			t.Errorf("%s: CheckDepth(%s, %d) = %v, want refused %v", tt.name, tt.args, tt.max, err, tt.want)
		}
	}
	err := CheckDepth([]byte(`{"a":[[]]}`), 2)
	if want := `arguments nested deeper than 2 levels (the "switchboard.maxArgumentDepth" setting): not sent; flatten them, or raise the setting`; err == nil || err.Error() != want {
		t.Errorf("message = %v, want %q", err, want)
	}
}
