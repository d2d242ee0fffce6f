package redact

import (
	"strings"
	"testing"
)

func TestRedactorString(t *testing.T) {
	var r Redactor
	r.Add("hunter2-password", "configured-header-value", "ab" /* too short to mask */)
	tests := []struct {
		name, in string
		gone     []string // must not appear in the output
		kept     []string // must still appear
	}{
		{"registered value", "login with hunter2-password failed", []string{"hunter2-password"}, []string{"login with", "failed"}},
		{"header value", "sent X-Key: configured-header-value", []string{"configured-header-value"}, []string{"X-Key"}},
		{"bearer token", "Authorization: Bearer abcdefghijklmnop1234", []string{"abcdefghijklmnop1234"}, []string{"Bearer"}},
		{"openai key", "using sk-proj-ABCDEFGHIJKLMNOPQRSTUV", []string{"ABCDEFGHIJKLMNOPQRSTUV"}, []string{"using"}},
		{"anthropic key", "key sk-ant-api03-ABCDEFGHIJKLMNOPQRST", []string{"api03-ABCDEFGHIJKLMNOPQRST"}, nil},
		{"github token", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 rejected", []string{"ghp_ABCDEFGHIJ"}, []string{"rejected"}},
		{"aws key", "id AKIAABCDEFGHIJKLMNOP", []string{"AKIAABCDEFGHIJKLMNOP"}, nil},
		{"key=value", "url?api_key=zzzyyyxxx&x=1", []string{"zzzyyyxxx"}, []string{"api_key=", "x=1"}},
		{"json pair", `{"token": "abc123secret"}`, []string{"abc123secret"}, []string{`"token"`}},
		{"short value untouched", "ab cd", nil, []string{"ab cd"}},
		{"plain text untouched", "server clock ready with 3 tools", nil, []string{"server clock ready with 3 tools"}},
		// Prose and placeholders are no credentials: "send" was masked in the 401's
		// "no bearer token: send Authorization: Bearer TOKEN" (issue 34).
		{"prose after a colon", "no bearer token: send Authorization: Bearer TOKEN, a JWT", nil,
			[]string{"no bearer token: send Authorization: Bearer TOKEN, a JWT"}},
		{"placeholders", "token: YOUR_TOKEN; Authorization: Bearer YOUR_API_TOKEN; no token provided", nil,
			[]string{"token: YOUR_TOKEN; Authorization: Bearer YOUR_API_TOKEN; no token provided"}},
		{"a colon's credential", "token: abcDEFghiJKL", []string{"abcDEFghiJKL"}, []string{"token: "}},
		{"a colon's credential with digits", "password: hunter22", []string{"hunter22"}, []string{"password: "}},
		{"a word after =", "password=letmein", []string{"letmein"}, []string{"password="}},
		{"a chosen password after a colon", "password: letmein; client_secret: sesame", []string{"letmein", "sesame"}, []string{"password: ", "client_secret: "}},
		{"a quoted word", `"secret": "letmein"`, []string{"letmein"}, []string{`"secret"`}},
		{"a lower-case bearer token", "Authorization: Bearer abcdefghijklmnop", []string{"abcdefghijklmnop"}, []string{"Bearer"}},
		{"an upper-case token with digits", "Bearer ABCDEFGH12345678", []string{"ABCDEFGH12345678"}, []string{"Bearer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.String(tt.in)
			for _, g := range tt.gone {
				if strings.Contains(got, g) {
					t.Errorf("String(%q) = %q, still contains %q", tt.in, got, g)
				}
			}
			for _, k := range tt.kept {
				if !strings.Contains(got, k) {
					t.Errorf("String(%q) = %q, lost %q", tt.in, got, k)
				}
			}
		})
	}
}

func TestRedactorLongestFirst(t *testing.T) {
	var r Redactor
	r.Add("secret-value", "secret-value-longer")
	got := r.String("x=secret-value-longer")
	if strings.Contains(got, "longer") {
		t.Fatalf("a secret containing another was only partly masked: %q", got)
	}
}

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com/mcp", "https://example.com/mcp"},
		{"https://user:pa55word@example.com/mcp", "https://user:xxxxx@example.com/mcp"},
		{"https://example.com/sse?key=abc123&mode=x", "https://example.com/sse?key=xxxxx&mode=xxxxx"},
		{"://bad", Mask},
	}
	for _, tt := range tests {
		if got := (&Redactor{}).URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
