package httpguard

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"time"
)

// Bearer reports whether r carries "Authorization: Bearer TOKEN" with this token. The
// scheme is matched in any case ("bearer", "BEARER"): RFC 7235 §2.1 makes auth-scheme
// case-insensitive, and clients do send it in lower case. Spaces between scheme and
// token are one or more (RFC 7235's 1*SP). The token itself is compared in constant
// time (its length aside).
func Bearer(r *http.Request, token string) bool {
	got, ok := BearerToken(r)
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// BearerToken is the token of r's "Authorization: Bearer TOKEN", read as Bearer
// reads it; false when r carries none.
func BearerToken(r *http.Request) (string, bool) {
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimLeft(got, " "), true
}

// Unread prepares w for a response sent without reading the request's body (a 401,
// a 403, a 404 before any handler): the connection closes after it, and what is left
// of the body is not waited for. Otherwise net/http reads the rest of the body (up to
// 256 KiB) before it sends the response, so a client that sends its body slowly, or
// not at all, would wait for its refusal as long as it takes to send what was
// refused.
func Unread(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	w.Header().Set("Connection", "close")
	// The body read after the response (to reuse the connection) ends at once.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}
