package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/tool"
)

// EventKind names what an Event reports.
type EventKind string

const (
	// TextDelta: Text is the next piece of the assistant's text in step Step.
	TextDelta EventKind = "text"
	// ToolStarted: the call CallID to Name with Arguments begins (before approval).
	ToolStarted EventKind = "tool_started"
	// ToolFinished: the call is answered: Duration (the call's own, from its
	// approval on: the time the approval hook took is not counted), IsError and
	// Result (the result's text as the model gets it) are set. Every started call
	// finishes (one cut short by a cancellation with InterruptedText).
	ToolFinished EventKind = "tool_finished"
	// StepUsage: Usage is the token count of step Step's request.
	StepUsage EventKind = "step_usage"
	// TurnUsage: Usage is the sum over the turn's steps, reported once at its end.
	TurnUsage EventKind = "turn_usage"
	// Answer: Text is the turn's final answer, reported last.
	Answer EventKind = "answer"
)

// Event is one thing that happened during a turn. An observer gets them in order, one
// at a time (the agent serialises them, though tool calls run concurrently), on the
// goroutines that run the turn: it must return quickly.
type Event struct {
	Kind    EventKind
	Session string
	// Step counts the turn's requests to the model, from 1.
	Step int
	// Text is the text delta (TextDelta) or the final answer (Answer).
	Text string
	// CallID, Name and Arguments identify a tool call (ToolStarted, ToolFinished).
	CallID, Name, Arguments string
	// Server is the server of the called tool, as the toolset names it (a hub's
	// server, "local"); "" for a tool the toolset does not have.
	Server string
	// Duration, IsError and Result tell how a call ended (ToolFinished).
	Duration time.Duration
	IsError  bool
	Result   string
	// Usage is a step's or the turn's token count (StepUsage, TurnUsage).
	Usage llm.Usage
}

// Call is a tool call as the approval hook sees it: well-formed (its arguments are a
// JSON object) and naming a tool that the toolset lists now.
type Call struct {
	Session string
	Step    int
	ID      string
	Name    string
	// Arguments is the arguments object, compacted.
	Arguments json.RawMessage
	// Tool is the definition the model was shown (or the one listed now, for a tool
	// that joined during the step).
	Tool tool.Tool
}

// Decision is the approval hook's answer. The zero Decision denies: an approver that
// forgets to decide runs nothing.
type Decision struct {
	Allow bool
	// Reason is shown to the model when the call is denied, so it can act on it
	// ("the user declined to delete files").
	Reason string
}

// Allow is the Decision that lets a call run.
func Allow() Decision { return Decision{Allow: true} }

// Deny is the Decision that refuses a call, with the reason the model sees.
func Deny(reason string) Decision { return Decision{Reason: reason} }

// Approver decides whether one call may run. It may block (a person deciding) and
// should return when ctx is done; it is called concurrently for the calls of a step.
type Approver func(ctx context.Context, c Call) Decision
