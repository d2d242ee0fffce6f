package upstream

import "time"

// Defaults of a server's unset timeouts and of Options' zero values (and so of the
// config's "timeout", "toolTimeout", "heartbeat" and "retryFailed" when unset). Each
// says where it comes from: the systems Switchboard replaces, or Switchboard's own.
const (
	// DefaultInitTimeout bounds one connection attempt: the handshake and the first
	// lists (per server: "timeout"). From Logicore and Codex.
	DefaultInitTimeout = 10 * time.Second
	// DefaultToolTimeout bounds one tool call (per server: "toolTimeout"). From Codex
	// and the TypeScript MCP SDK.
	DefaultToolTimeout = 60 * time.Second

	// DefaultAttempts is how many connection attempts in a row fail before a server is
	// marked failed. From persona_agent, Agentical and LibreChat.
	DefaultAttempts = 3
	// DefaultBackoffBase and DefaultBackoffMax bound the exponential backoff between
	// attempts (1 s, 2 s, 4 s … 30 s). From the same three.
	DefaultBackoffBase = time.Second
	DefaultBackoffMax  = 30 * time.Second
	// DefaultRetryFailed is how often a failed server is tried again ("retryFailed").
	// Switchboard's own: a slow retry, slower than the backoff's cap.
	DefaultRetryFailed = 60 * time.Second

	// DefaultHeartbeat is the health-check interval ("heartbeat"), and
	// DefaultHeartbeatMisses how many probes in a row may fail before reconnecting.
	// From Agentical (which never actually pinged).
	DefaultHeartbeat       = 30 * time.Second
	DefaultHeartbeatMisses = 2

	// DefaultStopGrace bounds each wait of a stdio shutdown (after closing stdin, after
	// SIGTERM). As the MCP Python SDK's stdio client (PROCESS_TERMINATION_TIMEOUT). A
	// server that never completed initialize gets a fifth of a second after its stdin
	// closes, not this, before SIGTERM: it has no session to wind down.
	DefaultStopGrace = 2 * time.Second
	// DefaultListChangedDebounce coalesces a burst of list_changed notifications into
	// one re-listing. Switchboard's own.
	DefaultListChangedDebounce = 100 * time.Millisecond
)

// DefaultProtocolVersion is the protocol version upstream connections ask for: the
// newest, 2026-07-28, which the SDK asks with server/discover; a server of an older
// version answers that with an error, and the SDK falls back to initialize with
// 2025-11-25, which the server negotiates down as before (SEP-2575). In 2026-07-28 a
// server asks its client things (sampling, elicitation, roots) only as the input
// requests of a result, which mrtr_servers.go answers through the Peer, and never
// on its own: a server that negotiates it but still sends requests in the middle of a
// call (a Go SDK server written for 2025-11-25) has them refused by its own SDK. Such
// a server is pinned to 2025-11-25 with its config's ProtocolVersion
// ("protocolVersion"), which wins over Options.ProtocolVersion.
const DefaultProtocolVersion = "2026-07-28"

// InitTimeout bounds one connection attempt to the server: its config's InitTimeout
// ("timeout"), or [DefaultInitTimeout] when unset.
func (s *Supervisor) InitTimeout() time.Duration {
	if s.cfg.InitTimeout <= 0 {
		return DefaultInitTimeout
	}
	return s.cfg.InitTimeout
}

// ToolTimeout bounds one call to the server: its config's ToolTimeout
// ("toolTimeout"), or [DefaultToolTimeout] when unset.
func (s *Supervisor) ToolTimeout() time.Duration {
	if s.cfg.ToolTimeout <= 0 {
		return DefaultToolTimeout
	}
	return s.cfg.ToolTimeout
}
