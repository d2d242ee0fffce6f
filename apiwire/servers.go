package apiwire

import "time"

// State is a server's connection state, as the API reports it.
type State string

// The states a server is in (docs/architecture.md, "Connection lifecycle").
const (
	Disabled     State = "disabled"      // configured off; never started
	Connecting   State = "connecting"    // first connection attempts
	Ready        State = "ready"         // connected, tools listed
	Reconnecting State = "reconnecting"  // lost the connection; attempts under way
	Failed       State = "failed"        // attempts exhausted; retried slowly
	NeedsSignIn  State = "needs_sign_in" // the server wants an OAuth sign-in that only a person can make
	Closed       State = "closed"        // shut down for good, or gone from the config
)

// ServerStatus is a snapshot of one server's connection.
type ServerStatus struct {
	Name  string `json:"name"`
	State State  `json:"state"`
	// Transport is "stdio", "http" or "sse".
	Transport string `json:"transport"`
	Tools     int    `json:"tools"`
	Resources int    `json:"resources,omitempty"`
	Templates int    `json:"resourceTemplates,omitempty"`
	Prompts   int    `json:"prompts,omitempty"`
	// Since is when the server entered State.
	Since time.Time `json:"since"`
	// Restarts counts the connections it lost and made again.
	Restarts  int    `json:"restarts"`
	LastError string `json:"error,omitempty"`
	// Stderr is the tail (last 100 lines) of a stdio server's stderr; left out for
	// all but admins when the service knows people.
	Stderr []string `json:"stderr,omitempty"`
	// Protocol is the negotiated MCP protocol version; ServerName and ServerVersion
	// come from the server's implementation info.
	Protocol      string `json:"protocol,omitempty"`
	ServerName    string `json:"serverName,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	// PerUser: each person signs in to the server for themselves, and their calls go
	// over connections of their own, of which People are open now (State is the
	// service's own connection's).
	PerUser bool `json:"perUser,omitempty"`
	People  int  `json:"people,omitempty"`
}

// Server is one server as GET /v1/servers and GET /v1/servers/{name} show it: its
// status, why it is not ready, and whether the service needs it.
type Server struct {
	ServerStatus
	Reason   string `json:"reason,omitempty"`
	Required bool   `json:"required,omitempty"`
	// RecentRestarts counts the connections it lost within the last five minutes;
	// Flapping says they are three or more, until FlappingUntil unless it loses
	// another.
	RecentRestarts int        `json:"recentRestarts,omitempty"`
	Flapping       bool       `json:"flapping,omitempty"`
	FlappingUntil  *time.Time `json:"flappingUntil,omitempty"`
	// SignIn is a sign-in through the API waiting for the person, or the last that
	// failed.
	SignIn *SignIn `json:"signIn,omitempty"`
	// SignedIn says, to a person, whether they have signed in to a "perUser" server
	// for themselves; absent for other servers and without a person.
	SignedIn *bool `json:"signedIn,omitempty"`
}

// Servers is the answer of GET /v1/servers.
type Servers struct {
	Servers []Server `json:"servers"`
}

// ServerEvent is the data of a "server" event of GET /v1/events: the server as GET
// /v1/servers/{name} shows it, in the state the event reported, and why it changed.
type ServerEvent struct {
	Server
	// Change says why the state changed (an error, "process exited", …).
	Change       string `json:"change,omitempty"`
	ToolsChanged bool   `json:"toolsChanged,omitempty"`
	// ResourcesChanged and PromptsChanged: the server re-listed its resources or
	// prompts after it said they changed (a server entering ready says toolsChanged
	// alone, for every list).
	ResourcesChanged bool `json:"resourcesChanged,omitempty"`
	PromptsChanged   bool `json:"promptsChanged,omitempty"`
}

// SignIn is a sign-in through the API: one waiting for the person, or the last that
// failed (until the next begins, or the server is ready).
type SignIn struct {
	// State is "waiting" (for the person at the authorization server) or "failed".
	State string    `json:"state"`
	Since time.Time `json:"since"`
	// Error says why it failed.
	Error string `json:"error,omitempty"`
}

// Health is the answer of GET /health: "status" is "ok" when every enabled server is
// ready and the store answers, else "degraded".
type Health struct {
	MCPTools int                     `json:"mcp_tools"`
	Servers  map[string]ServerHealth `json:"servers"`
	Status   string                  `json:"status"`
	// Store is "ok" or "error"; absent when the service keeps no sessions.
	Store   string `json:"store,omitempty"`
	Version string `json:"version"`
}

// ServerHealth is one server in [Health]; Error (why it is not ready) only to a
// caller who may call tools.
type ServerHealth struct {
	State State  `json:"state"`
	Tools int    `json:"tools"`
	Error string `json:"error,omitempty"`
}

// Probe is the answer of the probes GET /healthz ("alive") and GET /readyz ("ready",
// or "not ready" with the required servers it waits for and the store's error).
type Probe struct {
	Status  string   `json:"status"`
	Store   string   `json:"store,omitempty"`
	Waiting []string `json:"waiting,omitempty"`
}
