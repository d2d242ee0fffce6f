package session

import (
	"regexp"
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
