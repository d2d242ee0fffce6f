package baseurl

import "testing"

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		raw, want, err string
	}{
		{"", "https://api.example.com/v1", ""},
		{"/", "https://api.example.com/v1", ""},
		{"http://localhost:11434/v1/", "http://localhost:11434/v1", ""},
		{"https://host", "https://host", ""},
		{"localhost:11434", "", `base URL "localhost:11434" is not an http(s) URL`},
		{"ftp://host/v1", "", `base URL "ftp://host/v1" is not an http(s) URL`},
		{"http://", "", `base URL "http:" is not an http(s) URL`},
		{"http://host/%zz", "", `base URL "http://host/%zz" is not an http(s) URL`},
	} {
		base, u, err := Parse(tt.raw, "https://api.example.com/v1")
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err || u != nil {
				t.Errorf("Parse(%q) = %q, %v; want the error %q", tt.raw, base, err, tt.err)
			}
		case err != nil || base != tt.want || u == nil || u.String() != tt.want:
			t.Errorf("Parse(%q) = %q, %v, %v; want %q", tt.raw, base, u, err, tt.want)
		}
	}
}
