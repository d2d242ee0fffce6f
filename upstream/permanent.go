package upstream

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
)

// permanentError is an attempt's error that the next attempts of the series would meet
// again (a missing command, a certificate nobody trusts): the supervisor fails the
// server at once instead of backing off, and leaves healing to RetryFailed (the user
// may install the command meanwhile). Everything else (refused connections, timeouts,
// a process that exits, HTTP 5xx) is retried with backoff.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

func isPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// permanentStart reports whether starting a process failed for a reason in the
// file system that a retry meets again: the executable or its interpreter is missing
// (ENOENT), not executable or on a noexec mount (EACCES), not a program (ENOEXEC,
// exec format error), or a path is not a directory, loops or is too long. Resource
// shortages (EAGAIN, ENOMEM, EMFILE) and a binary being written (ETXTBSY) pass.
func permanentStart(err error) bool {
	for _, errno := range []syscall.Errno{syscall.ENOENT, syscall.EACCES, syscall.ENOEXEC,
		syscall.ENOTDIR, syscall.EISDIR, syscall.ELOOP, syscall.ENAMETOOLONG} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// authRefusal explains an HTTP 401 or 403 that no sign-in can answer, which the SDK
// reports as the bare status text: the server wants credentials the config does not
// give and names no OAuth sign-in (no Bearer challenge: a server that names one is
// signed in to, see signin.go), or refuses the ones its "headers" give. Retrying
// with the same headers meets the same answer.
func authRefusal(status int, headers map[string]string, bearer bool) error {
	given := false
	for k := range headers {
		if strings.EqualFold(k, "Authorization") || strings.Contains(strings.ToLower(k), "key") || strings.Contains(strings.ToLower(k), "token") {
			given = true
		}
	}
	what := fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	switch {
	case given && status == http.StatusForbidden:
		return fmt.Errorf("%s: the server refuses access with the credentials in the server's \"headers\"", what)
	case given:
		return fmt.Errorf("%s: the server refuses the credentials in the server's \"headers\"", what)
	}
	how := " (it names no OAuth sign-in)"
	if bearer {
		how = "; it asks for an OAuth sign-in, and this program gives its servers no sign-in handler (upstream.Options.OAuth)"
	}
	return fmt.Errorf(`%s: the server wants authorization; give it a token in the server's "headers" `+
		`(e.g. "Authorization": "Bearer ${TOKEN}")%s`, what, how)
}

// permanentHTTP reports whether an HTTP request failed because the server's
// certificate does not verify: untrusted, expired, or for another name. A server
// that is down or overloaded answers otherwise.
func permanentHTTP(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &hostname)
}
