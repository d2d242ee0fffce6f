package redact

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// encodings are the forms a secret takes inside the messages that carry it: as
// it is, quoted by %q (errors quoting their input), escaped in JSON, and
// escaped in a URL (an HTTP client's error quotes the URL it asked for).
var encodings = map[string]func(string) string{
	"plain": func(s string) string { return s },
	"%q":    func(s string) string { q := strconv.Quote(s); return q[1 : len(q)-1] },
	"json": func(s string) string {
		b, _ := json.Marshal(s)
		return string(b[1 : len(b)-1])
	},
	"query": url.QueryEscape,
	"path":  url.PathEscape,
}

// FuzzRedactSecret: a registered secret never comes out of String, in any of
// the forms a message may carry it in, wherever it stands in the text.
func FuzzRedactSecret(f *testing.F) {
	f.Add("s3cr3t-value", "token=", " and more")
	f.Add(`pa"ss wörd\`, `error: invalid value "`, `"`)
	f.Add("p@ss/w+rd&x=1", "Get \"https://h/p?key=", "\": dial tcp")
	f.Add("line\nbreak\ttab", "", "")
	f.Fuzz(func(t *testing.T, secret, before, after string) {
		secret = strings.TrimSpace(secret)
		if len(secret) < minSecretLen || strings.ContainsRune(secret, 0) {
			return
		}
		var r Redactor
		r.Add(secret)
		for name, enc := range encodings {
			form := enc(secret)
			if len(form) < minSecretLen {
				continue
			}
			out := r.String(before + form + after)
			// The mask itself may hold the secret's letters ("ACTED"): look past it.
			if strings.Contains(strings.ReplaceAll(out, Mask, "\x00"), form) {
				t.Fatalf("%s form %q of secret %q is in %q", name, form, secret, out)
			}
		}
	})
}
