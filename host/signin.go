package host

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/redact"

	"github.com/switchboard-mcp/switchboard/session/sqlite"
	"github.com/switchboard-mcp/switchboard/signin"
	pgsignin "github.com/switchboard-mcp/switchboard/signin/postgres"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// signInStore is the store of Options.SignInStore; else, with the sessions in
// PostgreSQL, a table of that database, sealed with the key of $SWITCHBOARD_SECRET_KEY
// (every replica then uses the sign-ins: without a key it is an error, and the
// sign-ins last until the process ends); else the sign-in files under the data
// directory (Options.DataDir, else the user's state directory), in memory when there
// is no state directory to be had. closer closes what it opened.
func (o *Options) signInStore(ss config.SessionSettings, red *redact.Redactor) (st signin.Store, closer func(), err error) {
	if o.SignInStore != nil {
		return o.SignInStore, nil, nil
	}
	if ss.Store == "postgres" && ss.DSN != "" {
		red.Add(ss.DSN)
		key, err := pgsignin.Key(os.Getenv(pgsignin.KeyEnv))
		if err != nil {
			return signin.NewMemory(), nil, fmt.Errorf(`with "sessions": {"store": "postgres"} the sign-ins are kept in the database: %w`, err)
		}
		pg, err := pgsignin.New(ss.DSN, key)
		if err != nil {
			return signin.NewMemory(), nil, err
		}
		return pg, pg.Close, nil
	}
	dir := o.DataDir
	if dir == "" {
		d, err := sqlite.DefaultDir()
		if err != nil {
			o.Logger.Warn("no state directory for the sign-ins: they last until the process ends (give --data-dir)", "err", err)
			return signin.NewMemory(), nil, nil
		}
		dir = d
	}
	return signin.NewFiles(filepath.Join(dir, signin.DirName)), nil, nil
}

// SignInError is why the sign-ins cannot be kept as the settings say (no key for
// the PostgreSQL store), a *SettingsError; nil when they can. Start returns it when
// some server may need a sign-in.
func (h *Host) SignInError() error {
	if h.signInErr == nil || !slices.ContainsFunc(h.cfg.Servers, signin.Signs) {
		return nil
	}
	return h.signInErr
}

// SignIns are the sign-in handlers of the Host's servers: a remote server that asks
// for an OAuth sign-in gets its handler from them (hub.Options.Upstream's OAuth).
func (h *Host) SignIns() *signin.Handlers { return h.signins }

// SignIn makes the sign-in that the named server waits for, through r (a
// signin.Loopback at a terminal; a service's signin.Callback), then has the server
// connect, and returns its status once it is past connecting (ready, as a rule).
// ctx bounds the whole: the person's part and the connection. When ctx carries a
// person with a subject (identity.NewContext) and the server is "perUser", the
// sign-in is that person's own, and the connection their own.
func (h *Host) SignIn(ctx context.Context, name string, r signin.Redirect) (upstream.Status, error) {
	srv, ok := h.hub.Server(name)
	if !ok {
		return upstream.Status{}, fmt.Errorf("no server %q", name)
	}
	if p, _ := identity.FromContext(ctx); p.Subject != "" && signin.PerUser(srv) {
		if err := h.signins.Person(srv, p.Subject).SignIn(ctx, r); err != nil {
			return upstream.Status{}, err
		}
		return h.hub.ConnectPerson(ctx, name)
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

// Loopback is the Redirect of a sign-in at a terminal (signin.Loopback): the
// authorization URL written on out, the person's browser opened on it when browser
// is set and there is one (signin.DefaultBrowser), and a listener on 127.0.0.1 for
// the redirect.
func Loopback(server string, out io.Writer, browser bool) *signin.Loopback {
	l := &signin.Loopback{Server: server, Out: out}
	if browser {
		l.Browser = signin.DefaultBrowser()
	}
	return l
}

// SignsIn reports whether Switchboard signs in to s when it asks (signin.Signs): an
// HTTP or SSE server that the config gives no "Authorization" header.
func SignsIn(s config.Server) bool { return signin.Signs(s) }
