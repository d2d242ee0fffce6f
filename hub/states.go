package hub

import (
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// A hub reports its servers in its supervisors' terms. These names let its users
// (the HTTP API, a program that embeds a hub) read statuses, events and logs without
// reaching past the hub into upstream.
type (
	// Status is a snapshot of one server (Hub.Status).
	Status = upstream.Status
	// State is a server's connection state.
	State = upstream.State
	// Event tells Hub.Subscribe's callbacks that a server changed state or lists.
	Event = upstream.Event
	// ServerLog is a server's log (Hub.Log), kept across its restarts.
	ServerLog = upstream.Log
	// LogEntry is one entry of a ServerLog.
	LogEntry = upstream.LogEntry
)

// The states of a server (docs/architecture.md, "Connection lifecycle").
const (
	Disabled     = upstream.Disabled
	Connecting   = upstream.Connecting
	Ready        = upstream.Ready
	Reconnecting = upstream.Reconnecting
	Failed       = upstream.Failed
	NeedsSignIn  = upstream.NeedsSignIn
	Closed       = upstream.Closed
)

// DefaultLogEntries is how many entries a server's log keeps.
const DefaultLogEntries = upstream.DefaultLogEntries

// WireStatus is st as the HTTP API writes it (GET /v1/servers) and as a program
// renders it: every field of the supervisor's status, under apiwire's types.
func WireStatus(st Status) apiwire.ServerStatus {
	return apiwire.ServerStatus{
		Name: st.Name, State: apiwire.State(st.State), Transport: string(st.Transport),
		Tools: st.Tools, Resources: st.Resources, Templates: st.Templates, Prompts: st.Prompts,
		Since: st.Since, Restarts: st.Restarts, LastError: st.LastError, Stderr: st.Stderr,
		Protocol: st.Protocol, ServerName: st.ServerName, ServerVersion: st.ServerVersion,
		PerUser: st.PerUser, People: st.People,
	}
}
