package api

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/signin"
)

// Signing in to a remote server through the API (issue 25, item 6). A server that
// wants an OAuth sign-in only a person can make is needs_sign_in. POST
// /v1/servers/{name}/login starts the sign-in (Options.SignIn: the host's, which
// runs the OAuth flow and then has the server connect) and answers {"url"}: the
// authorization server's page, where the person signs in. Its redirect comes back to
// the service's own GET /oauth/callback, at Options.PublicURL when a proxy sits in
// front, else at the address the login request reached: the answer goes to the
// sign-in whose state it carries, the flow takes its tokens, the server connects,
// and its tools appear, announced on /v1/events like every change of a server.
//
// The callback needs no token (the person's browser comes back from the
// authorization server without one), so it is the one route a stranger can reach
// with a code: it takes an answer only for a sign-in started here and still
// waiting, once, by the state the authorization URL carried (a random value that
// only the person sent to the authorization server has seen); any other is refused
// with 400, and reaches no flow. The code is never logged (the request log has the
// path, never the query), and every secret the flow learns goes to the hub's
// redactor (package signin).
//
// Each sign-in is bound to the browser that asked for it, as RFC 9700 (§4.7.1) asks
// of a client's state ("one-time use CSRF tokens carried in the state parameter that
// are securely bound to the user agent"): the login's answer sets a cookie of that
// sign-in's own (HttpOnly, SameSite=Lax, scoped to the callback's path), and the
// callback takes an answer only from a browser that brings it back. Without it,
// bob could have alice open his sign-in's link and approve, and his calls would run
// with her account; her browser's answer is refused instead, and the sign-in waits
// on for bob's. A program (curl) that asks for a sign-in has no browser to bind:
// the URL it gets, opened in a browser, is refused too, with a page that says to
// use the dashboard's Sign in button in that browser (any browser that can reach
// the callback can reach the dashboard).
//
// Signing the service's own connection in is an admin's (identity.Admin): everyone's
// calls run with the account it signs in with.
//
// A server whose "oauth" says "perUser", under a service with identities
// (Options.Identify), is signed in to by each person for themselves: their POST
// /v1/servers/{name}/login starts their own sign-in (one under way per person and
// server), the host stores its tokens under their subject and opens their own
// connection, and GET /v1/servers/{name} tells them whether they have signed in
// ("signedIn"). A request without a person (the static token's admin) signs the
// service itself in, as for any server.

// callbackPath is where the authorization server sends the person's browser back.
const callbackPath = "/oauth/callback"

// signInConnectGrace is how long a sign-in may take, past the person's part
// (Options.SignInTimeout), to exchange its code and have the server connect.
const signInConnectGrace = time.Minute

// callbackWait bounds how long the callback's page waits for the outcome (the token
// request and the server's connection) before it says the sign-in is completing.
const callbackWait = 30 * time.Second

// signInCookiePrefix names the cookies that bind sign-ins to their browsers: one per
// sign-in, so that two under way in one browser (two servers) do not clobber each
// other.
const signInCookiePrefix = "switchboard-signin-"

// signIns are the sign-ins under way through the API, one per server at most, and
// the last failed one of each server until the next begins. The zero value is ready
// to use.
type signIns struct {
	mu       sync.Mutex
	byServer map[string]*pendingSignIn
	byState  map[string]*pendingSignIn
	failed   map[string]*signInState
	wg       sync.WaitGroup // the sign-ins' goroutines, waited for by Shutdown
}

// pendingSignIn is one sign-in under way.
type pendingSignIn struct {
	server string
	// person is whose own sign-in it is, for a "perUser" server (a zero Person: the
	// service's own); key is what signIns keep it under (signInKey).
	person identity.Person
	key    string
	cb     *signin.Callback
	since  time.Time
	// cookie names the cookie that binds the sign-in to the browser that asked for
	// it, and bind is its value: random, known only to that browser and here.
	cookie string
	bind   string

	shownOnce sync.Once
	shown     chan struct{} // closed once url is known
	url       string

	done   chan struct{} // closed once the sign-in ended: status and err
	status hub.Status
	err    error
}

// signInState is a sign-in through the API, as GET /v1/servers shows it under
// "signIn": one waiting for the person, or the last that failed (until the next
// begins, or the server is ready).
type signInState = apiwire.SignIn

