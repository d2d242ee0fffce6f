package httpguard_test

import (
	"net/http"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/httpguard"
)

// TestBearer: the scheme in any case (RFC 7235 §2.1), one or more spaces after it,
// and nothing but the whole token.
func TestBearer(t *testing.T) {
	const token = "tok-Aa1Bb2"
	for auth, want := range map[string]bool{
		"Bearer " + token:        true,
		"bearer " + token:        true,
		"BEARER " + token:        true,
		"Bearer    " + token:     true,
		"":                       false,
		token:                    false,
		"Bearer":                 false,
		"Bearer ":                false,
		"Bearer" + token:         false,
		"Basic " + token:         false,
		"Bearer " + token + "x":  false,
		"Bearer " + token[:5]:    false,
		"Bearer x" + token:       false,
		"Bearers " + token:       false,
		"Bearer " + token + " x": false,
	} {
		r, _ := http.NewRequest("GET", "http://127.0.0.1/", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		if got := httpguard.Bearer(r, token); got != want {
			t.Errorf("Authorization %q: %v, want %v", auth, got, want)
		}
	}
}
