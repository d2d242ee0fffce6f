package apiwire

import (
	"encoding/json"
	"time"
)

// The events of a session's turn streamed by POST /v1/sessions/{id}/messages with
// "Accept: text/event-stream" (docs/api.md, "Turns"): each event's name, and the
// type of its data. A stream ends with EventDone or EventError.
const (
	EventText             = "text"              // TextEvent: the next piece of the answer's text
	EventToolCall         = "tool_call"         // ToolCallEvent: a call starts
	EventToolResult       = "tool_result"       // ToolResultEvent: a call's result
	EventUsage            = "usage"             // Usage: the turn's tokens so far
	EventApprovalRequired = "approval_required" // ApprovalRequiredEvent: a call waits for approval
	EventInputRequired    = "input_required"    // Question: a server's question waits for its answer
	EventInputClosed      = "input_closed"      // InputClosedEvent: a question is answered or waits no more
	EventDone             = "done"              // Reply: the turn ended, with its answer
	EventError            = "error"             // ErrorBody: the turn failed
)

// The fields of each event's data are in the order of their names: the API wrote
// them as JSON objects whose keys come out sorted, and keeps writing the same bytes.

// TextEvent is the next piece of the answer's text in step Step.
type TextEvent struct {
	Step int    `json:"step"`
	Text string `json:"text"`
}

// ToolCallEvent is a call the model made in step Step, starting. Arguments is the
// JSON object the model sent, or a JSON string of what it sent when that was not
// JSON.
type ToolCallEvent struct {
	Arguments json.RawMessage `json:"arguments"`
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`
	Step      int             `json:"step"`
}

// ToolResultEvent is a call's result as the model gets it, a tool's failure being
// IsError, and how long the call took.
type ToolResultEvent struct {
	CallID     string  `json:"callId"`
	DurationMs float64 `json:"durationMs"`
	IsError    bool    `json:"isError"`
	Name       string  `json:"name"`
	Result     string  `json:"result"`
	Step       int     `json:"step"`
}

// ApprovalRequiredEvent is a call that waits, at most TimeoutMs, for POST
// /v1/sessions/{id}/approvals/{callId}.
type ApprovalRequiredEvent struct {
	Arguments json.RawMessage `json:"arguments"`
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`
	Server    string          `json:"server"`
	TimeoutMs int64           `json:"timeoutMs"`
}

// Question is a server's question that waits for POST
// /v1/sessions/{id}/inputs/{requestId}, as EventInputRequired and GET
// /v1/sessions/{id} show it.
type Question struct {
	RequestID string `json:"requestId"`
	Server    string `json:"server"`
	// Mode is "form" (Schema: the fields to fill in) or "url" (URL: to open).
	Mode      string          `json:"mode"`
	Message   string          `json:"message"`
	Schema    json.RawMessage `json:"schema,omitempty"`
	URL       string          `json:"url,omitempty"`
	TimeoutMs int64           `json:"timeoutMs"`
	// CallID is the turn's call during which the server asked.
	CallID string    `json:"callId,omitempty"`
	Since  time.Time `json:"since"`
}

// Approval is a call that waits for POST /v1/sessions/{id}/approvals/{callId}, as
// GET /v1/sessions/{id} lists it ("approvals"): since when it waits.
type Approval struct {
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`
	Server    string          `json:"server"`
	Arguments json.RawMessage `json:"arguments"`
	Since     time.Time       `json:"since"`
}

// InputClosedEvent is a question that waits no more: Action is the answer's
// ("accept", "decline", "cancel").
type InputClosedEvent struct {
	Action    string `json:"action"`
	RequestID string `json:"requestId"`
}

// Usage is the tokens a model read and wrote.
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
}

// Reply is a turn's outcome, the answer of POST /v1/sessions/{id}/messages and the
// data of EventDone: the answer, every step, the turn's usage and why the model
// stopped ("end", "tool_calls", "max_tokens", "other").
type Reply struct {
	Session string `json:"session"`
	Answer  string `json:"answer"`
	Steps   []Step `json:"steps"`
	Usage   Usage  `json:"usage"`
	Stop    string `json:"stop,omitempty"`
}

// Step is one round of a turn: the assistant's message and the tool messages that
// answer its calls, as the session keeps them (docs/api.md, "Sessions"), and the
// step's usage.
type Step struct {
	Assistant json.RawMessage   `json:"assistant"`
	Results   []json.RawMessage `json:"results,omitempty"`
	Usage     Usage             `json:"usage"`
}

// Models is the answer of GET /v1/models, in OpenAI's form: the configured model,
// none when the service has no model (a chat needs one).
type Models struct {
	Data   []Model `json:"data"`
	Object string  `json:"object"` // "list"
}

// Model is one model of [Models]: its name (the configured one, or "switchboard"),
// and since when it is served (Unix seconds).
type Model struct {
	Created int64  `json:"created"`
	ID      string `json:"id"`
	Object  string `json:"object"` // "model"
	OwnedBy string `json:"owned_by"`
}
