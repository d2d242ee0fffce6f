// Package signin signs Switchboard in to remote MCP servers that want an OAuth 2.1
// sign-in, as the MCP spec's Authorization section (2025-06-18, 2025-11-25) has it,
// on the MCP Go SDK's auth and oauthex packages and golang.org/x/oauth2. It keeps
// what a sign-in leaves (the client's registration and the tokens) in a Store, so
// that one sign-in serves later runs.
//
// # The pieces
//
// A [Handler] is one server's auth.OAuthHandler: the SDK's HTTP transports ask it
// for a token on every request and call its Authorize when the server answers 401
// (no valid token) or 403 insufficient_scope (a scope the token lacks). [Handlers]
// makes one per server over one store; its For is what a hub's servers take:
//
//	store := signin.NewFiles(filepath.Join(dataDir, signin.DirName))
//	hs := signin.NewHandlers(store, &signin.Options{Logger: log, Redactor: red})
//	defer hs.Close()
//	h := hub.New(cfg, &hub.Options{Upstream: &upstream.Options{OAuth: hs.For}})
//
// A handler never makes anybody wait. It sends the stored token and refreshes it a
// minute before it expires and again when the server refuses it; it takes a sign-in
// that another process stored meanwhile; with "grant": "client_credentials" it signs
// in by itself (machine to machine). Otherwise it keeps the server's challenge and
// answers at once with a *NeedsSignInError ("server notes needs a sign-in: run
// 'switchboard login notes'"): the server is reported as needing a sign-in, and
// the others are served meanwhile.
//
// The sign-in that needs a person is [Handler.SignIn], given a [Redirect] that
// brings the person to the authorization server and takes its answer: a [Loopback]
// (a listener on 127.0.0.1 and the person's browser, for a program at their
// machine: switchboard login) or a [Callback] (a service's own route, for serve):
//
//	h := hs.Handler(cfg.Servers[0])
//	err := h.SignIn(ctx, &signin.Loopback{Server: "notes", Out: os.Stderr, Browser: signin.DefaultBrowser()})
//
// A supervisor whose server needs a sign-in waits in [Handler.WaitSignIn], which
// returns once a sign-in is there: made in this process, or stored by another one
// (switchboard login in another terminal while switchboard mcp runs).
//
// # The flow
//
// SignIn runs the SDK's auth.AuthorizationCodeHandler, which follows the spec: the
// protected resource metadata (RFC 9728) from the challenge's resource_metadata,
// then the well-known URIs at the endpoint's path and at the root; the authorization
// server's metadata (RFC 8414, then OpenID Connect discovery; the 2025-03-26
// fallbacks when there is none); PKCE with S256; the resource (RFC 8707) on the
// authorization and token requests; the scopes of the challenge, else those the
// metadata supports; offline_access where the authorization server offers it; the
// iss of the authorization response checked (RFC 9207). Around it, SignIn:
//
//   - refuses metadata that names another resource than the server's (RFC 9728
//     §3.3), before anything is sent to the authorization server, and ends the
//     sign-in at protected resource metadata that is there but refused, rather than
//     take the server by the 2025-03-26 rules;
//   - checks the authorization server's metadata by one set of rules on every path,
//     the legacy one included (checks.go): endpoints https or loopback http, no URL
//     but http(s), S256 offered; and never opens, prints or hands on an
//     authorization URL that is not http(s);
//   - says in its errors what failed (the step, its URL, the HTTP status, an OAuth
//     error code), never what an authorization server answered, which goes to the
//     log (failure.go): people read those errors;
//   - chooses the client: the config's pre-registered clientId, else its client ID
//     metadata document where the authorization server takes one, else a dynamic
//     registration (RFC 7591), made once and reused while valid (flowTransport
//     answers the SDK's registration request with the stored one: other clients
//     registered anew on every run, and made the person consent every time);
//   - listens for the redirect on the URI the registration was made with, or the
//     config's exact redirectUri (providers that demand a pre-registered one);
//   - on a step-up, asks for what was granted plus what the server asks for, and
//     asks no more when the server refuses a token that holds every scope it names;
//   - stores the registration and the tokens, and registers every secret it learns
//     (tokens, client secrets, codes) with the redactor, so that none appears in a
//     log line, an error or an answer.
//
// # Stores
//
// [Files] keeps one file per (server URL, issuer) in a directory of its own under
// the data directory: 0700, files 0600, written whole and renamed into place.
// signin/postgres keeps them in a PostgreSQL table for replicas that share them,
// each record sealed with AES-GCM under a key only the replicas hold. [Memory] keeps
// them for the process's life. The contract every store keeps is the suite in
// signin/signintest.
//
// [Handler.Forget] (switchboard logout) revokes the tokens where the authorization
// server offers revocation (RFC 7009) and forgets the registration and the tokens.
//
// See docs/architecture.md for where signin sits among the packages.
package signin
