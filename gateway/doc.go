// Package gateway exposes any tool.Toolset — normally the hub — as one MCP server, so
// that Claude Code, Codex, IDEs and any other MCP client use every configured server
// through one entry, with the same names and filters that native agents see.
//
// To serve a config's servers over Streamable HTTP:
//
//	cfg, err := config.Load("mcp.json", nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	h := hub.New(cfg, nil)
//	defer h.Close()
//	h.SetCapabilities(gateway.AllForwardable()) // the clients are not known yet
//	if err := h.Start(ctx); err != nil {
//		log.Fatal(err)
//	}
//	gw := gateway.New(h, nil) // or any tool.Toolset: a tool.Local, a tool.Union...
//	defer gw.Close()
//	bridge, err := gw.Listen("127.0.0.1:8931", nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer bridge.Close()
//	fmt.Println(bridge.URL()) // http://127.0.0.1:8931/mcp; legacy SSE at bridge.SSEURL()
//
// The Example shows a client of the official SDK listing and calling tools this way.
//
// # Transports
//
// [Gateway.Listen] serves on an address of its own ([Gateway.Serve] on a listener
// the program bound); [Gateway.Handler] is the same as an http.Handler to mount in a
// program's own server: Streamable HTTP at /mcp, legacy SSE at /sse. [HTTPOptions]
// set a bearer token, stateless Streamable HTTP, how long an idle session lives
// (1 hour by default, after which the client gets 404 and initializes anew) and the
// largest request body (4 MiB by default). The specification (2025-11-25,
// Transports) warns:
//
//  1. Servers MUST validate the `Origin` header on all incoming connections to
//     prevent DNS rebinding attacks. If the `Origin` header is present and
//     invalid, servers MUST respond with HTTP 403 Forbidden.
//  2. When running locally, servers SHOULD bind only to localhost (127.0.0.1)
//     rather than all network interfaces (0.0.0.0)
//  3. Servers SHOULD implement proper authentication for all connections
//
// So a cross-origin browser request other than GET, HEAD or OPTIONS gets 403
// (http.CrossOriginProtection), a loopback connection whose Host is not localhost
// is refused (the SDK's DNS-rebinding protection), and Listen refuses an address
// beyond loopback unless HTTPOptions.Token is set ([ErrTokenRequired]); the token
// must then come on every request as "Authorization: Bearer TOKEN".
//
// [Gateway.ServeStdio] serves one client on stdin and stdout, as a host runs a
// server it starts (`switchboard mcp`). There the client is known before any server
// starts: [Options].Start runs once, on the client's first request, with the
// capabilities it announced, and the other requests wait for it. Starting the hub
// there, after h.SetCapabilities(caps), lets servers that offer tools according to
// their client's capabilities see the real client's.
//
// # What clients get
//
// The served tools are the toolset's, under the names it gives them, with input
// schemas cleaned to the object schemas MCP requires. The catalog follows the
// toolset: when it changes (a server joins, reconnects, or sends
// notifications/tools/list_changed) the gateway updates what it serves, and the
// clients get notifications/tools/list_changed. A call goes to the toolset's Call
// with the client's _meta; its failures come back as the toolset makes them, results
// with isError set. A name the gateway does not serve gets the protocol error the
// specification asks for in finding a tool ("unknown tool"), and so does every call
// once the toolset is closed.
//
// # Deferred mode
//
// A large catalog costs every client's model its definitions on each request. With
// [Options].Deferred (a deferred.Policy: always, or auto from a tool count or a share
// of the context window, and which tools are pinned) each client session gets a view
// of its own (deferred.Views.View): tools/list holds tool_search,
// tool_search_regex, tool_call, the pinned tools and what that session's searches
// found. A search loads what it finds and sends that session alone
// notifications/tools/list_changed; another client's list never changes with it.
// Any catalog tool can be called by its exact name, listed or not. Many clients
// ignore tools/list_changed, so tool_call(name, arguments) calls any catalog tool by
// name, and each search result says how to call what it found both ways:
//
//	gw := gateway.New(h, &gateway.Options{Deferred: &deferred.Policy{Mode: deferred.Always}})
//
// Without sessions (stateless Streamable HTTP) every request is a session of its own:
// searches load nothing that stays, and calls by name are the way.
//
// # The full proxy
//
// In front of the hub (any toolset that also implements [relay.Upstreams], as the hub
// says at compile time, or one set as [Options].Upstreams) the gateway serves the servers' prompts, resources, resource
// templates and completions too, and passes resource subscriptions and
// logging/setLevel on: a server is subscribed while any client holds a
// subscription, and gets the most verbose log level any client asked for.
//
// What the servers send their client comes to the gateway's clients, each message
// only to the client it concerns. A server's progress goes to the client whose call
// it reports on (its token mapped, so that two clients' tokens never clash
// upstream), a resource update to the clients subscribed. Log messages and requests
// (sampling/createMessage, elicitation/create, roots/list) sent while calls to that
// server are under way go to the client that made the calls, when one client made
// them all: nothing on the wire says which call caused them. Sent with no call under
// way, log messages go to every client, each at the level it set, and requests to
// the client heard from most recently that can answer them.
//
// A client's requests under way end, and the upstream calls they made are
// cancelled, when no answer can reach it any more: its session is deleted or closed
// as idle, its POST (stateless) or its SSE stream ends, or the gateway closes.
//
// Upstream connections speak protocol 2025-11-25, in which a server may ask its
// client something in the middle of a tool call. A client of 2026-07-28 cannot
// receive such a request; for it the gateway runs the call as a multi-round-trip
// call (SEP-2322): each question of the server ends a round with "input required",
// and the client's next call, with its answers, continues the same upstream call
// ([Options].InputWait bounds the wait for the answers, 10 minutes by default).
// Results carry only the fields of the client's protocol version.
//
// # Closing
//
// [Gateway.Close] stops following the toolset, ends every client's session (its
// subscriptions and log level with it) and the calls under way, and waits for the
// gateway's goroutines; it does not close the toolset, which the program owns.
// [Bridge.Close] stops listening: new connections are refused at once, open streams
// get a short grace. Close the bridge first, then the gateway, then the hub (defers
// in the order above do that).
package gateway