// signInOf is the sign-in of a server to show with its status, nil when there is none.
func (s *Server) signInOf(st hub.Status) *signInState {
	si := &s.signIns
	si.mu.Lock()
	defer si.mu.Unlock()
	if p := si.byServer[st.Name]; p != nil && p.url != "" {
		return &signInState{State: "waiting", Since: p.since}
	}
	if f := si.failed[st.Name]; f != nil && st.State != hub.Ready {
		c := *f
		return &c
	}
	return nil
}

// ownSignIn adds to info, for a request of a person, whether they have signed in
// to the server for themselves, when it is "perUser".
func (s *Server) ownSignIn(r *http.Request, info serverInfo) serverInfo {
	if v, ok := s.hub.PersonSignedIn(r.Context(), info.Name); ok {
		info.SignedIn = &v
	}
	return info
}

// startSignIn serves POST /v1/servers/{name}/login: it starts the server's sign-in
// (or takes the one under way) and answers {"url"} once the authorization URL is
// known, or the error that ended the sign-in before it.
func (s *Server) startSignIn(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if _, e := s.findServer(r.Context(), name); e != nil {
		writeAPIError(w, r, e)
		return
	}
	if s.opts.SignIn == nil {
		writeError(w, r, http.StatusNotImplemented, apiwire.CodeNotSupported, "this service signs in to no server (api.Options.SignIn is not set)")
		return
	}
	if srv, ok := s.hub.Server(name); !ok || !signin.Signs(srv) {
		writeError(w, r, http.StatusConflict, apiwire.CodeNoSignIn, fmt.Sprintf(`server %s takes no sign-in: only an HTTP or SSE server whose "headers" carry no Authorization header is signed in to`, name))
		return
	}
	base := s.opts.PublicURL
	if base == "" {
		base = origin(r)
	}
	var person identity.Person
	if p, ok := identity.FromContext(r.Context()); ok && p.Subject != "" {
		if srv, _ := s.hub.Server(name); signin.PerUser(srv) {
			person = p // their own sign-in, not the service's
		}
	}
	if person.Subject == "" && !identity.Admin(r.Context()) {
		// The service's own connection is everyone's: signed in with a person's
		// account, everyone's calls would run as them.
		writeError(w, r, http.StatusForbidden, apiwire.CodeForbidden, fmt.Sprintf("only an admin signs in a shared server: everyone's calls to %s run with the account it signs in with", name))
		return
	}
	p := s.signIn(name, person, base, s.logOf(r.Context()))
	select {
	case <-p.shown:
	case <-p.done:
	case <-r.Context().Done():
		return
	}
	select {
	case <-p.shown: // shown first, whatever came of it since
		s.bindBrowser(w, p)
		writeJSON(w, http.StatusOK, map[string]string{"url": p.url})
		return
	default:
	}
	if s.base.Err() != nil {
		writeError(w, r, http.StatusServiceUnavailable, apiwire.CodeUnavailable, "the service is shutting down")
		return
	}
	writeError(w, r, http.StatusBadGateway, apiwire.CodeSignInFailed, p.err.Error())
}

// bindBrowser sets the cookie that binds p to the browser of the request w answers
// (bound): at the path of the callback as the browser sees it (under PublicURL's
// path behind a proxy), Secure when that is https, for as long as the sign-in
// waits. A second login of the same sign-in (the same person's, or for the
// service's own an admin's) binds its browser too.
func (s *Server) bindBrowser(w http.ResponseWriter, p *pendingSignIn) {
	c := p.cookieAt(int(s.opts.SignInTimeout.Round(time.Second) / time.Second))
	c.Value = p.bind
	http.SetCookie(w, c)
}

// cookieAt is p's cookie, without its value, with maxAge (seconds; negative: delete it).
func (p *pendingSignIn) cookieAt(maxAge int) *http.Cookie {
	path, secure := callbackPath, false
	if u, err := url.Parse(p.cb.URI()); err == nil {
		path, secure = u.EscapedPath(), u.Scheme == "https"
	}
	return &http.Cookie{Name: p.cookie, Path: path, MaxAge: maxAge, Secure: secure, HttpOnly: true, SameSite: http.SameSiteLaxMode}
}

