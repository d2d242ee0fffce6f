// Package hub runs many MCP servers as one: a [Hub] starts and supervises every server
// of a config, merges their tools into one catalog under one naming policy, and
// routes each call to the server that owns the tool. A Hub is a [tool.Toolset], so
// it can be unioned with local Go tools, filtered, handed to a model through package
// format, or re-served as one MCP server by package gateway.
//
// To get started, load a config, build a hub, start it, list its tools and call one:
//
//	cfg, err := config.Load("mcp.json", nil)
//	if err != nil {
//		log.Fatal(err) // every problem at once, each with file:line:col
//	}
//	h := hub.New(cfg, nil) // nil options: 10 s init timeout, 3 attempts, 30 s heartbeat...
//	defer h.Close()        // every server stopped, no child process left behind
//	if err := h.Start(ctx); err != nil {
//		log.Fatal(err) // a required server is not ready, or naming "never" found a collision
//	}
//	for _, t := range h.Tools() {
//		fmt.Println(t.Name, t.Server, t.Description)
//	}
//	res, err := h.Call(ctx, "convert_time", json.RawMessage(`{"time":"2026-01-02T03:04:05Z","to":"Asia/Tokyo"}`))
//	if err != nil {
//		log.Fatal(err) // only hub.ErrClosed
//	}
//	fmt.Println(tool.Text(res)) // a failure is a result with IsError set
//
// A config may also be built in Go ([config.FromValue], [config.Parse]); the
// examples do that with the demo clock server (`switchboard demo-server clock`).
//
// # Starting
//
// [New] only builds: nothing runs until [Hub.Start]. Start connects every enabled
// server at once, each on its own supervisor ([upstream.Supervisor]: a fresh process
// or HTTP connection per attempt, retries with backoff, heartbeats, reconnection), and
// returns when each server is ready, failed or disabled, or has used up its init
// timeout (the server's "timeout", 10 s by default), or when ctx ends. So one slow or
// broken server delays start-up by at most its timeout and never blocks the others.
// A server still trying after that keeps trying in the background and joins the
// catalog when it becomes ready; a failed one is retried every "retryFailed" (60 s).
//
// Start returns an error only when a server marked "required" is not ready, naming
// each with its state and last error, or when the naming policy "never" finds two
// servers exposing the same name. Other failures are logged (a summary line "MCP
// initialized: N servers, M tools (K failed)" and one warning per server) and shown
// by [Hub.Status]. A collision under "never" that arises later (a server joining
// after Start, a reload, a tool added by list_changed) is logged, and the names keep
// the server that exposed them first: the newcomer's colliding tools are left out
// until the config resolves them, and the rest of the catalog follows its servers.
// Under "auto" the newcomer's colliding tools are prefixed instead (see Names).
//
// # Tools and calls
//
// [Hub.Tools] returns the current catalog: a snapshot, cheap to take, server by
// server in the order they were configured (or added), each server's tools in its
// own order. A [tool.Tool] carries its exposed
// Name, the OriginalName and Server it routes to, its description and schemas.
// [Hub.Lookup] finds one by exposed name.
//
// [Hub.Call] routes a call by exposed name and waits for the server within the
// server's "toolTimeout" (60 s by default) and ctx. A server that is reconnecting
// keeps its tools listed, and a call to it waits for the new connection; a call is
// sent again after a reconnect only when it provably never reached the server.
//
// Arguments that nest objects and arrays deeper than the config's "maxArgumentDepth"
// (64 levels by default; [Options].MaxArgumentDepth overrides it) are refused with an
// error result and never sent: a stdio server built on the MCP Go SDK ends its session
// on a message nested 1,000 levels deep, and every call under way on it is lost with
// it. [Hub.CheckArguments] tells a caller that answers its own client (an HTTP API, a
// command line) beforehand.
//
// The MCP specification (2025-11-25, CallToolResult) asks servers to report a tool's
// own failures in the result:
//
//	Any errors that originate from the tool SHOULD be reported inside the result
//	object, with `isError` set to true, _not_ as an MCP protocol-level error
//	response. Otherwise, the LLM would not be able to see that an error occurred
//	and self-correct.
//
// The hub goes one step further, because its caller is usually a model's tool loop.
// The specification would have an error in finding the tool be a protocol error,
// which the model never sees; the hub answers an unknown tool with a result too
// (`unknown tool "convert_tim" (did you mean convert_time?)`). A dead or unreachable
// server, a timeout and a protocol error of the server come back as a result with
// IsError set and a message naming the server and the tool. The Go error of Call is
// for the program, not the model: it is [ErrClosed] once the hub is closed.
//
// # Watching
//
// [Hub.Status] reports every server in config order ([Status], upstream's: state,
// transport, number of tools, prompts and resources, restarts, last error, the tail
// of a stdio server's stderr, negotiated protocol). [Hub.Subscribe] calls a function
// on every state change of a server and every change of its lists (see [Event]); the
// catalog is already rebuilt when it runs, and it runs on a supervisor's goroutine,
// so it must return quickly. [Status], [State] (with [Ready] and the other states),
// [Event] and [ServerLog] are upstream's types under the hub's names, so that a
// program reads them without importing upstream. [Hub.Changed] returns a channel
// that is closed the next time the catalog (tools, prompts, resources or templates)
// changes: take the channel, read [Hub.Tools], wait, repeat.
//
// The catalog follows the servers. The specification says that "when the list of
// available tools changes, servers that declared the listChanged capability SHOULD
// send a notification"; the hub re-lists the tools of a server that sends one
// (debounced), and of every server that reconnects, and swaps in a new catalog only
// when something changed.
//
// # Changing servers while running
//
// [Hub.Add] starts one more server, which joins the catalog when ready; [Hub.Remove]
// stops one and drops its tools; [Hub.Replace] restarts one with a new configuration.
// [Hub.Reload] applies a whole new config by difference, which is what a host does
// when mcp.json changes on disk: servers whose configuration is unchanged keep
// running untouched (their processes, sessions and calls under way), changed ones
// restart, removed ones stop, and new ones start. The naming policy and the
// heartbeat and retry settings follow the new config, unless [Options] fixed them.
// Resource subscriptions and the log level that clients asked for carry over to a
// server that a reload restarts.
//
// # Names
//
// Exposed names must suit every consumer: MCP allows 1 to 128 characters of
// [A-Za-z0-9_.-], while OpenAI and Anthropic accept only ^[a-zA-Z0-9_-]{1,64}$. The
// hub keeps (server, original name) as a tool's identity and derives one exposed
// name for it under the config's "naming" setting ([config.Naming], overridden by
// [Options].Naming):
//
//	auto    (default) the original name; a name that two servers share stays
//	        with the server listed first in the config (or already exposing it)
//	        and becomes server__tool for the others
//	always  every tool is server__tool
//	never   the original name; a name that two servers share is an error naming both
//
// A server's "prefix" replaces its name in server__tool. Names are sanitised and,
// where too long or still colliding, shortened with a short hash suffix. A fresh
// start names by the config: of the servers that come up within their init timeouts
// and share a name, the one listed first keeps it, whichever is ready first, so the
// same config starts with the same names.
//
// From then on a name that clients may hold is kept. Under "auto", a server that
// joins a running hub (a reload, [Hub.Add], a slow server past its init timeout) or
// a tool that a server adds never renames a tool a running server exposes: when the
// newcomer's tool shares a name with it, the newcomer's is prefixed, and a warning
// names those tools. A running tool also keeps a prefix it got at the start after
// the server it collided with has gone. A server that restarts ([Hub.Restart],
// [Hub.Replace], a reload that changes it, or recovery from a failure) gets its
// tools' names back unless another took one meanwhile; a server that leaves the
// config frees its names. Closing the hub forgets everything: the next start names
// by the config again, which gives a server added at the end of the config by a
// reload the same prefixed names after a restart (one inserted before the server
// whose names it shares takes them at the restart). Prompts are named the same
// way. A server's "tools" filter (allow and deny globs on original names) decides
// which of its tools are exposed at all. See [tool.AssignNames] for the rule
// itself.
//
// # The MCP proxy side
//
// Besides tools, a hub offers everything else its servers offer, for a gateway to
// serve to MCP clients: [Hub.Prompts] (named like tools), [Hub.Resources] and
// [Hub.ResourceTemplates] (a URI that two servers share becomes
// switchboard://SERVER/URI, see [PrefixURI]), [Hub.GetPrompt], [Hub.ReadResource],
// [Hub.Complete], counted resource subscriptions ([Hub.SubscribeResource]), the servers'
// log level ([Hub.SetLogLevel]: every server gets the most verbose level anyone asked
// for), the roots notification ([Hub.NotifyRootsChanged]) and the capabilities
// announced to the servers ([Hub.SetCapabilities], before Start). What servers send
// their client — sampling, elicitation and roots requests, progress, log messages,
// resource updates — goes to the hub's peers ([Hub.AddPeer]), in the order they were
// added, until one takes a request; without a peer a server's request gets a "method
// not found" error. Package gateway is such a peer: gateway.New(h, nil) re-serves a started
// hub, all of it, to MCP clients over stdio or HTTP.
//
// # Closing
//
// [Hub.Close] stops every server at once and returns when all are gone. A stdio
// server is shut down as the specification (2025-11-25, Lifecycle) describes:
//
//	For the stdio transport, the client SHOULD initiate shutdown by:
//	 1. First, closing the input stream to the child process (the server)
//	 2. Waiting for the server to exit, or sending SIGTERM if the server does not
//	    exit within a reasonable time
//	 3. Sending SIGKILL if the server does not exit within a reasonable time after
//	    SIGTERM
//
// with every wait bounded, and the signals sent to the server's whole process group,
// so that grandchildren (npx → node) go too. No process the hub started outlives
// Close, and none of its goroutines. Close is idempotent; afterwards the catalog is
// empty and Call returns [ErrClosed].
package hub
