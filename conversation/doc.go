// Package conversation runs the turns a person watches: between the agent loop
// (package agent) and the front ends that show a turn to someone (the HTTP API's
// sessions and compatible endpoints, switchboard chat at a terminal, a bot of your
// own). A front end renders a turn's stream and hands back what the person said; the
// rest is here, once:
//
//   - the approve policy: whether a call must be decided by a person before it runs
//     (Options.NeedsApproval; ServerPolicy reads the servers' "approve" globs);
//   - the calls that wait for that decision and the servers' questions
//     (elicitation/create) that wait for an answer, each bounded by its timeout
//     (Options.ApprovalTimeout, Options.InputTimeout, and the call's own time);
//   - the one reader of a question's form (ReadForm): its fields to show, and the
//     check of an answer against it (types, bounds, required fields, defaults);
//   - the record of every call a turn made, its server named by the event (Observer.OnCall:
//     a recent-calls feed);
//   - a turn over a stored session (Request.Session, the agent's store) or over a
//     conversation the request brought, held in memory and written to no store
//     (Request.InMemory: a chat completion).
//
// # A front end
//
// Start a turn, read its events, and answer what it asks:
//
//	runner := conversation.New(agent.New(model, store, &agent.Options{Tools: h}),
//		&conversation.Options{NeedsApproval: conversation.ServerPolicy(h.Server)})
//	t := runner.Start(ctx, &conversation.Request{Session: id, User: text})
//	for e := range t.Events() {
//		switch e.Kind {
//		case conversation.TextDelta:
//			show(e.Text)
//		case conversation.ApprovalRequired:
//			t.Decide(e.CallID, askYesNo(e.Name, e.Approval.Arguments), "")
//		case conversation.QuestionAsked:
//			t.Answer(e.Question.ID, conversation.Reply{Action: "accept", Content: fill(e.Question.Form)})
//		}
//	}
//	res, err := t.Wait()
//
// The stream holds every event until it is taken, so the turn never waits for its
// reader; a reader that follows several sources selects on Ready and Done and
// calls Take. A person who answers elsewhere (another HTTP request) reaches the turn
// by its session: Runner.Decide and Runner.Answer, allowed to the session's owner
// only (identity.Allowed), and Runner.Busy lists what waits. A turn nobody watches
// (Request.Unattended) asks nobody: a call that needs approval is denied and a
// question declined, each with the reason the model reads.
//
// A server's question reaches the turn through the hub: an agent.ServerRequests
// added to the hub as a peer finds the turn whose call was under way (see package
// agent). The Example is a whole front end in a hundred lines.
package conversation