// bound reports whether r comes from a browser that asked for p: it brings p's cookie.
func (p *pendingSignIn) bound(r *http.Request) bool {
	c, err := r.Cookie(p.cookie)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(p.bind)) == 1
}

// randomToken is n random bytes, base64url: unguessable, and fit for a cookie.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// origin is the scheme and host the request reached the service at: where the
// person's browser, which reached it too, comes back to.
func origin(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// signInKey is what the sign-ins under way keep one under: the server's name for
// the service's own, the name and the subject for a person's own.
func signInKey(name string, person identity.Person) string {
	if person.Subject == "" {
		return name
	}
	return name + "\x00" + person.Subject
}

// signIn returns the sign-in of the named server under way (person's own, when
// person has a subject), or starts one whose redirect comes back to base's
// callback. It runs until the person comes back (or Options.SignInTimeout passes)
// and the server has connected, or Shutdown.
func (s *Server) signIn(name string, person identity.Person, base string, log *slog.Logger) *pendingSignIn {
	key := signInKey(name, person)
	si := &s.signIns
	si.mu.Lock()
	defer si.mu.Unlock()
	if p := si.byServer[key]; p != nil {
		return p
	}
	if si.byServer == nil {
		si.byServer, si.byState, si.failed = map[string]*pendingSignIn{}, map[string]*pendingSignIn{}, map[string]*signInState{}
	}
	p := &pendingSignIn{server: name, person: person, key: key, since: time.Now(), shown: make(chan struct{}), done: make(chan struct{}),
		cb:     signin.NewCallback(base+callbackPath, s.opts.SignInTimeout),
		cookie: signInCookiePrefix + randomToken(9), bind: randomToken(32)}
	si.byServer[key] = p
	delete(si.failed, key)
	log.Info("sign-in started over the API", "server", name, "own", person.Subject != "", "redirect_uri", p.cb.URI())
	si.wg.Add(1)
	go s.runSignIn(p)
	return p
}

// runSignIn runs one sign-in to its end and reports it: the state, an event, a log line.
func (s *Server) runSignIn(p *pendingSignIn) {
	defer s.signIns.wg.Done()
	ctx, cancel := context.WithTimeout(s.base, s.opts.SignInTimeout+signInConnectGrace)
	defer cancel()
	if p.person.Subject != "" {
		ctx = identity.NewContext(ctx, p.person) // the sign-in is theirs: Options.SignIn keeps it under their subject
	}
	st, err := s.opts.SignIn(ctx, p.server, p.cb.With(func(authURL string) { s.shown(p, authURL) }))
	if err != nil {
		// The flow masks what it learnt; the hub's redactor masks the config's too.
		err = errors.New(s.hub.Redactor().String(err.Error()))
	}
	si := &s.signIns
	si.mu.Lock()
	p.status, p.err = st, err
	delete(si.byServer, p.key)
	for state, q := range si.byState {
		if q == p {
			delete(si.byState, state)
		}
	}
	if err != nil {
		si.failed[p.key] = &signInState{State: "failed", Since: time.Now(), Error: err.Error()}
	}
	si.mu.Unlock()
	close(p.done)
	own := p.person.Subject != ""
	change := "signed in"
	if own {
		change = "a person signed in for themselves"
	}
	if err != nil {
		change = "sign-in failed: " + err.Error()
		if own {
			change = "a person's own sign-in failed"
		}
		s.log.Warn("sign-in failed", "server", p.server, "own", own, "err", err)
	} else {
		s.log.Info("signed in over the API", "server", p.server, "own", own, "state", st.State, "tools", st.Tools)
	}
	s.announce(p.server, change)
}

// shown takes the sign-in's authorization URL: the login request's answer, and its
// state the key the callback finds the sign-in by.
func (s *Server) shown(p *pendingSignIn, authURL string) {
	p.shownOnce.Do(func() {
		state := ""
		if u, err := url.Parse(authURL); err == nil {
			state = u.Query().Get("state")
		}
		si := &s.signIns
		si.mu.Lock()
		p.url = authURL
		if state != "" {
			si.byState[state] = p
		}
		si.mu.Unlock()
		close(p.shown)
		s.announce(p.server, "waiting for the sign-in")
	})
}

// announce sends the server's status on /v1/events with the change of its sign-in.
func (s *Server) announce(name, change string) {
	st := hub.Status{Name: name, State: hub.Closed}
	for _, x := range s.hub.Status() {
		if x.Name == name {
			st = x
			break
		}
	}
	s.live.servers.notify(hub.Event{Server: name, State: st.State, Reason: change})
}

// oauthCallback serves GET /oauth/callback: the authorization server's answer, for
// the sign-in whose state it carries. The page says what came of it, once the
// server connected (or callbackWait passed).
func (s *Server) oauthCallback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	si := &s.signIns
	si.mu.Lock()
	p := si.byState[q.Get("state")]
	si.mu.Unlock()
	if p != nil && !p.bound(r) {
		// Not handed to the flow: the sign-in waits on for the browser that asked
		// for it, and the code this browser brought is never exchanged.
		s.logOf(r.Context()).Warn("an authorization answer from a browser that did not start the sign-in, refused",
			"server", p.server, "own", p.person.Subject != "")
		callbackPage(w, http.StatusForbidden, "This browser did not start the sign-in to "+p.server,
			"A sign-in completes only in the browser that asked for it, so that nobody can have you sign in for them: "+
				"if someone sent you this link, your account would have become theirs to use. Nothing was signed in. "+
				"To sign in yourself, use the Sign in button of the dashboard in this browser.")
		return
	}
	if p == nil || !p.cb.Deliver(q) {
		s.logOf(r.Context()).Warn("an authorization answer that no sign-in waits for, refused (a sign-in over, or never started here)")
		callbackPage(w, http.StatusBadRequest, "No sign-in waits for this answer",
			"The sign-in it belongs to is over (each takes one answer, within its time), or it was not started here. Start it again from the dashboard.")
		return
	}
	http.SetCookie(w, p.cookieAt(-1)) // taken once: the browser forgets it
	t := time.NewTimer(callbackWait)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		callbackPage(w, http.StatusOK, "Signing in to "+p.server,
			"The sign-in is being completed; the dashboard shows the server's state as it changes. You can close this tab.")
		return
	case <-r.Context().Done():
		return
	}
	switch {
	case p.err != nil:
		callbackPage(w, http.StatusOK, "The sign-in to "+p.server+" did not succeed", p.err.Error())
	case p.status.State == hub.Ready:
		callbackPage(w, http.StatusOK, "Signed in to "+p.server,
			fmt.Sprintf("%s is ready with %s. You can close this tab.", p.server, plural(p.status.Tools, "tool")))
	default:
		why := s.hub.NotReadyReason(p.status)
		if why != "" {
			why = ": " + why
		}
		callbackPage(w, http.StatusOK, "Signed in to "+p.server,
			fmt.Sprintf("The sign-in is done, but %s is %s%s. The dashboard shows its state as it changes.", p.server, p.status.State, why))
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// callbackTemplate is the page the person's browser shows after the sign-in: the
// dashboard's style sheet and a link back to it, relative, so that they hold behind a
// proxy that serves the API under a path of its own.
var callbackTemplate = template.Must(template.New("callback").Parse(`<!doctype html>
<html lang="en">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · Switchboard</title>
<link rel="stylesheet" href="../dashboard/style.css">
<main class="callback">
<h1 id="outcome">{{.Title}}</h1>
<p id="detail">{{.Detail}}</p>
<p><a href="../">Back to the dashboard</a></p>
</main>
`))

// callbackPage writes the callback's page, its text escaped (an error may quote what
// an authorization server said). It is never cached, and sends no referrer: its
// address held the code.
func callbackPage(w http.ResponseWriter, status int, title, detail string) {
	dashboardHeaders(w, pagePolicy)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = callbackTemplate.Execute(w, struct{ Title, Detail string }{title, detail})
}

// CheckPublicURL reports an Options.PublicURL that no callback can be built on, as
// New does (a command line checks its flag with it before anything starts).
func CheckPublicURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return fmt.Errorf("%q is not a URL browsers can reach the service at: want http or https, a host, and no query or fragment (e.g. https://switchboard.example.com)", s)
	}
	return nil
}
