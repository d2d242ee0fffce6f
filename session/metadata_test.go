package session

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestDecodeMetadata: the fast path agrees with encoding/json on what json.Marshal
// writes, and leaves everything else to it; NULL is no metadata.
func TestDecodeMetadata(t *testing.T) {
	t.Parallel()
	if got, err := DecodeMetadata(nil); got != nil || err != nil {
		t.Errorf("DecodeMetadata(nil) = %v, %v; want none", got, err)
	}
	for _, m := range []map[string]string{
		{}, {"a": "b"}, {"user": "ana", "channel": "#ops", "empty": ""},
		{"quote": `say "hi"`, "tag": "<b>&</b>", "nl": "a\nb", "uni": "Zürich 🌧", "": "empty key"},
	} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeMetadata(b)
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("DecodeMetadata(%s) = %v, %v; want %v", b, got, err, m)
		}
	}
	for _, in := range []string{`{"a":"b"`, `{"a":1}`, `{"a" : "b"}`, `{"a":"b"}x`, `[]`, `{"a":"b",}`, "{\"a\":\"\x01\"}"} {
		var want map[string]string
		wantErr := json.Unmarshal([]byte(in), &want)
		got, err := DecodeMetadata([]byte(in))
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("DecodeMetadata(%s) = %v, %v; encoding/json says %v, %v", in, got, err, want, wantErr)
		}
	}
}
