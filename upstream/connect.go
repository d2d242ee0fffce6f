package upstream

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/telemetry"
)

// connect makes one connection attempt, bounded by the init timeout, and lists the
// server's tools. On success the supervisor is Ready.
func (s *Supervisor) connect() (*conn, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.InitTimeout())
	defer cancel()
	c := newConn(s.ctx)
	transport, err := s.transport(c)
	if err != nil {
		c.cancel()
		c.endCalls()
		return nil, err
	}
	if c.proc != nil {
		// A child that dies during the handshake fails the attempt at once, not at
		// the init timeout.
		go func() {
			select {
			case <-c.proc.exited:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	client := mcp.NewClient(s.opts.ClientInfo, &mcp.ClientOptions{
		// What the client may do: nothing by default, so that servers such as
		// server-everything do not wait for roots; a gateway passes its clients' on.
		Capabilities: s.clientCapabilities(),
		// The middleware follows list changes; these handlers only make the SDK ask
		// for them in the 2026-07-28 era (subscriptions/listen).
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) {},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {},
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) {},
		// Input requests in results go to the Peer (roundTrips), not to handlers.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	client.AddReceivingMiddleware(s.middleware(c))
	client.AddSendingMiddleware(s.roundTrips(c), s.requestEra(c))
	c.client = client
	sess, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: s.protocolVersion()})
	if err == nil {
		c.sess = sess
		var l lists
		if l, err = s.fetchLists(ctx, sess, listTools|listResources|listPrompts, nil); err == nil {
			s.restore(ctx, c)
			s.ready(c, l)
			s.watchDeath(c)
			return c, nil
		}
	}
	c.close(s.opts.StopGrace)
	return nil, s.attemptError(c, ctx, err)
}

// protocolVersion is the MCP version asked for: the server's config's
// ("protocolVersion"), else Options.ProtocolVersion's.
func (s *Supervisor) protocolVersion() string {
	if s.cfg.ProtocolVersion != "" {
		return s.cfg.ProtocolVersion
	}
	return s.opts.ProtocolVersion
}

// attemptError explains a failed attempt in the terms a user can act on.
func (s *Supervisor) attemptError(c *conn, ctx context.Context, err error) error {
	if n := signInNeeded(err); n != nil {
		// The handler's own words ("server notes needs a sign-in: run ..."), not
		// the SDK's wrapping of them.
		return &signInError{n}
	}
	if refused := c.refusal(); refused != nil {
		return permanent(refused)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && s.ctx.Err() == nil {
		return fmt.Errorf("no answer to initialize within %s", s.InitTimeout())
	}
	if c.proc != nil {
		select {
		case <-c.proc.exited:
			// c.close has read the process's stderr to its end.
			msg := "process " + c.proc.exitDescription() + " during start-up"
			if why := c.proc.failure(); why != "" {
				msg += ": " + why
			}
			return errors.New(msg)
		default:
		}
	}
	return err
}

// transport builds a fresh transport for one attempt; for stdio that means a fresh
// process.
func (s *Supervisor) transport(c *conn) (mcp.Transport, error) {
	switch s.cfg.Transport {
	case config.Stdio:
		p, err := startProcess(&s.cfg, s.log, s.stderrLine, s.opts.Redactor)
		if err != nil {
			return nil, err
		}
		c.proc = p
		c.writes = &countingWriter{w: p.stdin}
		// MaxLineLength -1: a tool result may be far larger than the SDK's 16 MiB cap.
		return &mcp.IOTransport{Reader: newJSONLines(p.stdout, s.junk, c), Writer: c.writes, MaxLineLength: -1}, nil
	case config.HTTP, config.SSE:
		// config checks the scheme too; a Server built in code may skip config.
		u, err := url.Parse(s.cfg.URL)
		if err != nil {
			return nil, permanent(fmt.Errorf("url does not parse: %v", errors.Unwrap(err)))
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return nil, permanent(fmt.Errorf("url: unsupported scheme %q (want http or https)", u.Scheme))
		}
	}
	switch s.cfg.Transport {
	case config.HTTP:
		return &connScoped{&mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient(c), MaxEventSize: -1,
			OAuthHandler: s.oauth}, c}, nil
	case config.SSE:
		hc := s.httpClient(c)
		if s.oauth != nil {
			hc.Transport = &oauthTransport{h: s.oauth, base: hc.Transport}
		}
		return &connScoped{&mcp.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc, MaxEventSize: -1}, c}, nil
	}
	return nil, permanent(fmt.Errorf("unknown transport %q", s.cfg.Transport))
}

// connScoped connects a transport under the connection's own context instead of the
// attempt's. The SSE client opens its event stream with the context given to Connect,
// so the attempt's timeout context would cut the stream as soon as the attempt ends.
// The attempt's deadline still bounds the wait.
type connScoped struct {
	mcp.Transport
	c *conn
}

func (t *connScoped) Connect(ctx context.Context) (mcp.Connection, error) {
	type result struct {
		conn mcp.Connection
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		conn, err := t.Transport.Connect(t.c.ctx)
		ch <- result{conn, err}
	}()
	select {
	case r := <-ch:
		return r.conn, r.err
	case <-ctx.Done():
		t.c.cancel()
		if r := <-ch; r.conn != nil {
			r.conn.Close()
		}
		return nil, ctx.Err()
	}
}

// httpClient is the HTTP client of connection notes, which counts the ordered
// notifications in its event streams (see order.go).
func (s *Supervisor) httpClient(notes *conn) *http.Client {
	return &http.Client{Transport: &headerTransport{headers: s.cfg.Headers, base: s.httpBase, notes: notes, oauth: s.oauth != nil,
		forward: s.cfg.ForwardIdentity}}
}

// newHTTPBase is a server's own connection pool. It keeps up to 64 idle
// connections (http.DefaultTransport keeps 2 per host, so 16 concurrent calls
// opened a new TCP connection for every other call).
func newHTTPBase() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 64
	t.MaxIdleConnsPerHost = 64
	return t
}

// headerTransport sends the configured headers on every request, and has notes
// count the ordered notifications in event streams.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
	notes   *conn
	// oauth: the server has a sign-in handler, which takes the refusals that name
	// an OAuth sign-in (a Bearer challenge).
	oauth bool
	// forward: the server's "forwardIdentity" (forward.go).
	forward bool
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 || t.forward || telemetry.Enabled() {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			if !config.IsIdentityHeader(k) { // only forwardIdentity sets those
				r.Header.Set(k, v)
			}
		}
		if t.forward {
			forwardIdentity(r)
		}
		telemetry.Inject(r.Context(), r.Header) // the tools/call span's, for a request that carries a call
	}
	resp, err := lingerRoundTrip(t.base, r)
	if err != nil && permanentHTTP(err) {
		t.notes.refuse(err)
	}
	if err == nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		// The refusals a sign-in may answer are the handler's: a 401 with a Bearer
		// challenge, a 403 for want of a scope.
		bearer, scope := bearerChallenge(resp)
		if !t.oauth || !bearer || (resp.StatusCode == http.StatusForbidden && !scope) {
			t.notes.refuse(authRefusal(resp.StatusCode, t.headers, bearer))
		}
	}
	if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &noteCounter{ReadCloser: resp.Body, c: t.notes}
	}
	return resp, err
}
