package session

import (
	"crypto/rand"
	"encoding/base64"
)

// NewID returns a new random session id: 128 bits, URL-safe base64 without padding
// (22 characters), so that ids go into paths and headers as they are.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}
