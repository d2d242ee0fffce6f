package session

import (
	"crypto/rand"
	"encoding/base32"
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
