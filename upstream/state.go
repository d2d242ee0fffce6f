package upstream

import (
	"time"

	"github.com/switchboard-mcp/switchboard/config"
)

// State is where a server is in its lifecycle (docs/architecture.md, "Connection lifecycle").
type State string

const (
	Disabled     State = "disabled"      // configured off; never started
	Connecting   State = "connecting"    // first connection attempts
	Ready        State = "ready"         // connected, tools listed
	Reconnecting State = "reconnecting"  // lost the connection; attempts under way
	Failed       State = "failed"        // attempts exhausted; retried slowly
	NeedsSignIn  State = "needs_sign_in" // the server wants an OAuth sign-in that only a person can make
	Closed       State = "closed"        // shut down for good
)

// Status is a snapshot of one server for status displays.
type Status struct {
	Name      string           `json:"name"`
	State     State            `json:"state"`
	Transport config.Transport `json:"transport"`
	Tools     int              `json:"tools"`
	Resources int              `json:"resources,omitempty"`
	Templates int              `json:"resourceTemplates,omitempty"`
	Prompts   int              `json:"prompts,omitempty"`
	Since     time.Time        `json:"since"`
	Restarts  int              `json:"restarts"`
	LastError string           `json:"error,omitempty"`
	// Stderr is the tail (last 100 lines) of a stdio server's stderr.
	Stderr []string `json:"stderr,omitempty"`
	// Protocol is the negotiated MCP protocol version; ServerName and ServerVersion
	// come from the server's implementation info.
	Protocol      string `json:"protocol,omitempty"`
	ServerName    string `json:"serverName,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	// PerUser: each person signs in to the server for themselves (its "oauth" says
	// "perUser"), and their calls go over connections of their own, of which People
	// are open now (a hub fills both in; State is the service's own connection's).
	PerUser bool `json:"perUser,omitempty"`
	People  int  `json:"people,omitempty"`
}

// Event tells subscribers that a server changed state or changed its tools.
type Event struct {
	Server string
	State  State
	// Reason says why the state changed (an error, "heartbeat missed", ...).
	Reason string
	// ToolsChanged is set when the server's tool list was (re)listed: on entering
	// Ready and after tools/list_changed.
	ToolsChanged bool
	// ResourcesChanged and PromptsChanged are set when those lists were re-listed
	// after a list_changed notification (entering Ready lists everything, and says
	// so with ToolsChanged alone).
	ResourcesChanged, PromptsChanged bool
}
