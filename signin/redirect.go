package signin

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"sync"
	"time"
)

// DefaultSignInTimeout is how long a sign-in waits for the person to come back from
// the authorization server's page.
const DefaultSignInTimeout = 5 * time.Minute

// Redirect takes a person to an authorization URL and takes the authorization
// server's answer where it sends the person's browser back: the CLI's [Loopback] (a
// listener on 127.0.0.1), or a service's own route ([Callback], serve's
// /oauth/callback).
type Redirect interface {
	// Prepare readies one sign-in. want is the redirect URI the client was
	// registered with, or that the config demands when exact is set; "" for any. A
	// Redirect that cannot take a want that is not exact returns another URI, and
	// the client is registered again for it.
	Prepare(ctx context.Context, want string, exact bool) (Pending, error)
}

// Pending is one sign-in under way at a Redirect.
type Pending interface {
	// URI is the redirect URI of this sign-in.
	URI() string
	// Await sends the person to authURL and returns the query of the request the
	// authorization server's redirect brought back (code, state, iss; or error).
	Await(ctx context.Context, authURL string) (url.Values, error)
	// Close releases what Prepare took (a listener, a browser).
	Close() error
}

// Loopback is the Redirect of a program at the person's own machine (RFC 8252's
// loopback interface redirection, which the MCP spec asks native clients to use): a
// listener on 127.0.0.1 (a free port, or the one the registration or the config
// names) that takes one redirect, with the person's browser opened on the
// authorization URL, which is always printed too.
type Loopback struct {
	// Server names the server in what is printed.
	Server string
	// Out gets the authorization URL and what to do with it (the terminal's stderr).
	Out io.Writer
	// Browser opens the URL in the person's browser; nil: the URL is printed only
	// (switchboard login --no-browser), for the person to open.
	Browser *Browser
	// Timeout bounds the wait for the person ([DefaultSignInTimeout]).
	Timeout time.Duration
}

// callbackPath is the redirect URI's path when nothing says otherwise.
const callbackPath = "/callback"

// Prepare implements Redirect: it listens on want's address (a port of its own when
// want is "" or its port is taken and want is not exact).
func (l *Loopback) Prepare(ctx context.Context, want string, exact bool) (Pending, error) {
	addr, path := "127.0.0.1:0", callbackPath
	if want != "" {
		u, err := url.Parse(want)
		if err != nil || u.Scheme != "http" || u.Port() == "" {
			if exact {
				return nil, fmt.Errorf("redirect URI %s: want http://127.0.0.1:PORT/PATH", want)
			}
		} else {
			addr, path = u.Host, u.EscapedPath()
		}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil && exact {
		return nil, fmt.Errorf("listening for the sign-in's redirect on %s (the config's \"oauth\": {\"redirectUri\"}): %v; end what holds the port, or register another redirect URI", addr, err)
	}
	if err != nil {
		// The port the registration was made with is taken: another port, and a
		// new registration for it.
		addr, path = "127.0.0.1:0", callbackPath
		if ln, err = lc.Listen(ctx, "tcp", addr); err != nil {
			return nil, fmt.Errorf("listening for the sign-in's redirect: %v", err)
		}
	}
	if path == "" {
		path = "/"
	}
	host := ln.Addr().String()
	if want != "" && exact {
		if u, err := url.Parse(want); err == nil && u.Hostname() == "localhost" {
			host = u.Host // as registered, name and all
		}
	}
	p := &loopbackPending{l: l, ln: ln, uri: "http://" + host + path, got: make(chan url.Values, 1), served: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc(path, p.callback)
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(p.served)
		p.srv.Serve(ln)
	}()
	return p, nil
}

type loopbackPending struct {
	l       *Loopback
	ln      net.Listener
	srv     *http.Server
	uri     string
	got     chan url.Values
	served  chan struct{}
	once    sync.Once
	mu      sync.Mutex
	browser *exec.Cmd
}

func (p *loopbackPending) URI() string { return p.uri }

// callback takes the redirect: the first one's query is the answer.
func (p *loopbackPending) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if !q.Has("code") && !q.Has("error") {
		http.Error(w, "not an authorization response", http.StatusBadRequest)
		return
	}
	taken := false
	p.once.Do(func() {
		p.got <- q
		taken = true
	})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch {
	case !taken:
		fmt.Fprint(w, page("This sign-in is over already. You can close this tab."))
	case q.Has("error"):
		fmt.Fprint(w, page("The sign-in to "+p.l.Server+" did not succeed ("+q.Get("error")+"). You can close this tab."))
	default:
		fmt.Fprint(w, page("Signed in to "+p.l.Server+". You can close this tab and go back to the terminal."))
	}
}

func page(msg string) string {
	return "<!doctype html><title>Switchboard</title><p style=\"font: 16px system-ui; margin: 3em\">" + html.EscapeString(msg) + "</p>\n"
}

