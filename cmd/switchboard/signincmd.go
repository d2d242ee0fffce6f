package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/host"
)

// dataDirHelp is --data-dir's help on the commands that connect to servers.
const dataDirHelp = "the data directory: the sign-ins of remote servers are kept in its signin directory; with --server, where a serve of this machine keeps its token (default the user's state directory)"

// addDataDir adds --data-dir to a command that connects to servers.
func (a *app) addDataDir(cmd *cobra.Command) {
	cmd.Flags().StringVar(&a.dataDir, "data-dir", "", dataDirHelp)
}

// canPrompt reports whether a person can be sent to a browser to sign in: $BROWSER
// says how to open one, or stderr (where the URL is printed) is a terminal. Without
// either nobody is there to ask (a host started the command, a script, CI), and a
// server that needs a sign-in is reported at once instead.
func (a *app) canPrompt() bool {
	if os.Getenv("BROWSER") != "" {
		return true
	}
	f, ok := a.stderr.(*os.File)
	return ok && isTerminal(f)
}

// signInWaiting signs in to the servers that wait for a sign-in, one after the
// other, when a person can be asked (canPrompt); without one it does nothing: the
// start-up's warning names the command to run, and the rest is served. It returns
// the servers signed in to.
func (a *app) signInWaiting(ctx context.Context, hs *host.Host) []string {
	if !a.canPrompt() {
		return nil
	}
	var done []string
	for _, st := range hs.Servers() {
		if st.State != apiwire.NeedsSignIn {
			continue
		}
		if a.signIn(ctx, hs, st.Name, false) {
			done = append(done, st.Name)
		}
	}
	return done
}

// signIn signs in to one server at this terminal and says how it went on stderr.
func (a *app) signIn(ctx context.Context, hs *host.Host, name string, noBrowser bool) bool {
	hst, err := hs.SignIn(ctx, name, host.Loopback(name, a.stderr, !noBrowser))
	switch st := host.WireStatus(hst); {
	case err != nil:
		a.log.Warn("sign-in failed", "server", name, "err", err)
		return false
	case st.State != apiwire.Ready:
		a.log.Warn("signed in, but the server did not connect", "server", name, "state", st.State, "err", st.LastError)
		return false
	}
	fmt.Fprintf(a.stderr, "Signed in to %s.\n", name)
	return true
}

// stepUp signs in again to the server of a call the server refused for want of a
// scope (403 insufficient_scope), when a person can be asked: true when the call is
// worth making again.
func (a *app) stepUp(ctx context.Context, hs *host.Host, server string) bool {
	if !a.canPrompt() || !hs.NeedsStepUp(server) {
		return false
	}
	return a.signIn(ctx, hs, server, false)
}

// signInAgain is what a host's StepUp asks, for chat's agent and the call command:
// a call that its server refused for want of a scope (403 insufficient_scope) is
// signed in for again at this terminal, when a person can be asked (stepUp), and
// made once more; the model sees the second result only.
func (a *app) signInAgain(hs *host.Host) func(context.Context, string) bool {
	return func(ctx context.Context, server string) bool { return a.stepUp(ctx, hs, server) }
}

// remoteServer finds the server a login or logout names: a remote one that
// Switchboard signs in to, else a usage error that says why not.
func (a *app) remoteServer(cfg *host.Config, cmd *cobra.Command, name string) (host.ConfigServer, error) {
	s := cfg.Server(name)
	if s == nil {
		var names []string
		for _, s := range cfg.Servers {
			names = append(names, s.Name)
		}
		return host.ConfigServer{}, usageError("%s: no server %q in the config (%s); its servers: %s", cmd.CommandPath(), name, cfg.Source, strings.Join(names, ", "))
	}
	switch {
	case s.Transport == host.Stdio:
		return *s, usageError("%s: %s is a stdio server (a program on this machine): there is no sign-in to make", cmd.CommandPath(), name)
	case !host.SignsIn(*s):
		return *s, usageError(`%s: %s has an "Authorization" header in its "headers": Switchboard sends that and signs in to nothing; remove it to sign in with OAuth`, cmd.CommandPath(), name)
	}
	return *s, nil
}

