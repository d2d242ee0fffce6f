// Package llmtest holds what the tests of the model backends share: a recorder of a
// Generate's events and a one-message request. The fake model servers they talk to
// are internal/fakellm's.
package llmtest

import "github.com/switchboard-mcp/switchboard/llm"

// Recorder keeps the events of one Generate; pass its On as the event callback
// (Generate calls it on its own goroutine, in order).
type Recorder struct{ Events []llm.Event }

// On records e.
func (r *Recorder) On(e llm.Event) { r.Events = append(r.Events, e) }

// Kind returns the events of kind k, in order.
func (r *Recorder) Kind(k llm.EventKind) []llm.Event {
	var out []llm.Event
	for _, e := range r.Events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// UserSays is a request holding one user message.
func UserSays(text string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: text}}}
}
