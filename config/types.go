package config

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/tool"
)

// Transport names how Switchboard talks to one MCP server.
type Transport string

const (
	// Stdio runs the server as a child process and speaks JSON-RPC over its stdin/stdout.
	Stdio Transport = "stdio"
	// HTTP is the Streamable HTTP transport (config spellings "http", "streamable-http",
	// "streamable_http", "streamableHttp").
	HTTP Transport = "http"
	// SSE is the legacy HTTP+SSE transport.
	SSE Transport = "sse"
)

// ToolFilter selects which of a server's tools are exposed ("tools": allow and deny
// globs against the server's original tool names). It is [tool.ToolFilter]: the tool
// package applies it, and config, which imports tool, names it for its readers.
type ToolFilter = tool.ToolFilter

// Server is one configured MCP server, after shape detection, type inference and
// ${VAR} expansion. Zero durations mean "use the default".
type Server struct {
	// Name is the key under which the server appears in the config.
	Name      string    `json:"name"`
	Transport Transport `json:"type"`

	// stdio
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	// ProjectDir is the directory of the config's project (see [WorkspaceFolder]),
	// set by Load for a stdio server read from a file: the server runs there when Cwd
	// is empty, and a relative Cwd or command path is taken from there ([Server.WorkDir],
	// [Server.CommandPath]). "" means the host process's working directory.
	ProjectDir string `json:"projectDir,omitempty"`
	// InheritEnv: true passes the host's whole environment to the child (plus Env);
	// false passes only BaseEnv plus Env. Defaults to true.
	InheritEnv bool `json:"inheritEnv"`

	// http / sse
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// OAuth says how to sign in to the server ("oauth"); nil: a sign-in the server
	// asks for is discovered from its 401 (see [OAuth]).
	OAuth *OAuth `json:"oauth,omitempty"`
	// ForwardIdentity ("forwardIdentity": true; HTTP and SSE servers only) sends the
	// server, on each request made for a person's call, who that person is:
	// [HeaderUser], [HeaderGroups] and [HeaderEmail]. Headers of those names are
	// never sent from anywhere else (the entry's own headers are dropped).
	ForwardIdentity bool `json:"forwardIdentity,omitempty"`

	Disabled    bool   `json:"disabled,omitempty"`
	Description string `json:"description,omitempty"`

	// InitTimeout bounds one connection attempt (config key "timeout"; default
	// upstream.DefaultInitTimeout, 10 s).
	InitTimeout time.Duration `json:"timeout,omitempty"`
	// ToolTimeout bounds one tool call (config key "toolTimeout"; default
	// upstream.DefaultToolTimeout, 60 s).
	ToolTimeout time.Duration `json:"toolTimeout,omitempty"`
	// Heartbeat is the health-check interval (config key "heartbeat"); 0 in the file
	// disables it and is stored as -1 (a zero field means the settings' heartbeat, or
	// upstream.DefaultHeartbeat, 30 s).
	Heartbeat time.Duration `json:"heartbeat,omitempty"`

	Tools ToolFilter `json:"tools,omitempty"`
	// Prefix replaces the server name in prefixed exposed tool names.
	Prefix string `json:"prefix,omitempty"`
	// Required makes start-up fail when this server cannot connect.
	Required bool `json:"required,omitempty"`
	// Approve lists globs of the server's tools (original names) whose calls an
	// agent must have approved before they run ("approve": a list, "always" for
	// every tool, or "never", the default).
	Approve []string `json:"approve,omitempty"`
	// Sampling lets the server's sampling/createMessage requests be answered by the
	// configured model when no client answers them ("sampling": true; off by default,
	// since the server then spends the user's tokens).
	Sampling bool `json:"sampling,omitempty"`
	// Pinned lists globs of the server's tools (original names) that are always shown
	// in deferred mode ("pinned": a list, or true for every tool).
	Pinned []string `json:"pinned,omitempty"`
	// ProtocolVersion is the MCP version asked of the server ("protocolVersion"; one of
	// [ProtocolVersions]). Unset: the newest, 2026-07-28, with a fall back to the
	// older ones for a server that does not speak it (upstream.DefaultProtocolVersion).
	// "2025-11-25" keeps a server that negotiates 2026-07-28 but still sends its
	// client requests in the middle of a call on the version that allows them.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

// The headers of a server with ForwardIdentity: the subject of the person a request is
// made for, their groups (the provider's groups claim, comma-separated) and their
// email, when the token has one.
const (
	HeaderUser   = "X-Switchboard-User"
	HeaderGroups = "X-Switchboard-Groups"
	HeaderEmail  = "X-Switchboard-Email"
)

// IsIdentityHeader reports whether name is one of the headers of ForwardIdentity (in
// any case): only Switchboard sets them, from the person of a call.
func IsIdentityHeader(name string) bool {
	return strings.EqualFold(name, HeaderUser) || strings.EqualFold(name, HeaderGroups) || strings.EqualFold(name, HeaderEmail)
}

// ProtocolVersions are the MCP versions a server's "protocolVersion" may name, newest
// first: those the MCP Go SDK speaks.
var ProtocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Naming is the policy for deriving exposed tool names from (server, original name):
// [tool.Naming], which the tool package applies.
type Naming = tool.Naming

// The naming policies ("naming" in the "switchboard" object), as [tool.Naming]'s.
const (
	NamingAuto   = tool.NamingAuto   // prefix only names that collide (the default)
	NamingNever  = tool.NamingNever  // never prefix; a collision is a config error
	NamingAlways = tool.NamingAlways // prefix every tool as server__tool
)

// Settings is the top-level "switchboard" object: host settings. Keys this version does
// not know are kept in Extra (and reported as warnings) so later versions can add them.
type Settings struct {
	Naming Naming `json:"naming,omitempty"`
	// Heartbeat is the default health-check interval for every server (unset:
	// upstream.DefaultHeartbeat, 30 s).
	Heartbeat time.Duration `json:"heartbeat,omitempty"`
	// RetryFailed is how often failed servers are retried (unset:
	// upstream.DefaultRetryFailed, 60 s); 0 in the file disables it and is stored as -1.
	RetryFailed time.Duration `json:"retryFailed,omitempty"`
	// MaxArgumentDepth bounds how deep a tool call's arguments may nest objects and
	// arrays; a deeper call is refused before it reaches a server (unset:
	// [tool.DefaultMaxArgumentDepth]).
	MaxArgumentDepth int `json:"maxArgumentDepth,omitempty"`
	// Model, Agent and Sessions configure the agent (switchboard chat, serve).
	Model    ModelSettings   `json:"model,omitzero"`
	Agent    AgentSettings   `json:"agent,omitzero"`
	Sessions SessionSettings `json:"sessions,omitzero"`
	// Deferred says when models (the agent's, and the gateway's clients with
	// --deferred) see search tools instead of the catalog.
	Deferred DeferredSettings `json:"deferred,omitzero"`
	// Search configures tool search's ranking (an optional embeddings backend).
	Search SearchSettings `json:"search,omitzero"`
	// Serve configures switchboard serve for a team: who may call it (auth), what
	// each tool call's audit line carries, and each person's limits.
	Serve ServeSettings `json:"serve,omitzero"`
	// Profiles say who sees which servers and tools (see Profile), in file order;
	// none: everyone sees everything.
	Profiles []Profile `json:"profiles,omitempty"`
	// Extra holds keys of the "switchboard" object that this version does not interpret.
	Extra map[string]json.RawMessage `json:"-"`
}

// Config is a whole loaded configuration.
type Config struct {
	// Source names where the config came from (a file path, or a label such as "<bytes>").
	Source string `json:"source,omitempty"`
	// Shape is the detected layout: "mcpServers", "servers", "services" or "bare". A config
	// built in code names its own (the built-in demo is "demo").
	Shape string `json:"shape,omitempty"`
	// Servers in the order they appear in the source. Servers whose name starts with
	// "switchboard" are not included (see Skipped). Disabled servers are included.
	Servers  []Server `json:"servers"`
	Settings Settings `json:"switchboard"`
	// Skipped lists servers left out on purpose (the gateway itself), for info logs.
	Skipped []string `json:"skipped,omitempty"`
	// Warnings are non-fatal problems, each naming its place; never containing a value
	// of an env var, header or other secret.
	Warnings []string `json:"warnings,omitempty"`

	// substituted: secret values that ${VAR} expansion put into the config (see parser).
	substituted []string
}
