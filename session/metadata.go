package session

import (
	"bytes"
	"encoding/json"
)

// DecodeMetadata decodes a metadata column, as json.Unmarshal into a
// map[string]string would; nil (SQL NULL) is no metadata. List decodes one per
// session, and encoding/json's reflection was most of its time over 10,000 sessions;
// what json.Marshal wrote for a map of strings without escapes ({"k":"v",...}) is
// read here directly, anything else by encoding/json.
func DecodeMetadata(b []byte) (map[string]string, error) {
	if b == nil {
		return nil, nil
	}
	if m, ok := plainStringMap(b); ok {
		return m, nil
	}
	var m map[string]string
	err := json.Unmarshal(b, &m)
	return m, err
}

func plainStringMap(b []byte) (map[string]string, bool) {
	if bytes.IndexByte(b, '\\') >= 0 || len(b) < 2 || b[0] != '{' {
		return nil, false
	}
	m := map[string]string{}
	b = b[1:]
	if len(b) == 1 && b[0] == '}' {
		return m, true
	}
	for {
		k, rest, ok := plainString(b)
		if !ok || len(rest) == 0 || rest[0] != ':' {
			return nil, false
		}
		v, rest, ok := plainString(rest[1:])
		if !ok || len(rest) == 0 {
			return nil, false
		}
		m[k] = v
		switch {
		case rest[0] == ',':
			b = rest[1:]
		case rest[0] == '}' && len(rest) == 1:
			return m, true
		default:
			return nil, false
		}
	}
}

// plainString reads a JSON string without escapes at the start of b.
func plainString(b []byte) (string, []byte, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	end := bytes.IndexByte(b[1:], '"')
	if end < 0 {
		return "", nil, false
	}
	s := b[1 : 1+end]
	for _, c := range s {
		if c < 0x20 { // a control character: invalid JSON, let encoding/json say so
			return "", nil, false
		}
	}
	return string(s), b[2+end:], true
}