func (a *app) loginCommand() *cobra.Command {
	var noBrowser bool
	cmd := &cobra.Command{
		Use:   "login NAME",
		Short: "Sign in to a remote server that asks for an OAuth sign-in, for this and later runs",
		Long: `Login connects to the remote server NAME of the config and, when it asks for an OAuth
sign-in, makes it: it prints the authorization URL on stderr and opens it in the
browser ($BROWSER when set, given the URL as its last argument; else the system's
opener; --no-browser: print only), waits for the authorization server to send the
browser back to a listener on 127.0.0.1 (a free port, or the port of the server's
"oauth": {"redirectUri"}), and keeps the registration and the tokens under --data-dir
for every later command: tools, call, status, search, chat, mcp and serve use them,
and refresh the tokens as they expire. It gives up after 5 minutes without an answer.

A server that signs in with "grant": "client_credentials" needs no browser; login
gets its token. A server already signed in to, or that asks for no sign-in, is left
as it is ('switchboard logout NAME' forgets a sign-in).

Exit codes: 0 signed in (or nothing to do), 1 the sign-in or the connection failed, 2
usage or configuration error (an unknown server, a stdio server).`,
		Args: exactArgs(1, "the NAME of a server in the config"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			srv, err := a.remoteServer(cfg, cmd, args[0])
			if err != nil {
				return err
			}
			if srv.Disabled {
				return usageError("%s: %s is disabled in the config", cmd.CommandPath(), srv.Name)
			}
			// That server alone: the others have nothing to do with the sign-in.
			srv.Required = false
			one := *cfg
			one.Servers = []host.ConfigServer{srv}
			hs := host.New(&one, a.hostOptions(nil))
			defer hs.Close()
			if err := hs.SignInError(); err != nil {
				return settingsError(err, "", false)
			}
			had := hs.SignIns().Handler(srv).SignedIn(ctx)
			// The server's state change is logged with how to sign in: not "run
			// 'switchboard login NAME'" to the person who runs it.
			hs.SignIns().SetHow(func(string) string { return "signing in now, at this terminal" })
			if err := hs.Launch(); err != nil {
				return err
			}
			hst, err := hs.Hub().WaitServer(ctx, srv.Name)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			st := host.WireStatus(hst)
			switch {
			case st.State == apiwire.Ready && had:
				fmt.Fprintf(a.stdout, "Already signed in to %s (%s). 'switchboard logout %s' forgets the sign-in.\n", srv.Name, count(st.Tools, "tool"), srv.Name)
				return nil
			case st.State == apiwire.Ready && srv.OAuth.GrantType() == host.GrantClientCredentials:
				fmt.Fprintf(a.stdout, "Signed in to %s with its client credentials (%s).\n", srv.Name, count(st.Tools, "tool"))
				return nil
			case st.State == apiwire.Ready:
				fmt.Fprintf(a.stdout, "%s asks for no sign-in (%s): nothing to do.\n", srv.Name, count(st.Tools, "tool"))
				return nil
			case st.State != apiwire.NeedsSignIn:
				return &exitError{code: exitFailed, err: fmt.Errorf("%s: %s is %s: %s", cmd.CommandPath(), srv.Name, st.State, st.LastError)}
			}
			hst, err = hs.SignIn(ctx, srv.Name, host.Loopback(srv.Name, a.stderr, !noBrowser))
			st = host.WireStatus(hst)
			switch {
			case err != nil:
				return &exitError{code: exitFailed, err: fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
			case st.State != apiwire.Ready:
				return &exitError{code: exitFailed, err: fmt.Errorf("%s: signed in to %s, but it did not connect (%s): %s", cmd.CommandPath(), srv.Name, st.State, st.LastError)}
			}
			fmt.Fprintf(a.stdout, "Signed in to %s (%s).\n", srv.Name, count(st.Tools, "tool"))
			return nil
		},
	}
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "print the authorization URL without opening a browser (to open it elsewhere)")
	a.addDataDir(cmd)
	return cmd
}

func (a *app) logoutCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "logout NAME",
		Short: "Forget the sign-in to a remote server (its tokens and registration), revoking the tokens",
		Long: `Logout forgets what 'switchboard login NAME' kept under --data-dir: the tokens and the
client registration of the server NAME. Where the authorization server offers token
revocation (RFC 7009), it first asks it to revoke the tokens; a revocation that fails is
reported, and the sign-in is forgotten all the same. The next command that connects to
NAME finds it asking for a sign-in again.

Exit codes: 0 done (or nothing was stored), 1 the store could not be read or changed, 2
usage or configuration error.`,
		Args: exactArgs(1, "the NAME of a server in the config"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			srv, err := a.remoteServer(cfg, cmd, args[0])
			if err != nil {
				return err
			}
			hs := host.New(cfg, a.hostOptions(nil)) // nothing is started
			defer hs.Close()
			if err := hs.SignInError(); err != nil {
				return settingsError(err, "", false)
			}
			f, err := hs.SignIns().Handler(srv).Forget(cmd.Context(), true)
			if err != nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
			}
			for _, e := range f.Errors {
				a.log.Warn("revocation failed; the sign-in is forgotten here all the same", "server", srv.Name, "err", e)
			}
			if f.Records == 0 {
				fmt.Fprintf(a.stdout, "No sign-in to %s is stored.\n", srv.Name)
				return nil
			}
			msg := fmt.Sprintf("Signed out of %s: its tokens and registration are forgotten", srv.Name)
			if f.Revoked > 0 {
				msg += fmt.Sprintf(", and the authorization server revoked %s", count(f.Revoked, "token"))
			}
			fmt.Fprintln(a.stdout, msg+".")
			return nil
		},
	}
	a.addDataDir(cmd)
	return cmd
}

// count is "1 tool", "2 tools".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// needSignIn names the servers that wait for a sign-in.
func needSignIn(sts []apiwire.ServerStatus) []string {
	var out []string
	for _, st := range sts {
		if st.State == apiwire.NeedsSignIn {
			out = append(out, st.Name)
		}
	}
	return slices.Clip(out)
}

// isTerminal reports whether f is a character device other than the null device.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}
