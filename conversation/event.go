package conversation

import (
	"encoding/json"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
)

// EventKind names what an Event reports: the agent's kinds, and the conversation's
// own (a call that waits for a person, a server's question asked and closed).
type EventKind = agent.EventKind

const (
	TextDelta    = agent.TextDelta
	ToolStarted  = agent.ToolStarted
	ToolFinished = agent.ToolFinished
	StepUsage    = agent.StepUsage
	TurnUsage    = agent.TurnUsage
	Answered     = agent.Answer
	// ApprovalRequired: Approval is a call that waits for a person's decision (Decide).
	ApprovalRequired EventKind = "approval_required"
	// QuestionAsked: Question is a server's question that waits for the person's
	// answer (Answer).
	QuestionAsked EventKind = "question_asked"
	// QuestionClosed: Question was answered, or closed without an answer (its
	// timeout, the call's end); Action says how ("cancel" when closed).
	QuestionClosed EventKind = "question_closed"
)

// Event is one thing that happened during a turn: the agent's events (Kind, and the
// fields of agent.Event) and the conversation's own, with Approval or Question.
type Event struct {
	agent.Event
	// Approval is the call that waits (ApprovalRequired).
	Approval *Approval
	// Question is the server's question (QuestionAsked, QuestionClosed).
	Question *Question
	// Action is how the question was closed (QuestionClosed): "accept", "decline"
	// or "cancel".
	Action string
}

// Approval is a call that waits for a person to decide it (Decide).
type Approval struct {
	Session, CallID, Name string
	// Server is the server of the called tool.
	Server string
	// Arguments is the arguments object, compacted.
	Arguments json.RawMessage
	// Since is when it began to wait; Timeout how long it waits at most (0: no bound).
	Since   time.Time
	Timeout time.Duration

	done chan struct{}
}

// Done is closed once the call is decided, or no longer waits (its timeout, the
// turn's end).
func (a *Approval) Done() <-chan struct{} { return a.done }

// Question is a server's question (elicitation/create, MCP 2025-11-25) that waits
// for the person to answer it (Answer).
type Question struct {
	// ID names the question in its session ("in_…").
	ID      string
	Session string
	Server  string
	// Mode is "form" (Form: the fields to fill in) or "url" (URL: the page to open,
	// which the client must not fetch).
	Mode    string
	Message string
	Form    *Form
	URL     string
	// CallID and Tool are the turn's call during which the server asked.
	CallID, Tool string
	// Since is when it was asked; Timeout how long it waits at most (0: no bound).
	Since   time.Time
	Timeout time.Duration

	done chan struct{}
}

// Done is closed once the question is answered, or no longer waits.
func (q *Question) Done() <-chan struct{} { return q.done }

// Reply is a person's answer to a Question.
type Reply struct {
	// Action is "accept", "decline" or "cancel".
	Action string
	// Content is the form's fields as a JSON object (Action "accept", form mode);
	// checked against the form, its defaults filling the fields left out.
	Content json.RawMessage
	// Note, when set, is added to the result of the call that caused the question,
	// for the model to read.
	Note string
}

// Result is what a turn did, as the agent reports it.
type Result = agent.Turn

// Call is a call a turn made, as the recent-calls feed records it (Observer.OnCall).
type Call struct {
	Tool, Server, Session string
	// Owner and Source are the turn's (Request.Owner, Request.Source).
	Owner, Source string
	Start         time.Time
	Duration      time.Duration
	IsError       bool
	// Result is the result's text as the model got it.
	Result string
}
