// Package host assembles the running Switchboard of one config: the hub of its MCP
// servers, the catalog's search index, the model, the session store and its
// janitor, the agent, the MCP gateway and the HTTP API, each made from the config's
// "switchboard" settings, and the following of the config file. It is what the
// switchboard command runs; a Go program that embeds Switchboard gets the same
// service from it in a few lines:
//
//	cfg, err := config.Load("mcp.json", nil)
//	if err != nil {
//		return err // every problem, each with file:line:col
//	}
//	h := host.New(cfg, &host.Options{Logger: log})
//	defer h.Close() // every server stopped, every child process gone
//	// the servers are told every capability the gateway forwards
//	if err := h.StartShared(ctx); err != nil {
//		return err
//	}
//	srv, err := h.API(ctx, nil) // the API, the dashboard, /mcp and /sse
//	if err != nil {
//		return err
//	}
//	go srv.Serve(ln)
//	defer srv.Shutdown(ctx)
//
// # What a Host makes, and when
//
// New makes the hub (no server is started until Start) and the Catalog, the search
// index of the hub's tools that the agent's deferred mode, the gateway's and the
// API's search share: a process indexes its catalog once. The rest is made on
// demand, so that a program pays only for what it uses:
//
//   - Model: the model's backend (OpenAI-compatible or Anthropic) from the model
//     settings; its key is read from the variable the settings name and never
//     from the config. No model, or no key, is a *SettingsError.
//   - Sessions: the session store (SQLite by default, memory or PostgreSQL) with a
//     janitor that removes idle sessions; OpenStore without one.
//   - Agent: the agent loop over the hub with the model, the store and the agent
//     settings, in deferred mode per its settings; a call that its server lists
//     under "approve" is denied, as an agent alone has nobody to ask.
//   - Conversations: the turns a person watches over an agent (package
//     conversation): the servers' approve policy, the calls and the servers'
//     questions that wait for a person, each turn a stream to render.
//     Attended is the one of a person at a terminal: no bound on their time, and a
//     call refused for want of a scope made again once they signed in anew.
//   - ServerRequests: what servers ask their client during the Host's own calls,
//     answered (sampling by the model, for servers whose config allows it).
//   - Gateway: the catalog as one MCP server, in the gateway's deferred mode.
//   - API: all of the above behind one HTTP handler. A missing model turns chat
//     off (its endpoints answer 503 saying how to configure one); the rest works.
//     ServeAPI serves it on a listener until Serving.Shutdown, which lets the
//     requests under way finish for a grace; ServeMCP and ServeMCPStdio serve the
//     Gateway alone.
//
// Options override the config's settings where a program has its own (the CLI's
// flags). Whatever a Host makes, Close stops, in the reverse order, then the
// servers.
//
// # A start-up a program reports on
//
// A program that shows the servers rather than serves them (the CLI's tools,
// status, call and search) starts them in two halves: Launch returns at once, and
// Settle waits for every server, telling SettleOptions.Slow which ones it still
// waits for after NoticeAfter and running Settled once all have settled (the CLI
// signs in there to the servers that wait for a person). What it then shows is data
// to render: Servers (each server's state, the tools the catalog shows of it, why it
// is not ready), Tools, ToolCatalog (the catalog in a provider's form, as GET
// /v1/tools answers it) and NewSearcher (deferred mode's ranking). The states and
// the search results are apiwire's types, so that a program renders a server of its
// own and one of a running service alike. ConfigFault tells a failed start that is
// the config's fault (exit 2 for the CLI) from a server that did not come up. What
// such a program checks its flags against and hands over (the options of ServeAPI
// and ServeMCP, IsLoopback, CheckPublicURL, ParseProvider, the search limits), the
// config it finds and loads (FindConfig, LoadConfig, DemoConfig when there is none)
// and the turns it renders (Turn, TurnEvent, Question, Form) are named here too, so
// that it imports none of the packages host wires: the switchboard command imports
// host, host/devtools (its hidden commands' stand-ins) and apiwire alone.
//
// # Servers changed at run time
//
// AddServer, PatchServer and RemoveServer edit the config file and apply the change
// by difference; ServerConfig shows an entry, its secrets masked. What they did is an
// admin.Result; a change refused as the request's fault is an *admin.Error whose
// Kind (not found, exists, invalid, config invalid) a front end renders as it needs
// (the API as an HTTP status). AddServerToFile, RemoveServerFromFile and
// ImportServers (another host's servers merged: Claude, Cursor, VS Code, Codex)
// make the same edits in a config file that no Host runs, for a command line.
//
// # Secrets
//
// Every secret the Host learns is registered with its redactor (Options.Redactor,
// or its own): the config's environment and header values (and every reloaded
// config's), the model's and the embeddings' keys, the store's DSN. The hub masks
// them in its errors, failed results and log lines; a program that logs through
// its own handler wraps it with the same redactor (redact.Redactor.Handler).
//
// # Sign-ins
//
// A remote server that asks for an OAuth sign-in (a 401 with a Bearer challenge)
// gets a handler of SignIns (package signin): stored tokens are sent and refreshed,
// and a server that only a person can sign in to is needs_sign_in, its tools out of
// the catalog, until SignIn (given a signin.Loopback at a terminal, or a
// signin.Callback of a service's own route) or another process (switchboard login)
// signs in; then it connects. The sign-ins are kept under Options.DataDir (the
// user's state directory by default), so that one serves later runs; with the
// sessions in PostgreSQL, in that database, encrypted with $SWITCHBOARD_SECRET_KEY,
// so that one serves every replica (without the key, Start refuses: SignInError).
//
// # A service's own token
//
// A program that serves the API on a machine others share gives it a token
// (api.Options.Token). ServeToken is the one switchboard serve uses when given none
// and no identity provider: made once and kept in the data directory's serve-token,
// readable by its owner only, so that another account of the machine cannot add a
// server (a command run as the owner) through the service; ReadServeToken is what a
// client of the same account reads. API itself never makes one.
//
// # Following the config file
//
// Follow applies the file's changes by difference (hub.Reload): servers added
// start, removed ones stop, changed ones restart, unchanged ones run on untouched,
// and the gateway's clients hear that the catalog changed. It checks the file
// every FollowOptions.Every and reloads when FollowOptions.Reload sends (the CLI
// sends on SIGHUP). A file that does not load is logged, and the servers stay as
// they are.
//
// See docs/architecture.md for where the host sits among the packages.
package host