// Await prints the URL, opens the browser on it, and waits for the redirect. A URL
// that is not http or https is neither printed nor opened (checkAuthURL).
func (p *loopbackPending) Await(ctx context.Context, authURL string) (url.Values, error) {
	if err := checkAuthURL(authURL); err != nil {
		return nil, err
	}
	if p.l.Out != nil {
		fmt.Fprintf(p.l.Out, "To sign in to %s, open this URL in a browser:\n\n  %s\n\n", p.l.Server, authURL)
	}
	if p.l.Browser != nil {
		cmd, err := p.l.Browser.start(authURL)
		if err != nil {
			if p.l.Out != nil {
				fmt.Fprintf(p.l.Out, "(could not open a browser: %v; open the URL yourself)\n", err)
			}
		} else {
			p.mu.Lock()
			p.browser = cmd
			p.mu.Unlock()
		}
	}
	timeout := p.l.Timeout
	if timeout <= 0 {
		timeout = DefaultSignInTimeout
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case q := <-p.got:
		return q, nil
	case <-t.C:
		return nil, fmt.Errorf("no answer from the browser within %s: the sign-in to %s was not completed; run 'switchboard login %s' again", timeout, p.l.Server, p.l.Server)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close stops the listener (the answer's page is sent first) and waits for the
// browser command a moment before it ends it.
func (p *loopbackPending) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := p.srv.Shutdown(ctx); err != nil {
		p.srv.Close()
	}
	<-p.served
	p.mu.Lock()
	cmd := p.browser
	p.mu.Unlock()
	if cmd != nil {
		waitOrKill(cmd, 2*time.Second)
	}
	return nil
}

// Callback is the Redirect of a service whose own route takes the authorization
// server's answer (serve's GET /oauth/callback, at its public URL): every sign-in
// has the one redirect URI, and the request's state tells them apart. With gives
// one sign-in its Redirect; the route's handler is the Callback itself.
type Callback struct {
	uri     string
	timeout time.Duration

	mu      sync.Mutex
	pending map[string]chan url.Values
}

// NewCallback returns the Callback whose route is at uri; timeout bounds each
// sign-in's wait (0: DefaultSignInTimeout).
func NewCallback(uri string, timeout time.Duration) *Callback {
	if timeout <= 0 {
		timeout = DefaultSignInTimeout
	}
	return &Callback{uri: uri, timeout: timeout, pending: map[string]chan url.Values{}}
}

// URI is the route's URL, the redirect URI of every sign-in through it.
func (c *Callback) URI() string { return c.uri }

// With returns the Redirect of one sign-in: show is given the authorization URL (a
// service hands it to whoever asked for the sign-in, whose browser goes there).
func (c *Callback) With(show func(authURL string)) Redirect {
	return callbackRedirect{c: c, show: show}
}

type callbackRedirect struct {
	c    *Callback
	show func(string)
}

func (r callbackRedirect) Prepare(_ context.Context, want string, exact bool) (Pending, error) {
	if exact && want != r.c.uri {
		return nil, fmt.Errorf("the server's config demands the redirect URI %s; this service's is %s", want, r.c.uri)
	}
	return &callbackPending{r: r}, nil
}

type callbackPending struct {
	r     callbackRedirect
	state string
}

func (p *callbackPending) URI() string { return p.r.c.uri }

func (p *callbackPending) Await(ctx context.Context, authURL string) (url.Values, error) {
	// Never handed on to a person's browser (the API's answer, the dashboard's
	// tab) unless it is a web page's.
	if err := checkAuthURL(authURL); err != nil {
		return nil, err
	}
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, err
	}
	p.state = u.Query().Get("state")
	ch := make(chan url.Values, 1)
	c := p.r.c
	c.mu.Lock()
	c.pending[p.state] = ch
	c.mu.Unlock()
	if p.r.show != nil {
		p.r.show(authURL)
	}
	t := time.NewTimer(c.timeout)
	defer t.Stop()
	select {
	case q := <-ch:
		return q, nil
	case <-t.C:
		return nil, fmt.Errorf("no answer from the browser within %s: the sign-in was not completed", c.timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *callbackPending) Close() error {
	c := p.r.c
	c.mu.Lock()
	delete(c.pending, p.state)
	c.mu.Unlock()
	return nil
}

// Deliver hands an authorization server's answer (the query of its redirect: code,
// state and iss, or error) to the sign-in whose state it carries, and reports
// whether one waited for it. Each sign-in takes one answer; a state nobody waits
// for (a sign-in over, or one never started: a forged request) and a query that is
// no authorization response are refused, and reach no sign-in. A service whose
// route says more than ServeHTTP does (serve's page waits for the outcome) calls it.
func (c *Callback) Deliver(q url.Values) bool {
	state := q.Get("state")
	if state == "" || (!q.Has("code") && !q.Has("error")) {
		return false
	}
	c.mu.Lock()
	ch := c.pending[state]
	delete(c.pending, state)
	c.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- q // buffered, and taken once: never blocks
	return true
}

// ServeHTTP takes an authorization server's redirect: the sign-in whose state it
// carries gets its query (Deliver). A state nobody waits for is a 400 (a sign-in
// over, or a forged request). It does not check which browser brings the answer:
// use it where the one person who started each sign-in is the only one who can
// (a service of one person). A service of many people binds each sign-in to the
// browser that started it and calls Deliver only for that browser (RFC 9700,
// section 4.7.1), as serve's route does, or anyone could have someone else sign
// in for them.
func (c *Callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if !c.Deliver(q) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, page("No sign-in waits for this answer (it is over, or it was not asked for here)."))
		return
	}
	if q.Has("error") {
		fmt.Fprint(w, page("The sign-in did not succeed ("+q.Get("error")+"). You can close this tab."))
		return
	}
	fmt.Fprint(w, page("Signed in. You can close this tab."))
}

// errNoRedirect is SignIn's error without a Redirect.
var errNoRedirect = errors.New("signin: no Redirect to bring a person to the authorization server")
