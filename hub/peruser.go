package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// Per-person connections. A server whose "oauth" says "perUser" is signed in to by
// each person for themselves, under a service with identities: a call whose context
// carries a person with a subject (identity.FromContext: the API's requests, the
// agent's turns, the gateway's calls over the API) goes to that person's own
// connection, a supervisor of its own that signs in with their own tokens
// (PerUserOptions.OAuth), started at their first call, closed when it has been idle
// for PerUserOptions.Idle, at most PerUserOptions.Max of them open at once (the
// least recently used idle one makes room; when every one is busy the call gets an
// error result that says so). A person who has not signed in gets an error result at
// once that says how to ("server linear needs your sign-in: ..."), and no connection
// is made. A call without a person (the CLI, mcp, a service without identities)
// goes to the server's own connection, as for any server. Prompts got, resources
// read and completions go the same way as tool calls (doRoute); the lists of
// prompts and resources are the server's own connection's.
//
// The catalog: the tools are the server's, the same for everyone. They come from
// the service's own connection when it is up (the service signed in too), else from
// the last list a person's connection brought, kept after that connection closes,
// so that a tool a person holds does not vanish from the catalog when their
// connection idles out. Status reports the service's own connection's state, with
// PerUser and how many people have a connection of their own open.

// Defaults of PerUserOptions.
const (
	// DefaultPerUserIdle is how long a person's own connection may go unused before
	// it closes.
	DefaultPerUserIdle = 10 * time.Minute
	// DefaultPerUserMax bounds the persons' own connections open at once, every
	// "perUser" server together.
	DefaultPerUserMax = 100
)

// PerUserOptions give a hub the persons' own connections to "perUser" servers. A
// nil *PerUserOptions (or a nil OAuth) keeps every call on the servers' own
// connections.
type PerUserOptions struct {
	// OAuth returns the handler of the person subject's own sign-in to a server
	// (signin.Handlers.Person); nil for a server that is not signed in to. A handler
	// with a SignInNeeded(ctx) error method is asked before a connection is made.
	OAuth func(s config.Server, subject string) auth.OAuthHandler
	// Idle closes a person's connection unused this long ([DefaultPerUserIdle]).
	Idle time.Duration
	// Max bounds the persons' connections open at once ([DefaultPerUserMax]).
	Max int
}

// ErrTooManyPeople is the error of a call that would open a person's connection
// past PerUserOptions.Max while every open one is busy.
var ErrTooManyPeople = errors.New("too many people have connections of their own open, every one busy")

// signInNeeder is a handler that tells at once that its person has not signed in
// (signin.Handler.SignInNeeded).
type signInNeeder interface {
	SignInNeeded(ctx context.Context) error
}

// people are the persons' own connections of one hub. The zero value with opts set
// is ready to use; close ends it.
type people struct {
	opts PerUserOptions

	mu      sync.Mutex
	conns   map[personKey]*personConn
	known   map[*upstream.Supervisor]upstream.Lists // the last lists a person's connection listed, by server
	closed  bool
	running bool          // the janitor
	stop    chan struct{} // closed by close: the janitor returns
	wg      sync.WaitGroup
}

// personKey is a person's connection's key: the server's own supervisor (replaced
// by a restart or a reload, which leaves the old key's connections to the janitor)
// and the person's subject.
type personKey struct {
	shared  *upstream.Supervisor
	subject string
}

// personConn is one person's connection to one server.
type personConn struct {
	sup  *upstream.Supervisor
	busy int       // calls under way
	used time.Time // when the last call began or ended
}

func newPeople(o *PerUserOptions) *people {
	if o == nil || o.OAuth == nil {
		return nil
	}
	p := &people{opts: *o, conns: map[personKey]*personConn{}, known: map[*upstream.Supervisor]upstream.Lists{},
		stop: make(chan struct{})}
	if p.opts.Idle <= 0 {
		p.opts.Idle = DefaultPerUserIdle
	}
	if p.opts.Max <= 0 {
		p.opts.Max = DefaultPerUserMax
	}
	return p
}

// perUser reports whether each person signs in to s for themselves.
func perUser(s config.Server) bool { return s.OAuth != nil && s.OAuth.PerUser }

// personOf is the subject whose own connection a call from ctx to the server of
// shared (a tool, a prompt, a resource, a completion) goes to; "" for the server's own connection.
func (h *Hub) personOf(ctx context.Context, shared *upstream.Supervisor) string {
	if h.people == nil || !perUser(shared.Config()) {
		return ""
	}
	p, _ := identity.FromContext(ctx)
	return p.Subject
}

