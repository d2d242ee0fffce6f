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

// DefaultProtocolVersion is the protocol version upstream connections ask for. It is
// the last version with sessions: servers may send requests to their client
// (sampling, elicitation, roots), take logging/setLevel and resource subscriptions.
// The 2026-07-28 era forbids a server to send those requests on its own, so a
// gateway could not forward them to clients of the versions in use today.
const DefaultProtocolVersion = "2025-11-25"

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
