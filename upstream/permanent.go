package upstream

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
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
