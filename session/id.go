package session

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"strings"
)

// idEncoding writes ids in lowercase base32 without padding: letters and digits only,
// so that an id goes into paths, headers and command lines as it is. (URL-safe
// base64 made one id in 64 start with "-", which a command line reads as a flag.)
var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewID returns a new random session id: 128 bits as 26 characters of [a-z2-7].
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return strings.ToLower(idEncoding.EncodeToString(b[:]))
}

// MaxIDLength is the longest session id [CheckID] accepts.
const MaxIDLength = 128

// CheckID says whether id may name a session that a client or a user chose (the API's
// POST /v1/sessions, switchboard chat --session): 1 to [MaxIDLength] characters of
// A-Z a-z 0-9 _ . -, and not "." or "..". An id goes into URL paths
// (/v1/sessions/{id}), file names and logs as it is: a slash or a space would not, and
// "." and ".." are path segments that a URL is cleaned of, so such a session would be
// created and then out of reach. The error says what an id may be.
func CheckID(id string) error {
	ok := id != "" && len(id) <= MaxIDLength && id != "." && id != ".."
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
	}
	if !ok {
		return fmt.Errorf("want 1 to %d characters of A-Z a-z 0-9 _ . - (not . or ..)", MaxIDLength)
	}
	return nil
}
