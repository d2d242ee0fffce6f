// Package agent runs the chat + tool loop: an [Agent] is a model ([llm.Model]) plus
// a [tool.Toolset], with its conversations kept in a [session.Store].
//
// A turn starts with the user's message and ends with the model's answer:
//
//	// model: llm/openai or llm/anthropic; store: session.NewMemory(), session/sqlite …
//	a := agent.New(model, store, &agent.Options{
//		Tools: tool.Union("", local, hub), // read afresh at every step
//		OnEvent: func(e agent.Event) {
//			if e.Kind == agent.TextDelta {
//				fmt.Print(e.Text)
//			}
//		},
//	})
//	if err := store.Create(ctx, &session.Session{ID: "s1"}); err != nil { … }
//	turn, err := a.Run(ctx, "s1", "What time is it in Tokyo?")
//	if err != nil {
//		return err // the store, the model (*llm.Error) or ctx; never a tool
//	}
//	fmt.Println(turn.Answer, turn.Usage)
//
// Each step sends the session's history and the tools the toolset lists now — so a
// tool that a server adds mid-turn is usable in the same turn — and runs the calls
// of the reply concurrently (at most Options.ParallelTools at once). Their results go
// back to the model in call order. After Options.MaxSteps requests with tools, one
// more request without tools asks for the final answer.
//
// Approvals: Options.Approve sees each well-formed call to a listed tool before it
// runs, and its reason reaches the model when it says no:
//
//	Approve: func(ctx context.Context, c agent.Call) agent.Decision {
//		if c.Tool.Annotations != nil && c.Tool.Annotations.ReadOnlyHint {
//			return agent.Allow()
//		}
//		return agent.Deny("only read-only tools may run unattended")
//	},
//
// Events: Options.OnEvent gets the text as it streams, each call's start and end
// (name, arguments, duration, error or not, the result's text), each step's token
// usage, the turn's, and the answer — one at a time, in order.
//
// Nothing a tool does wrong ends a turn. An unknown tool, arguments that are not a
// JSON object, a tool's error, a dead or hung server, a timeout (Options.ToolTimeout,
// and the hub's per-server toolTimeout), a panic in a local tool, a server's
// isError, and a call the approval hook denies: each is answered with an error
// result the model reads and can act on.
//
// Crash safety: the user's message is stored before the model is called, the
// model's reply as soon as it is complete and each tool result as soon as its call
// returns (so results are stored in the order the calls finished; requests put them
// back in call order). A process that dies mid-step leaves calls without results;
// the session's next turn answers them with [InterruptedText] first, as the
// providers reject a history with unanswered calls. Cancelling Run's context stops
// the model's stream and the calls under way; what completed before stays stored,
// and the calls cut short (or never started) are answered with [InterruptedText]
// before Run returns.
//
// One turn at a time per session: a Run on a session whose turn is held (in this
// process or, with a shared store, another) fails at once with session.ErrBusy.
//
// What servers ask their client while a tool runs (sampling, elicitation) is
// answered by [ServerRequests], a peer of the hub, not by the loop. A server's
// question to the person (elicitation/create) during a turn's call reaches that
// turn's own Options.Elicit or TurnOptions.Elicit (an [Eliciter]): the agent marks
// each call's context with its turn, and the hub hands ServerRequests the contexts
// of the calls under way, so every turn asks its own person (serve: the session's
// stream; a chat completion: nobody, and the model is told):
//
//	Elicit: func(ctx context.Context, e agent.Elicitation) agent.ElicitReply {
//		if e.Params.Mode == "url" {
//			return agent.ElicitReply{Result: &mcp.ElicitResult{Action: "decline"}, Note: "links are not opened here"}
//		}
//		return agent.ElicitReply{Result: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}}
//	},
//
// Deferred mode: past a few dozen tools, models choose worse and every request
// carries every definition. With Options.Deferred the model sees, while the catalog
// is large (deferred.Policy: from 15 tools by default, or a share of its context
// window), the search tools tool_search and tool_search_regex, the pinned tools and
// the tools this session has found:
//
//	Deferred: &deferred.Policy{Pinned: func(t tool.Tool) bool { return t.Server == "clock" }},
//
// A search loads what it finds into the session, listed from the next step of the
// same turn and stored with it (Session.Loaded), so the next turn starts with them;
// a catalog tool called by its exact name runs and is loaded too. Each session has
// its own set. With Options.NativeSearch, a backend that has the provider's own tool
// search (llm.NativeSearcher) gets the catalog as Request.Deferred instead.
package agent
