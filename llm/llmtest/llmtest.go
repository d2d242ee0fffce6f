// Package llmtest holds what the tests of the model backends share: a recorder of a
// Generate's events and a one-message request. The fake model servers they talk to
// are internal/fakellm's.
package llmtest

import (
	"fmt"

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
