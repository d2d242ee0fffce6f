package fakeauth

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/signin"
)

// Person is a signin.Redirect whose person signs in at once: a signin.Loopback takes
// the redirect of a stand-in browser (Browse) that opens the authorization URL and
// follows it back. Opened lists the authorization URLs it was sent to.
type Person struct {
	Loopback signin.Loopback
	// Who is the person, as the authorization server knows them (see BrowseAs);
	// "" for nobody in particular.
	Who string

	mu     sync.Mutex
	opened []string
}

// NewPerson returns a Person signing in to the server named server.
func NewPerson(server string) *Person {
	return &Person{Loopback: signin.Loopback{Server: server, Timeout: 10 * time.Second}}
}

// Opened returns the authorization URLs the person was sent to.
func (p *Person) Opened() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.opened...)
}

// Prepare implements signin.Redirect.
func (p *Person) Prepare(ctx context.Context, want string, exact bool) (signin.Pending, error) {
	pending, err := p.Loopback.Prepare(ctx, want, exact)
	if err != nil {
		return nil, err
	}
	return &browsing{Pending: pending, p: p}, nil
}

type browsing struct {
	signin.Pending
	p *Person
}

func (b *browsing) Await(ctx context.Context, authURL string) (url.Values, error) {
	b.p.mu.Lock()
	b.p.opened = append(b.p.opened, authURL)
	b.p.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- BrowseAs(ctx, authURL, b.p.Who) }()
	q, err := b.Pending.Await(ctx, authURL)
	if berr := <-done; berr != nil && err == nil {
		err = berr
	}
	return q, err
}
