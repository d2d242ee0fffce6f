// Package llm is the seam between Switchboard's agent and a language model: one small
// interface, [Model], with provider-neutral messages and stream events, and backends
// that speak each provider's wire format through its official Go SDK
// (llm/openai for any OpenAI-compatible Chat Completions endpoint, llm/anthropic for
// the Anthropic Messages API).
//
// A conversation is a list of [Message]s: the user's text, the assistant's text and
// tool calls, and one tool message per call with the tool's [tool.Result]. A backend
// turns the history and the tools exposed now into the provider's request (tool
// definitions, calls and results through the format package, so there is one converter
// for every use), streams the reply, and hands back the assistant message whole:
//
//	res, err := model.Generate(ctx, &llm.Request{
//		System:   "You are terse.",
//		Messages: history,
//		Tools:    toolset.Tools(),
//	}, func(e llm.Event) {
//		if e.Kind == llm.TextDelta {
//			fmt.Print(e.Text) // the answer as it arrives
//		}
//	})
//	if err != nil {
//		return err // the model could not be reached: *llm.Error says where and why
//	}
//	history = append(history, res.Message) // text and/or res.Message.Calls
//
// Errors from Generate are for the caller: the model or the network failed (after the
// SDK's own retries on 429 and 5xx). What a tool does wrong never becomes an error
// here; the agent sends it back to the model as a tool message.
package llm

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/tool"
)

// Role says who wrote a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool is the answer to one tool call (Message.CallID).
	RoleTool Role = "tool"
)

// Message is one entry of a conversation, in no provider's format. The system prompt
// is not a message: it travels in Request.System.
type Message struct {
	Role Role `json:"role"`
	// Text is the user's or the assistant's text; empty for a tool message.
	Text string `json:"text,omitempty"`
	// Calls are the tool calls of an assistant message, in the model's order.
	Calls []Call `json:"calls,omitempty"`
	// CallID, Name and Result make a tool message: the call it answers, the tool's
	// name as the model called it, and what the tool returned (errors included, with
	// IsError set). Kept as MCP content so that each backend renders it in its own
	// provider's form (images where the provider takes them).
	CallID string       `json:"callId,omitempty"`
	Name   string       `json:"name,omitempty"`
	Result *tool.Result `json:"result,omitempty"`
	// Native, on an assistant message, is the reply as its provider wrote it, kept
	// when it holds what Text and Calls cannot say and the provider wants back in
	// the next request: the blocks of Anthropic's own tool search (server_tool_use,
	// tool_search_tool_result), without which the deferred tools the model found
	// are unknown to the next request. It is stored with the session like the rest
	// of the message; only the backend of Native.Provider reads it (it takes the
	// calls from Calls all the same), and every other backend ignores it.
	Native *Native `json:"native,omitempty"`
}

// Native is a message's content in one provider's own format, opaque to everyone
// but that provider's backend.
type Native struct {
	// Provider names the backend that wrote it: "anthropic", "openai-responses".
	Provider string `json:"provider"`
	// Content is the provider's JSON: for "anthropic", the message's content blocks
	// in the form a request takes them; for "openai-responses", the reply's output
	// items as input items (function calls written from Calls when sent back).
	Content json.RawMessage `json:"content"`
}

// Call is one tool call the model asked for.
type Call struct {
	// ID is the provider's call id, echoed in the tool message. Backends make one up
	// when the provider sent none (some OpenAI-compatible servers do not).
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the text the model sent as the call's arguments: normally a JSON
	// object, but a model may send malformed JSON, which the agent answers with an
	// error result instead of running the tool. Kept as sent so that the history
	// repeats exactly what the model said; Parse reads it.
	Arguments string `json:"arguments"`
}

// Request is one call to the model.
type Request struct {
	// Model overrides the backend's configured model name when set.
	Model    string
	System   string
	Messages []Message
	// Tools are the tools the model may call in this step; none means it must answer
	// in text (the last step of a turn).
	Tools []tool.Tool
	// Deferred are tools the model does not see up front but finds with the
	// provider's own tool search (see NativeSearcher), sent with Tools in native
	// deferred mode. Only a backend whose NativeToolSearch reports true is given any;
	// a backend without native search does not read this field, so a caller that
	// set it anyway would hide those tools from the model. The search itself runs
	// on the provider's side: what the model then calls arrives as ordinary Calls,
	// and what must go back to the provider rides in Message.Native.
	Deferred []tool.Tool
	// MaxTokens bounds the reply; 0 means the backend's default.
	MaxTokens int
	// Temperature, when set, is passed on; nil leaves the provider's default.
	Temperature *float64
	// Output, when set, asks for the answer's text in JSON: any JSON object, or JSON
	// that follows a schema (structured outputs). It holds for every step of a turn,
	// since any step may be the answer; tool calls are not bound by it. A backend
	// whose provider cannot give what it asks refuses the request with an
	// *UnsupportedError before sending anything, never drops it.
	Output *Output
}

