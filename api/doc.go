// Package api is Switchboard's HTTP service over a hub: the servers and their tools,
// search, chat sessions with a model, the OpenAI- and Anthropic-compatible
// endpoints, the MCP gateway, Prometheus metrics, live events and the dashboard, as
// JSON over plain net/http. `switchboard serve` runs it (host.Host.API builds it
// with the sessions, the server edits and the sign-ins wired in); a program can
// mount it in a server of its own.
//
// # Mounting it
//
// Build the API over a started hub and serve it on a listener:
//
//	h := hub.New(cfg, nil)
//	defer h.Close()
//	if err := h.Start(ctx); err != nil {
//		log.Fatal(err)
//	}
//	srv, err := api.New(h, &api.Options{Token: os.Getenv("SWITCHBOARD_TOKEN")})
//	if err != nil {
//		log.Fatal(err) // a bad option: CORSOrigin, PublicURL, Registry
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
// [Server.Handler] is the same API as an http.Handler, to mount in a server you run
// (and shut down) yourself. Sessions, turns and the compatible chat endpoints
// (package api/compat) need a conversation.Runner over an agent of the session store
// ([Options.Conversations], [Options.Sessions]), whose hooks take the place of the
// agent's OnEvent, Approve and Elicit (the turn's stream, its approvals, the servers'
// questions); the API watches each turn it starts (the metrics, the recent calls), so
// one agent serves every turn:
//
//	sessions := session.NewJanitor(store, nil)
//	a := agent.New(model, sessions.Store(), &agent.Options{Tools: h})
//	runner := conversation.New(a, &conversation.Options{NeedsApproval: conversation.ServerPolicy(h.Server)})
//	srv, err := api.New(h, &api.Options{Conversations: runner, Sessions: sessions})
//
// # Routes
//
// Every endpoint is one entry of the table in routes.go, with its access rules (no
// token, admins only, the service's own origin only), whether it is a stream, and the
// form of its errors; the middleware wraps each the same way. docs/api.md documents
// every endpoint, its requests, answers and errors, and the security around them;
// TestRoutesDocumented holds its table of endpoints and routes.go's to the same list.
package api
