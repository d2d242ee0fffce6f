package signin

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
)

// What people read of a failed exchange with an authorization server. Its errors
// reach everyone who may read a server's state (GET /v1/servers' signIn.error and
// error, the callback's page, a terminal), and an authorization server's endpoints
// come from metadata that a server serves: they may name an address only the
// service reaches, whose page, quoted in an error, anybody could read that way
// (issue 32: a token endpoint's answer gave an internal admin page away). So an
// error says what failed (the step, its URL, the HTTP status, an OAuth error code
// of the standards'), never what the server answered, which goes to the log.

// oauthErrorCodes are the error codes an error may name: RFC 6749's (§4.1.2.1, the
// authorization response; §5.2, the token endpoint), RFC 7591's (§3.2.2,
// registration), RFC 8707's invalid_target and RFC 6750's (§3.1). Any other "error"
// is the server's free text.
var oauthErrorCodes = map[string]bool{
	"invalid_request": true, "unauthorized_client": true, "access_denied": true, "unsupported_response_type": true,
	"invalid_scope": true, "server_error": true, "temporarily_unavailable": true, "invalid_client": true,
	"invalid_grant": true, "unsupported_grant_type": true, "invalid_redirect_uri": true, "invalid_client_metadata": true,
	"invalid_software_statement": true, "unapproved_software_statement": true, "invalid_target": true,
	"invalid_token": true, "insufficient_scope": true,
}

// witness is the HTTP transport under one exchange with an authorization server
// (a sign-in, a refresh, a client credentials grant): it keeps what the last
// request got, which an error then says in place of the answer itself.
type witness struct {
	base http.RoundTripper

	mu     sync.Mutex
	last   exchange
	labels map[string]string // endpoint URL → what its request is ("the token request")
}

// exchange is one request and what came of it.
type exchange struct {
	method, url string // the URL without its query
	status      int    // 0: no answer (err)
	json        bool   // the answer is JSON
	err         error
	// code is the answer's OAuth error code, when it is one of oauthErrorCodes.
	code string
	// answer is the start of an answer that is an error or not JSON, for the log.
	answer string
}

func newWitness(base http.RoundTripper) *witness {
	return &witness{base: base, labels: map[string]string{}}
}

// label names the requests to endpoint in what failure says ("the token request").
func (w *witness) label(endpoint, what string) {
	if endpoint == "" {
		return
	}
	w.mu.Lock()
	w.labels[bare(endpoint)] = what
	w.mu.Unlock()
}

func (w *witness) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.base.RoundTrip(r)
	x := exchange{method: r.Method, url: bareURL(r.URL), err: err}
	if err == nil {
		x.status = resp.StatusCode
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		isJSON := mt == "application/json"
		x.json = isJSON
		// A good JSON answer may hold tokens: it is never kept.
		if resp.StatusCode >= 300 || !isJSON {
			head, rerr := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
			if rerr == nil {
				x.answer = string(head)
				var e struct {
					Error string `json:"error"`
				}
				if isJSON && json.Unmarshal(head, &e) == nil && oauthErrorCodes[e.Error] {
					x.code = e.Error
				}
			}
		}
	}
	w.mu.Lock()
	w.last = x
	w.mu.Unlock()
	return resp, err
}

// reset forgets the last request: what fails from now on failed at no request.
func (w *witness) reset() {
	w.mu.Lock()
	w.last = exchange{}
	w.mu.Unlock()
}

func (w *witness) seen() (exchange, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last, w.labels[w.last.url]
}

// describe says what became of the last request, in words of Switchboard's: "the
// token request at URL was refused: HTTP 400, error invalid_grant"; "" when there
// was none.
func (w *witness) describe() string {
	x, what := w.seen()
	if x.url == "" {
		return ""
	}
	if what == "" {
		what = "the request"
		if x.method == http.MethodGet {
			what = "the metadata"
		}
	}
	switch {
	case x.err != nil:
		return fmt.Sprintf("%s at %s could not be made: %s", what, x.url, reach(x.err))
	case x.status >= 300 && x.code != "":
		return fmt.Sprintf("%s at %s was refused: HTTP %d, error %s", what, x.url, x.status, x.code)
	case x.status >= 300:
		return fmt.Sprintf("%s at %s was refused: HTTP %d", what, x.url, x.status)
	case !x.json:
		return fmt.Sprintf("%s at %s gave an answer (HTTP %d) that is not JSON", what, x.url, x.status)
	}
	return fmt.Sprintf("%s at %s gave an answer (HTTP %d) that could not be used", what, x.url, x.status)
}

// remoteError is an error that people may read, over the whole error (which may
// quote an authorization server), kept for errors.As and the log.
type remoteError struct {
	msg string
	err error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.err }

// ownError marks an error of Switchboard's own making that passes through the
// SDK's flow (the person's answer, the wait for it): people may read it as it is.
type ownError struct{ err error }

func (e *ownError) Error() string { return e.err.Error() }
func (e *ownError) Unwrap() error { return e.err }

// failure is the error of a step with an authorization server that failed with err:
// prefix ("signing in to notes") and what the witness saw, or fallback when it saw
// no request since the step began; err itself, and the start of the answer, go to
// the log.
func (h *Handler) failure(prefix string, w *witness, err error, fallback string) error {
	var own *ownError
	if errors.As(err, &own) {
		msg := own.Error()
		if prefix != "" {
			msg = prefix + ": " + msg
		}
		return h.mask(&remoteError{msg: msg, err: err})
	}
	what := w.describe()
	if what == "" {
		what = fallback
	}
	msg := what
	if prefix != "" {
		msg = prefix + ": " + what
	}
	x, _ := w.seen()
	h.log.Warn("an exchange with the authorization server failed; the error people read says only what failed", "failed", msg, "err", err, "answer", x.answer)
	return h.mask(&remoteError{msg: msg, err: err})
}

// reach says why a request got no answer, in words of Switchboard's: a transport's
// error may quote what the other end sent (net/http quotes a malformed answer).
func reach(err error) string {
	var dns *net.DNSError
	var ne net.Error
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	switch {
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "no answer in time"
	case errors.As(err, &dns):
		return "its host is not known (DNS)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &cert), errors.As(err, &unknown), errors.As(err, &host):
		return "its TLS certificate is not trusted"
	}
	return "the connection failed"
}

// bare is an endpoint's URL without query or fragment, as the witness keeps it.
func bare(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return bareURL(u)
}

func bareURL(u *url.URL) string {
	c := *u
	c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment, c.User = "", false, "", "", nil
	return c.String()
}

// refused is an error that people may read, msg, for err, which goes to the log.
func (h *Handler) refused(msg string, err error) error {
	h.log.Warn("the authorization server's metadata was refused; the error people read says only why", "refused", msg, "err", err)
	return h.mask(&remoteError{msg: msg, err: err})
}

// publicCode is code when it is one of the standards' error codes, else a word that
// says there was one.
func publicCode(code string) string {
	if oauthErrorCodes[code] {
		return code
	}
	return "an error of its own"
}

// refusedSignIn is the error of an authorization response that says "error" (the
// person said no, or the authorization server would not): its code when it is the
// standards', the rest (error_description, the server's free text) to the log.
func (h *Handler) refusedSignIn(q url.Values) error {
	h.log.Warn("the authorization server refused the sign-in", "error", q.Get("error"), "description", q.Get("error_description"))
	return fmt.Errorf("the authorization server refused the sign-in: %s", publicCode(q.Get("error")))
}
