package upstream

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// A server that wants an OAuth sign-in gets its Options.OAuth handler (package
// signin's, as a rule): the SDK's Streamable HTTP transport takes it as it is, and
// oauthTransport does the same for the legacy SSE transport, which takes none.
// When the handler cannot sign in without a person, its error says so
// (NeedsSignIn), and the server is NeedsSignIn instead of failed: not retried with
// backoff, since nothing changes until somebody signs in; waiting instead for the
// handler to say that somebody did (WaitSignIn: in this process, or in another
// that stored the sign-in), for Retry, or for the slow retry.

// signInNeeder is what an OAuth handler's error is when only a person can sign in
// (signin.NeedsSignInError; upstream does not import signin).
type signInNeeder interface {
	error
	NeedsSignIn() bool
}

// signInNeeded returns the handler's request for a sign-in that err is or wraps;
// nil when it is none.
func signInNeeded(err error) error {
	var n signInNeeder
	if err != nil && errors.As(err, &n) && n.NeedsSignIn() {
		return n
	}
	return nil
}

// signInError is an attempt's error that only a sign-in heals.
type signInError struct{ err error }

func (e *signInError) Error() string { return e.err.Error() }
func (e *signInError) Unwrap() error { return e.err }

// signInWaiter is a handler that can tell when a sign-in is there to use
// (signin.Handler.WaitSignIn).
type signInWaiter interface {
	WaitSignIn(ctx context.Context) error
}

// awaitSignIn waits, in the NeedsSignIn state, for a sign-in (the handler's
// WaitSignIn), for Retry, or for RetryFailed; false means the supervisor closed.
func (s *Supervisor) awaitSignIn() bool {
	ctx, cancel := context.WithCancel(s.ctx)
	if s.opts.RetryFailed > 0 {
		ctx, cancel = context.WithTimeout(s.ctx, s.opts.RetryFailed)
	}
	defer cancel()
	done := make(chan struct{})
	if w, ok := s.oauth.(signInWaiter); ok {
		go func() {
			defer close(done)
			w.WaitSignIn(ctx)
		}()
	} else {
		close(done)
		done = nil // nothing to wait for but Retry and the slow retry
	}
	select {
	case <-done:
	case <-s.retry:
	case <-ctx.Done():
	}
	cancel()
	if done != nil {
		<-done
	}
	// A Retry that came along with the sign-in asks for the attempt about to be
	// made, not for another one later.
	select {
	case <-s.retry:
	default:
	}
	return s.ctx.Err() == nil
}

// Retry makes a failed server, or one that needs a sign-in, try to connect now
// instead of at its slow retry (after a sign-in, say): it is Connecting when Retry
// returns true. A server in any other state is left alone (false).
func (s *Supervisor) Retry() bool {
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	if st != Failed && st != NeedsSignIn {
		return false
	}
	s.setState(Connecting, "retrying now")
	select {
	case s.retry <- struct{}{}:
	default:
	}
	return true
}

// oauthTransport does for the legacy SSE transport what the SDK's Streamable HTTP
// transport does with an OAuthHandler: it sends the handler's token on every
// request, and on a 401 or 403 calls Authorize and, when that succeeds, sends the
// request once more (not again after a second refusal, as the SDK's
// auth.OAuthHandler asks).
type oauthTransport struct {
	h    auth.OAuthHandler
	base http.RoundTripper
}

func (t *oauthTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, sent, err := t.send(r)
	if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	if r.Body != nil && r.Body != http.NoBody && r.GetBody == nil {
		return resp, nil // a body that cannot be sent again: the refusal stands
	}
	if err := t.h.Authorize(r.Context(), sent, resp); err != nil {
		return nil, err
	}
	resp, _, err = t.send(r)
	return resp, err
}

// send sends a copy of r with the handler's token.
func (t *oauthTransport) send(r *http.Request) (*http.Response, *http.Request, error) {
	rr := r.Clone(r.Context())
	if r.GetBody != nil {
		body, err := r.GetBody()
		if err != nil {
			return nil, nil, err
		}
		rr.Body = body
	}
	ts, err := t.h.TokenSource(r.Context())
	if err != nil {
		return nil, nil, err
	}
	if ts != nil {
		tok, err := ts.Token()
		if err != nil {
			return nil, nil, err
		}
		if tok != nil && tok.AccessToken != "" {
			rr.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
	}
	resp, err := t.base.RoundTrip(rr)
	return resp, rr, err
}

// bearerChallenge reports whether a refusal names an OAuth sign-in (a Bearer
// challenge in WWW-Authenticate), and whether it asks for more scope
// (error="insufficient_scope"). Without a challenge there is nothing a handler can
// do, and the refusal is told as it was before sign-ins (authRefusal).
func bearerChallenge(resp *http.Response) (bearer, insufficientScope bool) {
	for _, v := range resp.Header.Values("WWW-Authenticate") {
		if f := strings.Fields(v); len(f) > 0 && strings.EqualFold(f[0], "Bearer") {
			bearer = true
			insufficientScope = insufficientScope || strings.Contains(v, "insufficient_scope")
		}
	}
	return bearer, insufficientScope
}
