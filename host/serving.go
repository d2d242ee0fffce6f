package host

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
)

// ServeAuth is the identity provider whose tokens a service takes: issuer and
// audience (a command line's) over the config's "serve": {"auth"}, whose admins
// stay; the config's alone when issuer is ""; nil when there is none. Verifier
// reads it.
func (h *Host) ServeAuth(issuer, audience string) *config.AuthSettings {
	auth := h.cfg.Settings.Serve.Auth
	if issuer == "" {
		return auth
	}
	var a config.AuthSettings
	if auth != nil {
		a = *auth
	}
	a.Issuer, a.Audience = issuer, audience
	return &a
}

// Serving is the API served on a listener by ServeAPI, until Shutdown.
type Serving struct {
	srv  *api.Server
	log  *slog.Logger
	done chan struct{}
	err  error // Serve's, once done is closed
}

// ServeAPI makes the API (API, with opts) and serves it on ln from now on; an error
// making it closes ln. The servers need not have started: start them meanwhile
// (StartShared), and requests that need them wait for them or say why not. Shut it
// down before closing the Host.
func (h *Host) ServeAPI(ctx context.Context, ln net.Listener, opts *api.Options) (*Serving, error) {
	srv, err := h.API(ctx, opts)
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &Serving{srv: srv, log: h.log, done: make(chan struct{})}
	go func() {
		s.err = srv.Serve(ln)
		close(s.done)
	}()
	return s, nil
}

// Done is closed when serving has ended: after Shutdown, or at once when the
// listener failed.
func (s *Serving) Done() <-chan struct{} { return s.done }

// Shutdown stops accepting connections, lets the requests and turns under way
// finish for grace, cancels what is left (api.Server.Shutdown, whose complaint it
// logs), and returns the error that ended serving: nil but for a listener that
// failed.
func (s *Serving) Shutdown(grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.log.Warn("shutdown: " + err.Error())
	}
	<-s.done
	return s.err
}
