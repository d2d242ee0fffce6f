package sqlite

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestDecodeMetadata: the fast path agrees with encoding/json on what json.Marshal
// writes, and leaves everything else to it.
func TestDecodeMetadata(t *testing.T) {
	t.Parallel()
	for _, m := range []map[string]string{
		{}, {"a": "b"}, {"user": "ana", "channel": "#ops", "empty": ""},
		{"quote": `say "hi"`, "tag": "<b>&</b>", "nl": "a\nb", "uni": "Zürich 🌧", "": "empty key"},
	} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeMetadata(b)
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("decodeMetadata(%s) = %v, %v; want %v", b, got, err, m)
		}
	}
	for _, in := range []string{`{"a":"b"`, `{"a":1}`, `{"a" : "b"}`, `{"a":"b"}x`, `[]`, `{"a":"b",}`, "{\"a\":\"\x01\"}"} {
		var want map[string]string
		wantErr := json.Unmarshal([]byte(in), &want)
		got, err := decodeMetadata([]byte(in))
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeMetadata(%s) = %v, %v; encoding/json says %v, %v", in, got, err, want, wantErr)
		}
	}
}
