package session

import (
	"regexp"
	"strings"
	"testing"
)

// TestNewID: ids are 26 characters of [a-z2-7] — never starting with "-", which a
// command line (switchboard sessions show ID) would take for a flag — and distinct.
func TestNewID(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z2-7]{26}$`)
	seen := map[string]bool{}
	for range 10000 {
		id := NewID()
		if !valid.MatchString(id) {
			t.Fatalf("NewID() = %q, want 26 characters of [a-z2-7]", id)
		}
		if seen[id] {
			t.Fatalf("NewID() repeated %q", id)
		}
		seen[id] = true
	}
}

// TestCheckID: the one rule for the session ids clients and users choose. "." and ".."
// are refused: a URL path is cleaned of them, so such a session could be created but
// never reached again (GET /v1/sessions/.. is /v1/).
func TestCheckID(t *testing.T) {
	for _, id := range []string{"a", "my-session", "S_1.2", "...", ".a", "a..b", "-x", strings.Repeat("x", 128), NewID()} {
		if err := CheckID(id); err != nil {
			t.Errorf("CheckID(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{"", ".", "..", "../x", "a/b", "a b", "é", "a\x00", strings.Repeat("x", 129)} {
		err := CheckID(id)
		if err == nil {
			t.Errorf("CheckID(%q) = nil, want an error", id)
			continue
		}
		if want := "want 1 to 128 characters of A-Z a-z 0-9 _ . - (not . or ..)"; err.Error() != want {
			t.Errorf("CheckID(%q) = %q, want %q", id, err, want)
		}
	}
}
