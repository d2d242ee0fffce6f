// Package llmtest holds what the tests of the model backends share: a recorder of a
// Generate's events (and a check of how they end), a one-message request, and the
// replies that end a stream each way. The fake model servers they talk to
// are internal/fakellm's.
package llmtest

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
)

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

// StopCase is a fake model's reply and the stop reason a backend reports for it.
type StopCase struct {
	Reply fakellm.Reply
	Want  llm.StopReason
}

// StopCases are the ways a reply ends: a finished answer, tool calls (the call's
// id is callID, in the provider's shape), and a cut at max_tokens.
func StopCases(callID string) []StopCase {
	return []StopCase{
		{fakellm.Reply{Text: "done"}, llm.StopEnd},
		{fakellm.Reply{Text: "Looking.", Calls: []fakellm.Call{{ID: callID, Name: "weather", Arguments: `{}`}}}, llm.StopToolCalls},
		{fakellm.Reply{Text: "It was the best of", Stop: "max_tokens"}, llm.StopMaxTokens},
	}
}

// CheckStop says what is wrong with the end of the events, nil when they end as
// every backend's must: one StopReport with want, after every delta, followed by
// nothing but the UsageReport.
func (r *Recorder) CheckStop(want llm.StopReason) error {
	stops := r.Kind(llm.StopReport)
	if len(stops) != 1 || stops[0].Stop != want {
		return fmt.Errorf("stop events %+v, want one with %q", stops, want)
	}
	n := len(r.Events)
	last := r.Events[n-1].Kind
	switch {
	case last == llm.StopReport:
	case last == llm.UsageReport && n > 1 && r.Events[n-2].Kind == llm.StopReport:
	default:
		return fmt.Errorf("the events end with %s, want the stop report (and the usage)", last)
	}
	return nil
}

// UserSays is a request holding one user message.
func UserSays(text string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: text}}}
}
