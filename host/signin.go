package host

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/session/sqlite"
	"github.com/switchboard-mcp/switchboard/signin"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// signInStore is the store of Options.SignInStore, else the sign-in files under the
// data directory (Options.DataDir, else the user's state directory); in memory when
// there is no state directory to be had (a later run then signs in again).
func (o *Options) signInStore() signin.Store {
	if o.SignInStore != nil {
		return o.SignInStore
	}
	dir := o.DataDir
	if dir == "" {
		d, err := sqlite.DefaultDir()
		if err != nil {
			o.Logger.Warn("no state directory for the sign-ins: they last until the process ends (give --data-dir)", "err", err)
			return signin.NewMemory()
		}
		dir = d
	}
	return signin.NewFiles(filepath.Join(dir, signin.DirName))
}

// SignIns are the sign-in handlers of the Host's servers: a remote server that asks
// for an OAuth sign-in gets its handler from them (hub.Options.Upstream's OAuth).
func (h *Host) SignIns() *signin.Handlers { return h.signins }

// SignIn makes the sign-in that the named server waits for, through r (a
// signin.Loopback at a terminal; a service's signin.Callback), then has the server
// connect, and returns its status once it is past connecting (ready, as a rule).
// ctx bounds the whole: the person's part and the connection.
func (h *Host) SignIn(ctx context.Context, name string, r signin.Redirect) (upstream.Status, error) {
	srv, ok := h.hub.Server(name)
	if !ok {
		return upstream.Status{}, fmt.Errorf("no server %q", name)
	}
	sh := h.signins.Handler(srv)
	if sh == nil {
		return upstream.Status{}, fmt.Errorf("server %s is not signed in to: it is no HTTP server, or its \"headers\" carry its credentials", name)
	}
	if err := sh.SignIn(ctx, r); err != nil {
		return upstream.Status{}, err
	}
	if _, err := h.hub.Retry(name); err != nil {
		return upstream.Status{}, err
	}
	return h.hub.WaitServer(ctx, name)
}