// callRoute runs a call of r's tool on the connection it goes to (see connOf).
func (h *Hub) callRoute(ctx context.Context, r route, args json.RawMessage) (*mcp.CallToolResult, error) {
	sup, release, err := h.connOf(ctx, r.sup)
	if err != nil {
		return nil, err
	}
	defer release()
	return sup.Call(ctx, r.original, args)
}

// doRoute runs fn, a request other than tools/call (prompts/get, resources/read,
// completion/complete), on the connection a call from ctx to the server of shared
// goes to (see connOf).
func (h *Hub) doRoute(ctx context.Context, shared *upstream.Supervisor, fn func(context.Context, *mcp.ClientSession) error) error {
	sup, release, err := h.connOf(ctx, shared)
	if err != nil {
		return err
	}
	defer release()
	return sup.Do(ctx, fn)
}

// connOf is the connection a call from ctx to the server of shared goes to, with
// the function that ends its use: the caller's own for a "perUser" server (an error
// that says how to sign in when they have not), else the server's.
func (h *Hub) connOf(ctx context.Context, shared *upstream.Supervisor) (*upstream.Supervisor, func(), error) {
	subject := h.personOf(ctx, shared)
	if subject == "" {
		return shared, func() {}, nil
	}
	return h.people.acquire(ctx, h, shared, subject)
}

// acquire returns the connection of subject to the server of shared, opened when it
// is not, with the function that ends its use; an error when the person has not
// signed in, or no connection can be opened.
func (p *people) acquire(ctx context.Context, h *Hub, shared *upstream.Supervisor, subject string) (*upstream.Supervisor, func(), error) {
	cfg := shared.Config()
	oh := p.opts.OAuth(cfg, subject)
	if oh == nil {
		return shared, func() {}, nil
	}
	if n, ok := oh.(signInNeeder); ok {
		if err := n.SignInNeeded(ctx); err != nil {
			return nil, nil, err
		}
	}
	h.mu.Lock()
	o := h.upOpts
	h.mu.Unlock()
	k := personKey{shared, subject}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, nil, ErrClosed
	}
	c := p.conns[k]
	var evict *upstream.Supervisor
	if c == nil {
		if len(p.conns) >= p.opts.Max {
			var lru personKey
			for k, c := range p.conns {
				if c.busy == 0 && (evict == nil || c.used.Before(p.conns[lru].used)) {
					lru, evict = k, c.sup
				}
			}
			if evict == nil {
				p.mu.Unlock()
				return nil, nil, fmt.Errorf("%w (%d, the most this service keeps): try again in a moment", ErrTooManyPeople, p.opts.Max)
			}
			delete(p.conns, lru)
		}
		o.OAuth = func(config.Server) auth.OAuthHandler { return oh }
		o.OnEvent = func(e upstream.Event) { h.personEvent(shared, e) }
		o.Logger = o.Logger.With("subject", subject)
		c = &personConn{sup: upstream.New(cfg, &o)}
		p.conns[k] = c
		c.sup.Start()
		if !p.running {
			p.running = true
			p.wg.Add(1)
			go p.janitor()
		}
	}
	c.busy++
	c.used = time.Now()
	p.mu.Unlock()
	if evict != nil {
		evict.Close()
	}
	return c.sup, func() {
		p.mu.Lock()
		c.busy--
		c.used = time.Now()
		p.mu.Unlock()
	}, nil
}

// personEvent follows a person's connection to the server of shared: the lists it
// lists (tools, prompts, resources, templates) are the server's, for the catalog
// when the server's own connection is not up.
func (h *Hub) personEvent(shared *upstream.Supervisor, e upstream.Event) {
	if !e.ToolsChanged && !e.ResourcesChanged && !e.PromptsChanged {
		return
	}
	p := h.people
	p.mu.Lock()
	var lists upstream.Lists
	for k, c := range p.conns {
		if k.shared == shared {
			if l := c.sup.Lists(); l.State == upstream.Ready && l.Tools != nil {
				lists = l
				break
			}
		}
	}
	if lists.Tools != nil {
		p.known[shared] = lists
	}
	p.mu.Unlock()
	if lists.Tools != nil {
		h.onEvent(upstream.Event{Server: e.Server, State: shared.State(), Reason: "a person's connection listed the server's lists",
			ToolsChanged: e.ToolsChanged, ResourcesChanged: e.ResourcesChanged, PromptsChanged: e.PromptsChanged})
	}
}

// lists are the server's lists for the catalog, read under h.mu: its own
// connection's, else, for a "perUser" server whose own connection is not up, the
// lists its persons' connections last listed.
func (h *Hub) lists(s *upstream.Supervisor) upstream.Lists {
	l := s.Lists()
	if l.State == upstream.Ready || l.State == upstream.Reconnecting || h.people == nil || !perUser(s.Config()) {
		return l
	}
	switch l.State {
	case upstream.Disabled, upstream.Closed:
		return l
	}
	h.people.mu.Lock()
	known, ok := h.people.known[s]
	h.people.mu.Unlock()
	if !ok {
		return l
	}
	known.State = upstream.Ready
	return known
}

