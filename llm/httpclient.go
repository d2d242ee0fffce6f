package llm

import (
	"net/http"
	"time"

	"github.com/switchboard-mcp/switchboard/telemetry"
)

// HeaderTimeout bounds the wait for a model server's response headers when a backend
// makes its own HTTP client: the providers' SDKs give their default clients the same
// bound.
const HeaderTimeout = 10 * time.Minute

// NewHTTPClient is the client a backend uses when given none: http.DefaultTransport's
// settings, and a bound on the wait for the response headers, so that a server that
// takes a request and never answers fails the request instead of hanging the turn.
// The body, a stream, is not bounded.
func NewHTTPClient(headerTimeout time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = headerTimeout
	return &http.Client{Transport: telemetry.Transport(t)} // the traceparent of the chat span, when tracing is on
}
