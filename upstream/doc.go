// Package upstream keeps one MCP server connected: a [Supervisor] owns a server's
// connection from the first attempt to the last goodbye.
//
//	sup := upstream.New(cfg.Servers[0], nil) // nil options: the defaults of defaults.go
//	sup.Start()                               // connects in the background
//	<-sup.Settled()                           // ready, failed, or disabled
//	res, err := sup.Call(ctx, "echo", json.RawMessage(`{"text":"hi"}`))
//	sup.Close()                               // nothing it started survives
//
// What it does for you:
//   - a fresh transport per attempt (stdio: a fresh process in its own process group,
//     with the configured environment policy, in its cwd (the config's directory unless
//     it says otherwise, see config.Server.WorkDir), and stderr captured line by line);
//   - stdout lines that are not JSON-RPC messages (a banner, a debug print, JSON that
//     is no message) dropped, where the SDK's reader would end the connection; the
//     warnings about them are rate-limited per server (five one by one, then a count
//     every 30 s);
//   - up to Attempts attempts with exponential backoff and jitter, each bounded by the
//     server's init timeout; then Failed, retried every RetryFailed (or at once on
//     Retry);
//   - an HTTP or SSE server that asks for an OAuth sign-in gets Options.OAuth's
//     handler (package signin): tokens sent, refreshed and stored by it; when only a
//     person can sign in, the server is NeedsSignIn at once (no backoff), and
//     connects when the handler says a sign-in is there (made in this process, or
//     stored by another), on Retry, or at the slow retry;
//   - immediate detection of a process exit or a closed transport, and of an HTTP
//     server a request cannot reach (a refused connection), heartbeats (ping; a
//     JSON-RPC error reply counts as alive, the SDK's "rejected by transport" does
//     not), and reconnection;
//   - tools/list_changed followed (debounced) and every page of tools/list fetched;
//   - calls that wait for a reconnecting server within their deadline, and are re-sent
//     only when they provably never left;
//   - shutdown: close stdin, SIGTERM to the group, SIGKILL to the group, each wait
//     bounded, and Pdeathsig (Linux, FreeBSD) so children die with the host; macOS
//     has no Pdeathsig (see process_nopdeathsig.go for what outlives a killed host).
//     On Windows the group is a kill-on-close Job Object: close stdin, then end the
//     job, and the whole tree dies with the host however it ends;
//   - what the server sends its client besides replies (sampling, elicitation,
//     roots, logs, progress, resource updates) handed to Options.Peer, a
//     relay.Peer, with the calls under way (see package relay).
package upstream