// annotate adds to a "perUser" server's status how many people have a connection
// of their own open.
func (h *Hub) annotate(st *upstream.Status, s *upstream.Supervisor) {
	if !perUser(s.Config()) {
		return
	}
	st.PerUser = true
	if h.people == nil {
		return
	}
	h.people.mu.Lock()
	for k := range h.people.conns {
		if k.shared == s {
			st.People++
		}
	}
	h.people.mu.Unlock()
}

// janitor closes the connections idle for opts.Idle, and those of servers stopped
// (a restart, a reload), until close.
func (p *people) janitor() {
	defer p.wg.Done()
	every := min(max(p.opts.Idle/2, 10*time.Millisecond), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			p.sweep(now)
		}
	}
}

// sweep closes the connections idle since before now-Idle, and those of stopped servers.
func (p *people) sweep(now time.Time) {
	var idle []*upstream.Supervisor
	p.mu.Lock()
	for k, c := range p.conns {
		gone := k.shared.State() == upstream.Closed
		if gone || (c.busy == 0 && now.Sub(c.used) >= p.opts.Idle) {
			delete(p.conns, k)
			idle = append(idle, c.sup)
		}
	}
	for s := range p.known {
		if s.State() == upstream.Closed {
			delete(p.known, s)
		}
	}
	p.mu.Unlock()
	for _, s := range idle {
		s.Close()
	}
}

// close closes every person's connection and the janitor, and waits for them.
func (p *people) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.stop)
	conns := p.conns
	p.conns = map[personKey]*personConn{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.sup.Close() })
	}
	wg.Wait()
	p.wg.Wait()
}

// PersonSignedIn reports, for a call from ctx, whether its person has signed in to
// the named server for themselves; ok is false when the server is not "perUser" or
// ctx carries no person (their calls use the server's own sign-in).
func (h *Hub) PersonSignedIn(ctx context.Context, name string) (signedIn, ok bool) {
	s := h.supervisor(name)
	if s == nil {
		return false, false
	}
	subject := h.personOf(ctx, s)
	if subject == "" {
		return false, false
	}
	oh := h.people.opts.OAuth(s.Config(), subject)
	if oh == nil {
		return false, false
	}
	if n, ok := oh.(signInNeeder); ok && n.SignInNeeded(ctx) != nil {
		return false, true
	}
	if !h.listed(s) {
		// Nobody's connection has listed the tools since the start (the service
		// itself is not signed in): the person's, opened now in the background, will.
		if _, release, err := h.people.acquire(ctx, h, s, subject); err == nil {
			release()
		}
	}
	return true, true
}

// listed reports whether the catalog has the tools of the server of s: its own
// connection is up, or a person's listed them.
func (h *Hub) listed(s *upstream.Supervisor) bool {
	switch h.lists(s).State {
	case upstream.Ready, upstream.Reconnecting:
		return true
	}
	return false
}

// discover opens the connections of ctx's person to the "perUser" servers whose
// tools the catalog lacks (after a restart, before anyone's connection listed
// them, when the service itself is not signed in), and waits, within ctx, until
// each is past its first attempt: WaitTool then finds a tool of theirs.
func (h *Hub) discover(ctx context.Context) {
	if h.people == nil {
		return
	}
	if p, _ := identity.FromContext(ctx); p.Subject == "" {
		return
	}
	h.mu.Lock()
	sups := h.supervisors()
	h.mu.Unlock()
	for _, s := range sups {
		if perUser(s.Config()) && !h.listed(s) {
			h.ConnectPerson(ctx, s.Name()) // a person not signed in: nothing to learn from
		}
	}
}

// ConnectPerson opens the connection of ctx's person to the named "perUser" server
// (after they signed in, say) and returns its status once its first attempt is over
// (ready, as a rule), within ctx; for a server that is not "perUser", or a ctx
// without a person, the server's status as WaitServer has it.
func (h *Hub) ConnectPerson(ctx context.Context, name string) (upstream.Status, error) {
	s := h.supervisor(name)
	if s == nil {
		return upstream.Status{}, fmt.Errorf("no server %q", name)
	}
	subject := h.personOf(ctx, s)
	if subject == "" {
		return h.WaitServer(ctx, name)
	}
	sup, release, err := h.people.acquire(ctx, h, s, subject)
	if err != nil {
		return upstream.Status{}, err
	}
	defer release()
	select {
	case <-sup.Settled():
	case <-ctx.Done():
		return upstream.Status{}, ctx.Err()
	}
	st := sup.Status()
	h.annotate(&st, s)
	return st, nil
}
