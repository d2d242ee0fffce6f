package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
)

// Defaults of serve's --addr and --shutdown-grace. Switchboard's own.
const (
	// defaultServeAddr is loopback only, so that nothing is exposed beyond the
	// machine without a token.
	defaultServeAddr = "127.0.0.1:7300"
	// defaultShutdownGrace: how long requests and turns under way may finish after
	// SIGINT or SIGTERM before they are cancelled.
	defaultShutdownGrace = 10 * time.Second
)

func (a *app) serveCommand() *cobra.Command {
	var (
		addr, token, cors, publicURL string
		issuer, audience             string
		noToken                      bool
		watch, grace                 time.Duration
		maxRequest                   = byteSize(host.DefaultAPIMaxRequestBytes)
		flags                        agentFlags
	)
	cmd := &cobra.Command{
		Use: "serve",
		// Long-running: it says what it does as it runs.
		Annotations: map[string]string{logLevelKey: "info"},
		Short:       "Serve the HTTP API: servers, tools, search, chat sessions and the MCP gateway",
		Long: `Serve starts every configured server and answers HTTP on --addr (loopback
` + defaultServeAddr + ` by default):

  GET  /health, /healthz, /readyz          health, liveness, readiness
  GET  /v1/me                               who calls: subject, name, admin
  GET  /.well-known/oauth-protected-resource  where MCP hosts sign in (with --oidc-issuer)
  GET  /v1/servers[/{name}]                 each server's state, tools, restarts, stderr
  POST /v1/servers, PATCH|DELETE /v1/servers/{name}   add, change, remove (written to the config file)
  GET  /v1/servers/{name}/log[?follow=1]    its stderr, state changes and MCP log messages
  POST /v1/servers/{name}/restart
  POST /v1/servers/{name}/login             sign in to a server that needs it: {"url": ...}
  GET  /oauth/callback                      where that sign-in's browser comes back to
  GET  /v1/tools?format=openai              the catalog (as 'switchboard tools --format')
  POST /v1/tools/{name}/call                {"arguments": {...}}
  GET  /v1/search?q=...                     find tools by what they do
  GET  /v1/resources[/templates], /v1/resources/read?uri=...   every server's resources
  GET  /v1/prompts, POST /v1/prompts/{name}/get                every server's prompts
  POST /v1/sessions, GET /v1/sessions?q=&limit=, GET|DELETE /v1/sessions/{id}
  POST /v1/sessions/{id}/messages           {"content": "..."}: a turn with the model
  POST /v1/sessions/{id}/approvals/{call}   {"allow": true}: approve a call that asks
  POST /v1/sessions/{id}/inputs/{request}  {"action": "accept", "content": {...}}: answer a server's question
  POST /v1/chat/completions, GET /v1/models OpenAI-compatible: any OpenAI client, every tool
  POST /v1/responses, GET /v1/responses/{id}  OpenAI's Responses API, the same way
  POST /v1/messages                         Anthropic's Messages API (ANTHROPIC_BASE_URL)
  GET  /metrics                             Prometheus metrics
  GET  /, /v1/events, /v1/calls             the dashboard, its live events, recent calls
  /mcp, /sse                                the MCP gateway, as 'switchboard mcp --listen'

Every request but /health, /healthz, /readyz, /oauth/callback,
/.well-known/oauth-protected-resource and the dashboard's own files must carry a
bearer token: $SWITCHBOARD_TOKEN (or --token, which shows in the process list), or
one of the identity provider's below. Given neither, serve makes a token, as
Jupyter does, and keeps it in the data directory's serve-token (readable by you
alone, the same at the next start); it prints the dashboard's URL with it once on
stderr (http://127.0.0.1:7300/#token=...: the page keeps it and drops it from the
address bar), and the CLI's --server finds it there. Another account of the machine
cannot read it, so it cannot add a server (a command to run) through the service.
--no-token serves loopback without one, for anyone on the machine (warned at start).
Listening beyond loopback needs --token or a provider (exit 2 without).

Browsers of another origin are answered only with --cors ORIGIN, which needs
--token or a provider (exit 2 without); --cors '*' lets any page call tools and
chat, never change the servers, read their config or log, restart one or sign in.

A team's service takes the tokens of its OpenID Connect provider: the config's
"switchboard": {"serve": {"auth": {"issuer", "audience", "admins", "adminClaim"}}},
or --oidc-issuer and --oidc-audience (over the config's; its admins stay). Each
request then carries "Authorization: Bearer JWT", a token of that issuer for that
audience; GET /v1/me says who it names, and MCP hosts find where to sign in at
/.well-known/oauth-protected-resource. The provider is asked for its keys at start:
serve exits 1 naming the issuer when it cannot be reached. --token still works, as
an admin.

The model comes from the config's "switchboard": {"model": {...}} or the flags, as
for 'switchboard chat'; without one, everything but chat works and a turn answers
503 saying how to configure it. Sessions are kept as chat keeps them (SQLite under
--data-dir by default; "store": "postgres" lets several replicas share them).

A remote server that wants an OAuth sign-in shows as needs_sign_in until somebody
signs in: the dashboard's Sign in button (POST /v1/servers/{name}/login from the
browser that signs in: only that browser, which the answer's cookie marks, completes
it). The authorization server sends the browser back to serve's /oauth/callback,
at the address the login request reached, or at --public-url when a proxy sits in
front. With identities, a shared server's sign-in and a restart are an admin's. A
sign-in made with 'switchboard login' is picked up too.

Serve follows its config file as 'switchboard mcp' does (SIGHUP, --watch). On
SIGINT or SIGTERM it stops accepting connections, lets requests and turns under way
finish for --shutdown-grace, cancels what is left, stops every server and exits 0.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			token, err := bearerToken(token, a.red)
			if err != nil {
				return err
			}
			if err := checkAddr("--addr", addr); err != nil {
				return err
			}
			if noToken {
				switch {
				case token != "":
					return usageError("--no-token and a token (--token or $%s) do not go together", tokenEnv)
				case !host.IsLoopback(addr):
					return usageError("--no-token serves loopback only: --addr %s would let anyone who reaches it run commands through the service (add a server, call a tool); leave --no-token out to have a token made, or set one in $%s", addr, tokenEnv)
				case cors != "":
					return usageError("--no-token and --cors do not go together: a page of %s could run commands through the service without a token; set one in $%s", cors, tokenEnv)
				}
			}
			if (issuer == "") != (audience == "") {
				return usageError("--oidc-issuer and --oidc-audience go together: give both (the provider, and the \"aud\" its tokens for this service carry)")
			}
			if issuer != "" {
				if err := host.CheckIssuer(issuer); err != nil {
					return usageError("--oidc-issuer: %v", err)
				}
			}
			if watch < 0 {
				return usageError("--watch %s: must be 0 (only on SIGHUP) or more", watch)
			}
			if cors != "" && cors != "*" {
				// What api.New checks, said before anything starts.
				if err := http.NewCrossOriginProtection().AddTrustedOrigin(cors); err != nil {
					return usageError("--cors %s: %v", cors, err)
				}
			}
			if publicURL != "" {
				if err := host.CheckPublicURL(publicURL); err != nil {
					return usageError("--public-url %v", err)
				}
			}
			if grace < 0 {
				return usageError("--shutdown-grace %s: must be 0 (cancel at once) or more", grace)
			}
			return a.serve(cmd.Context(), serveSettings{addr: addr, token: token, noToken: noToken, cors: cors, publicURL: publicURL, issuer: issuer, audience: audience,
				watch: watch, grace: grace, maxRequest: int64(maxRequest)}, &flags)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", defaultServeAddr, "listen on this address (--listen works too, as for mcp)")
	f.SetNormalizeFunc(alias("listen", "addr"))
	f.StringVar(&token, "token", "", "bearer token required on every request but /health, /healthz, /readyz, /oauth/callback and the dashboard's files"+tokenHelp+"; without one or a provider, serve makes one, kept in the data directory's serve-token")
	f.BoolVar(&noToken, "no-token", false, "serve loopback without a token: anyone on this machine may then use the service and run commands through it (not with --cors or beyond loopback)")
	f.StringVar(&cors, "cors", "", "let browser pages of this origin (e.g. http://localhost:5173, or *, which never covers server edits) call the API; needs a token or a provider")
	f.StringVar(&publicURL, "public-url", "", "the URL browsers reach serve at when a proxy sits in front (e.g. https://switchboard.example.com): a sign-in's redirect comes back to its /oauth/callback")
	f.StringVar(&issuer, "oidc-issuer", "", "take the bearer tokens (JWTs) of this OpenID Connect provider (e.g. https://login.example.com), over the config's \"serve\": {\"auth\"}; needs --oidc-audience")
	f.StringVar(&audience, "oidc-audience", "", "the \"aud\" that --oidc-issuer's tokens for this service carry")
	f.DurationVar(&watch, "watch", time.Second, "check the config file for changes this often and apply them (0: only on SIGHUP)")
	f.DurationVar(&grace, "shutdown-grace", defaultShutdownGrace, "on SIGINT or SIGTERM, let requests under way finish this long before cancelling them")
	f.Var(&maxRequest, "max-request-size", "largest HTTP request body accepted, in bytes or with a KiB, MiB or GiB suffix (larger ones get 413)")
	flags.addModel(cmd)
	flags.addStore(cmd, true)
	return cmd
}

type serveSettings struct {
	addr, token, cors, publicURL string
	noToken                      bool   // --no-token
	issuer, audience             string // --oidc-issuer, --oidc-audience
	watch, grace                 time.Duration
	maxRequest                   int64
}

// checkAddr reports an address that cannot be listened on as written (no port, a port
// that is not a number or service name) as a usage error.
func checkAddr(flag, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil && port != "" {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return usageError("%s %s: %v (want host:port, e.g. %s)", flag, addr, err, defaultServeAddr)
	}
	return nil
}

// serve runs the HTTP API until ctx ends (SIGINT, SIGTERM).
func (a *app) serve(ctx context.Context, st serveSettings, flags *agentFlags) error {
	s, err := a.openService(st.watch, flags, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	// The flags over the config's provider; its admins stay.
	auth := s.ServeAuth(st.issuer, st.audience)
	if !host.IsLoopback(st.addr) && st.token == "" && auth == nil {
		return usageError("--addr %s is not a loopback address: set a bearer token in $%s (or --token), or an identity provider (--oidc-issuer and --oidc-audience, or the config's \"serve\": {\"auth\"})", st.addr, tokenEnv)
	}
	if st.cors != "" && st.token == "" && auth == nil {
		return usageError("--cors %s needs a bearer token in $%s (or --token), or an identity provider: without one, any page of that origin could run commands through the service (add a server, call a tool)", st.cors, tokenEnv)
	}
	// Neither a token nor a provider: one of the service's own, which other
	// accounts of the machine cannot read (as Jupyter's).
	own := st.token == "" && auth == nil && !st.noToken
	if own {
		tok, err := host.ServeToken(flags.dataDir)
		var pe *fs.PathError
		switch {
		case err != nil && flags.dataDir != "" && errors.As(err, &pe) && pe.Op == "mkdir":
			return usageError("--data-dir %s: %v: give a directory that can be created and written to", flags.dataDir, pe)
		case err != nil:
			return usageError("%v (or set a token in $%s)", err, tokenEnv)
		}
		a.red.Add(tok)
		st.token = tok
	}
	opts := &host.APIOptions{Token: st.token, CORSOrigin: st.cors, PublicURL: st.publicURL, MaxRequestBytes: st.maxRequest}
	if auth != nil {
		// Asked before anything listens: a provider that cannot be reached ends the
		// command (exit 1) naming its issuer.
		v, err := s.Verifier(ctx, auth)
		if err != nil {
			return &exitError{code: exitFailed, err: err}
		}
		opts.Identify, opts.Issuer = v.Identify, v.Issuer()
		opts.DashboardSignIn = host.DashboardSignIn(v, auth)
	}
	// Bound before any server starts: an address in use ends the command at once.
	ln, err := net.Listen("tcp", st.addr)
	if err != nil {
		return usageError("--addr %s: %v", st.addr, err)
	}
	// No model is no reason not to serve: the catalog, calls and search work, and a
	// turn says how to configure one.
	srv, err := s.ServeAPI(ctx, ln, opts)
	if err != nil {
		return settingsError(err, flags.dataDir, s.SessionSettings().Path != "" && flags.dataDir == "")
	}
	// The hub and the rest close after the API (the deferred calls above), once no
	// request can use them.
	url := "http://" + ln.Addr().String()
	switch {
	case own:
		// The one place the token shows: straight to stderr, past the log's masking
		// (and never into --log-file). In the fragment, it reaches no server's log
		// and no Referer; the page keeps it and drops it from the address bar.
		path, _ := host.ServeTokenPath(flags.dataDir)
		fmt.Fprintf(a.stderr, "switchboard serve: the dashboard is at %s/#token=%s (the token is kept in %s)\n", url, st.token, path)
	case st.noToken:
		a.log.Warn("serving without a token (--no-token): anyone on this machine can use the service, and run commands through it (add a server, call a tool)")
	}
	a.log.Info("serving", "url", url, "dashboard", url+"/", "auth", st.token != "" || auth != nil, "issuer", opts.Issuer, "model", s.HasModel())
	// Over HTTP the clients are not known in advance: the servers are told every
	// capability the gateway can forward (sampling included, answered by the model for
	// the agent's own calls).
	if err := s.startShared(ctx); err != nil {
		_ = srv.Shutdown(st.grace)
		return err
	}
	a.log.Info("servers started", "tools", len(s.Tools()))
	select {
	case <-ctx.Done():
		a.log.Info("shutting down", "grace", st.grace)
	case <-srv.Done(): // the listener failed
	}
	if err := srv.Shutdown(st.grace); err != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("serving on %s: %w", url, err)}
	}
	return nil
}
