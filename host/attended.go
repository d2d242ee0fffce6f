package host

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/conversation"
)

// Attended runs the turns of a person who watches them at a terminal (a chat): an
// agent of Agent's over StepUp's catalog, so that a call its server refused for want
// of a scope is made again once signInAgain says it signed in anew, and
// Conversations over it with no bound on the person's time (a call waits for its
// decision, a question for its answer, as long as the call may). Each Turn it
// starts is a stream of TurnEvents to render; Decide and Answer take the person's
// word. Its errors are Agent's.
func (h *Host) Attended(ctx context.Context, signInAgain func(ctx context.Context, server string) bool) (*conversation.Runner, error) {
	ag, err := h.Agent(ctx, &agent.Options{Tools: h.StepUp(signInAgain)})
	if err != nil {
		return nil, err
	}
	return h.Conversations(ag, &conversation.Options{ApprovalTimeout: -1, InputTimeout: -1}), nil
}

// What a program renders of a turn and of a server's question, named here so that
// it imports neither conversation nor agent nor the MCP SDK: aliases, the same
// values.

// Turn is one turn that runs, a stream of TurnEvents (conversation.Turn);
// TurnRequest what it is asked (conversation.Request: the session, the user's
// message).
type (
	Turn        = conversation.Turn
	TurnRequest = conversation.Request
)

// TurnEvent is one thing that happened during a turn (conversation.Event): the
// agent's part of it, a StepEvent, and a call that waits for approval or a server's
// question.
type TurnEvent = conversation.Event

// StepEvent is the agent's part of a TurnEvent: text, a call started or finished,
// usage, the answer (agent.Event).
type StepEvent = agent.Event

// The kinds of a TurnEvent (conversation's names for the agent's and its own).
const (
	TextDelta        = conversation.TextDelta
	ToolStarted      = conversation.ToolStarted
	ToolFinished     = conversation.ToolFinished
	StepUsage        = conversation.StepUsage
	TurnUsage        = conversation.TurnUsage
	Answered         = conversation.Answered
	ApprovalRequired = conversation.ApprovalRequired
	QuestionAsked    = conversation.QuestionAsked
	QuestionClosed   = conversation.QuestionClosed
)

// Question is a server's question that waits for a person (conversation.Question);
// Reply the person's answer (conversation.Reply); ContentError an answer its form
// does not take (conversation.ContentError).
type (
	Question     = conversation.Question
	Reply        = conversation.Reply
	ContentError = conversation.ContentError
)

// Form is a question's fields to fill in, and FormField one of them, as the one
// reader of a question's schema has them (conversation.Form, conversation.Field).
type (
	Form      = conversation.Form
	FormField = conversation.Field
)

// ReadForm reads a question's requested schema into the fields to ask, each with
// the check of its answer (conversation.ReadForm).
func ReadForm(schema any) (*Form, error) { return conversation.ReadForm(schema) }

// The MCP values a program exchanges with the host: what a server asks of its
// client during a call (elicitation) and its answer, for ServerRequests; the
// capabilities of a gateway's client, for ServeMCPStdio's start; a tool's result as
// MCP encodes it.
type (
	ElicitParams       = mcp.ElicitParams
	ElicitResult       = mcp.ElicitResult
	ClientCapabilities = mcp.ClientCapabilities
	CallToolResult     = mcp.CallToolResult
)
