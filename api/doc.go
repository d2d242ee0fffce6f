// Package api is Switchboard's HTTP service: the servers of a hub, their tools,
// search, and chat sessions with a model, as JSON over plain net/http — what
// `switchboard serve` runs, and what a program can mount in a server of its own.
//
// # Serving a hub
//
// Start a hub, build the API over it and serve it on a listener:
//
//	h := hub.New(cfg, nil)
//	defer h.Close()
//	if err := h.Start(ctx); err != nil {
//		log.Fatal(err)
//	}
//	srv, err := api.New(h, &api.Options{Token: os.Getenv("SWITCHBOARD_TOKEN")})
//	if err != nil {
//		log.Fatal(err) // only a bad CORSOrigin
//	}
//	ln, err := net.Listen("tcp", "127.0.0.1:7300")
//	if err != nil {
//		log.Fatal(err)
//	}
//	go srv.Serve(ln)
//	<-ctx.Done()
//	grace, cancel := context.WithTimeout(context.Background(), 10*time.Second)
//	defer cancel()
//	srv.Shutdown(grace) // requests under way finish, then the rest is cancelled
//
// Server.Handler is the same API as an http.Handler, to mount in a server you run
// (and shut down) yourself.
//
// # Asking about servers and calling tools
//
//	curl localhost:7300/health
//	{"status": "ok", "version": "0.4.0", "mcp_tools": 8,
//	 "servers": {"clock": {"state": "ready", "tools": 3}, "notes": {"state": "ready", "tools": 5}}}
//
// "degraded" means some enabled server is not ready (its "error" says why) or the
// session store does not answer ("store": "error"). GET /healthz only says the
// process answers, and GET /readyz is 503 while a server marked "required" is not
// ready or the session store does not answer within 2 s ("store" gives its error):
// point liveness and readiness probes at them (they need no token, nor does /health,
// which says why a server is not ready only to a caller with one). GET /v1/servers
// and /v1/servers/{name} tell each server's state, transport, tools, restarts, last
// error and stderr tail (with identities on, an admin's only, as the log is); POST
// /v1/servers/{name}/restart starts it afresh, and GET /v1/servers/{name}/log is its
// log (stderr lines, state changes, MCP log messages; ?follow=1 streams it). With
// Options.Servers set (host.Host.API sets it), POST /v1/servers adds a server, PATCH
// and DELETE /v1/servers/{name} change and remove one, each written to the config
// file. GET /v1/resources and /v1/prompts list every server's resources and prompts.
//
// A remote server that wants an OAuth sign-in only a person can make is
// needs_sign_in. With Options.SignIn set (host.Host.API sets it), POST
// /v1/servers/{name}/login starts the sign-in and answers {"url"}: the
// authorization server's page, whose redirect comes back to the API's own GET
// /oauth/callback (at Options.PublicURL behind a proxy), and a cookie that binds
// the sign-in to the browser that asked (the dashboard's fetch): only that browser
// completes it. The server then connects, and /v1/events tells each step. With
// identities, a shared server's sign-in, and a restart, are an admin's.
//
// GET /v1/tools is the catalog, and ?format=mcp|openai|openai-responses|anthropic
// gives it exactly as that API takes it (Catalog; `switchboard tools --format`
// prints the same bytes). A call:
//
//	curl -X POST localhost:7300/v1/tools/convert_time/call \
//	  -d '{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}'
//	{"text": "2026-01-02T12:04:05+09:00 (Asia/Tokyo, Friday)", "content": [...], "isError": false}
//
// A tool's own failure is a 200 with "isError": true, as MCP reports it, so that the
// caller sees the message a model would; GET /v1/search?q=…&limit=N (or a regular
// expression with &regex=1) finds tools by what they do, ranked as the tool_search
// tool of deferred mode ranks them.
//
// # Sessions and turns
//
// With Options.Agent set, clients talk to the model in sessions kept by
// Options.Sessions; the agent keeps its sessions in the same store:
//
//	sessions := session.NewJanitor(store, nil)
//	a := agent.New(model, sessions.Store(), &agent.Options{Tools: h})
//	srv, err := api.New(h, &api.Options{Agent: a, Sessions: sessions})
//
// The API runs each turn through a conversation.Runner of its own, whose hooks take
// the place of the agent's OnEvent, Approve and Elicit: the turn's events go to its stream, its calls
// that need approval and the servers' questions wait for a person, and both are
// counted. Then:
//
//	curl -X POST localhost:7300/v1/sessions           → {"id": "k3…", ...}
//	curl -X POST localhost:7300/v1/sessions/k3…/messages -d '{"content": "What time is it in Tokyo?"}'
//	{"session": "k3…", "answer": "It is 12:04 in Tokyo.", "steps": [...], "usage": {...}}
//
// Sent with "Accept: text/event-stream", the same request streams the turn as it
// happens: "text" (pieces of the answer), "tool_call", "tool_result", "usage", and
// last "done" (the reply above) or "error" ({"error": {"code", "message"}}). A tool
// whose server lists it under "approve" waits for a person: the stream sends
// "approval_required" with the call's id, GET /v1/sessions/{id} lists it, and
// POST /v1/sessions/{id}/approvals/{call_id} with {"allow": true} (or false and a
// "reason" the model sees) decides it; nobody deciding within
// Options.ApprovalTimeout denies it. A server's question to the person during a call
// (elicitation/create: a form, or a URL to open) is sent as "input_required", listed
// under "inputs", and answered by POST /v1/sessions/{id}/inputs/{request_id} with
// {"action": "accept", "content": {...}} (checked against the form: a 400 names each
// field wrong), "decline" or "cancel"; nobody answering within Options.InputTimeout
// cancels it. (The questions reach the turn through an agent.ServerRequests on the
// hub, as host.API adds.) One turn runs per session at a time: another is 409, as is
// deleting a session during its turn.
//
// # Errors
//
// Every error is {"error": {"code", "message"}} with the status that fits: 400 for
// malformed JSON (naming the problem and its byte offset), unknown fields or bad
// parameters; 401 without the token; 403 for a request refused as cross-site; 404
// for an unknown tool (with "suggestions"), server, session or endpoint (a path with
// "//", "." or ".." is not redirected to its clean form); 405 with Allow for another
// method; 409 for a busy session; 413 past Options.MaxRequestBytes; 503 when no
// model is configured (saying how to configure one). The OpenAI-compatible endpoints
// answer in OpenAI's error form, and /mcp and /sse with a JSON-RPC error with no id:
// what their clients read. Every response carries X-Request-Id (the client's, or a
// new one), and the request's log line has it as request_id.
//
// # Security
//
// A token (Options.Token) is compared in constant time and never logged; the probes and
// /health, the dashboard's files and /oauth/callback (which takes an answer only for a
// sign-in started with the token, by its state) are the only routes without it. On a
// loopback listener a request whose Host is not loopback (nor Options.PublicURL's)
// is refused: a web page whose name was rebound to 127.0.0.1 (DNS
// rebinding) would otherwise reach a service that trusts the machine, which the MCP
// specification warns about (2025-11-25, security best practices). Cross-origin
// browser requests that change something are refused, and CORS headers are sent only
// for Options.CORSOrigin; "*" lets any page call tools and chat, never change the
// servers, read their config or log, restart one or sign in. A slow client holds a connection only so long: a body must
// arrive within Options.ReadTimeout (408 past it), a response be read within
// Options.WriteTimeout of its first byte (event streams excepted), and an idle
// keep-alive connection closes after Options.IdleTimeout; a request refused before
// its body is read gets its answer at once.
//
// # People
//
// With Options.Identify (serve with an OpenID provider: identity.Verifier) each
// request names its person (identity.Person in its context); a refused one is 401
// with a challenge pointing at GET /.well-known/oauth-protected-resource, the MCP
// gateway's protected resource metadata (RFC 9728), so that an MCP host can sign its
// user in. A session and the calls made in it are their creator's: another person
// gets the 404 of a missing session on every route under /v1/sessions/{id}, and
// /v1/calls and /v1/events show them only their own; an admin sees all. GET /v1/me
// says who the caller is. Options.RequestsPerMinute bounds each person's requests
// (429 with Retry-After); the hub logs an audit line per call with its person.
//
// # The MCP gateway
//
// Options.Gateway mounts the gateway's handler (gateway.Gateway.Handler) at /mcp
// (Streamable HTTP) and /sse (legacy SSE), behind the same token: MCP clients and
// HTTP clients then share one port and one set of servers.
//
// # OpenAI-compatible chat
//
// POST /v1/chat/completions takes a Chat Completions request (streaming or not) and
// answers in that format, so any OpenAI client library gets every MCP server's tools
// by changing its base URL:
//
//	client := openai.NewClient(option.WithBaseURL("http://127.0.0.1:7300/v1/"), option.WithAPIKey(token))
//
// The request's messages go to the configured model with the catalog's tools
// (deferred mode as configured); the calls to catalog tools run here, and the last
// answer comes back. Tools the request brings itself are the client's: a call to one
// ends the turn and comes back as tool_calls with finish_reason "tool_calls". Each
// request is its own conversation: nothing is stored. GET /v1/models lists the
// configured model.
//
// POST /v1/responses (OpenAI's Responses API, streamed as its typed events) and
// POST /v1/messages (Anthropic's Messages API, at the same base URL, x-api-key taken
// as the token) do the same for the clients that speak those: the catalog's tools
// run here, the client's own come back to it (function_call items, tool_use blocks),
// and errors take each API's own shape. A response is kept as a session, so that
// previous_response_id continues it and GET /v1/responses/{id} reads it.
//
// # Dashboard and events
//
// GET / is a dashboard built into the binary (api/dashboard: one HTML, one script,
// one style sheet; nothing fetched from elsewhere): the servers' live state (a server
// that keeps losing its connection is "flapping"), the catalog with search and a form
// per tool, the recent calls, and a chat panel over
// the sessions API. It is served without the token and asks for it when the API
// answers 401, then sends it as a bearer header. GET /v1/events is what keeps it live,
// server-sent events anyone can follow: "snapshot" first, then "server" at each state
// change and "call" at each call made through the API or a turn; GET /v1/calls lists
// the last 100 calls.
//
// # Metrics
//
// GET /metrics serves Prometheus' text format, behind the token like the rest
// (Prometheus sends it with "authorization: {credentials: …}" in a scrape config).
// Servers, sessions and turns are read when scraped; the rest is counted as it
// happens:
//
//	switchboard_server_state{server,state}               1 for the server's state, 0 for the others
//	switchboard_server_tools{server}                     tools the server lists
//	switchboard_server_reconnects_total{server}          connections lost and made afresh
//	switchboard_tool_calls_total{server,tool,outcome}    outcome "ok" or "error"
//	switchboard_tool_call_duration_seconds{server,tool}  histogram
//	switchboard_sessions                                 sessions in the store
//	switchboard_turns_active                             turns running
//	switchboard_model_requests_total{outcome}            a turn's requests to the model
//	switchboard_model_tokens_total{direction}            "input" or "output", as the model reported
//	switchboard_http_requests_total{route,code}          route: the pattern, e.g. "GET /v1/sessions/{id}"
//	switchboard_http_request_duration_seconds{route}     histogram
//
// Tool calls are counted where the hub routes them (hub.Hub.ObserveCalls), so the
// calls of agents, of POST /v1/tools/{name}/call and of MCP clients of the gateway
// all count; "tool" is the tool's own name on its server. A route is the pattern
// that matched, never the path (one series per endpoint, not per session), and
// "none" for a request refused before routing. The Go runtime's and the process's
// metrics (go_*, process_*) come too. Options.Registry puts the API's metrics into
// a registry of the program's (and serves the program's own with them); by default
// each Server has its own, so that two in one process do not collide.
package api