// Output is the format of an answer's text (Request.Output), in no provider's
// terms: OpenAI's Chat Completions take it as response_format, its Responses API as
// text.format, Anthropic's Messages API as output_config.format.
type Output struct {
	// Schema is the JSON Schema the answer follows; nil asks for any JSON object
	// (OpenAI's json_object, which Anthropic's API has no form of).
	Schema json.RawMessage
	// Name and Description name the schema where the provider takes them (OpenAI
	// requires a name: "response" when empty); Anthropic's API has neither.
	Name        string
	Description string
	// Strict asks the provider to hold the answer to Schema exactly (OpenAI's
	// "strict"); Anthropic's structured outputs always do.
	Strict bool
}

// UnsupportedError is a request that a backend refuses before sending it, because
// its provider's API cannot do what it asks (an answer in JSON without a schema, on
// Anthropic's). A front end names its own request's field that asked for it.
type UnsupportedError struct {
	Provider string // "openai", "anthropic"
	// Field is the Request field at fault: "Output".
	Field string
	// Message says what cannot be done, and what can.
	Message string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s model: %s: %s", e.Provider, e.Field, e.Message)
}

// Usage counts tokens.
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
}

// Add returns the sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens}
}

// StopReason says why the model stopped.
type StopReason string

const (
	StopEnd       StopReason = "end"        // a finished answer
	StopToolCalls StopReason = "tool_calls" // it wants the tools' results
	StopMaxTokens StopReason = "max_tokens" // cut at Request.MaxTokens
	StopOther     StopReason = "other"      // anything else the provider said (content filter, refusal …)
)

// EventKind names what an Event carries.
type EventKind string

const (
	// TextDelta: Text is the next piece of the assistant's text.
	TextDelta EventKind = "text"
	// CallDelta: part of tool call number Index (in the order the calls began): its
	// ID and Name when it begins, then pieces of its Arguments text.
	CallDelta EventKind = "call"
	// StopReport: Stop is why the model stopped, as Response.Stop says it, once the
	// stream has ended: after every text and call delta, before the UsageReport.
	StopReport EventKind = "stop"
	// UsageReport: Usage is the request's token count, as the provider reported it.
	UsageReport EventKind = "usage"
)

// Event is one piece of a streamed reply. Events of one Generate arrive in order, on
// the goroutine that called Generate.
type Event struct {
	Kind  EventKind
	Text  string // TextDelta
	Index int    // CallDelta
	// CallDelta: ID and Name are set on the first event of a call; Arguments is the
	// next piece of its arguments text.
	ID, Name, Arguments string
	Stop                StopReason // StopReport
	Usage               Usage      // UsageReport
}

// Response is the whole reply to a Request.
type Response struct {
	// Message is the assistant message: Role is RoleAssistant, with Text, Calls or both.
	Message Message
	Usage   Usage
	Stop    StopReason
	// Model is the model that answered, as the provider named it.
	Model string
}

// Model is a language model behind some provider's API.
type Model interface {
	// Generate sends req, passes each piece of the reply to onEvent (which may be nil)
	// as it arrives, and returns the whole reply once the stream ends. Cancelling ctx
	// ends the request and the stream.
	Generate(ctx context.Context, req *Request, onEvent func(Event)) (*Response, error)
}

// NativeSearcher is a Model that can hand Request.Deferred to the provider's own
// tool search (Anthropic's tool search tool with defer_loading, OpenAI's
// tool_search), so that the provider finds and loads tools instead of Switchboard.
// llm/anthropic does (unless told not to); llm/openai does on the Responses API
// (Options.API "responses") and reports false on Chat Completions, which has no
// tool search.
type NativeSearcher interface {
	// NativeToolSearch reports whether this backend, as configured, does.
	NativeToolSearch() bool
}

// Error is a request the model's service did not answer as asked: unreachable, an
// HTTP error status after the SDK's retries, or a stream that broke. It names where
// the request went and what came back, never the API key.
type Error struct {
	Provider string // "openai", "anthropic"
	BaseURL  string
	// Status is the HTTP status, 0 when none came back (refused, timed out, cut).
	Status int
	// Message is the provider's error message, or what went wrong on the way.
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s model at %s: HTTP %d: %s", e.Provider, e.BaseURL, e.Status, e.Message)
	}
	return fmt.Sprintf("%s model at %s: %s", e.Provider, e.BaseURL, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }
