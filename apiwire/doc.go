// Package apiwire holds the JSON of Switchboard's HTTP API (docs/api.md) that a
// client decodes: a server's status and state (and its events), the health reports,
// the tool catalog, a search's results, a call's result, a server's log, a session's
// turn (the events of its stream and its reply), the models of GET /v1/models, the
// application keys of /v1/keys, and the one error body with its codes. The service (package api) encodes these types and the
// CLI's client of a running service decodes them, so the two cannot drift apart; a
// program that talks to the API imports this package alone, which imports nothing of
// Switchboard's and nothing outside the standard library.
//
// # Decoding an answer
//
// Every answer is JSON. The servers of GET /v1/servers:
//
//	var body apiwire.Servers
//	if err := json.NewDecoder(res.Body).Decode(&body); err != nil { … }
//	for _, s := range body.Servers {
//		if s.State != apiwire.Ready {
//			fmt.Printf("%s is %s: %s\n", s.Name, s.State, s.Reason)
//		}
//	}
//
// # A turn's events
//
// POST /v1/sessions/{id}/messages with "Accept: text/event-stream" streams the turn
// as server-sent events: each event's name (the Event constants) says the type of
// its data, [TextEvent], [ToolCallEvent], [ToolResultEvent], [Usage],
// [ApprovalRequiredEvent], [Question] or [InputClosedEvent], and the stream ends with
// EventDone, whose data is the turn's [Reply] (the answer of the same request
// without the header), or EventError, an [ErrorBody].
//
// # Errors
//
// Every error of the API's own routes is an [ErrorBody], {"error": {"code",
// "message"}}, with the HTTP status that fits. A client decides on the code (one of
// the Code constants, stable), never on the message, which is for people and may
// change:
//
//	var body apiwire.ErrorBody
//	if json.Unmarshal(data, &body) == nil && body.Error.Code == apiwire.CodeUnknownTool {
//		fmt.Println("did you mean", body.Error.Suggestions)
//	}
//
// The endpoints compatible with OpenAI's and Anthropic's APIs answer in those APIs'
// own error forms, and the MCP gateway in JSON-RPC's: none of them is described here.
package apiwire
