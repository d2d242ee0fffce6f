package config

import "time"

// Defaults of every timing and count Switchboard uses when mcp.json, Settings or
// upstream.Options leave a value unset (zero). Each is declared here only: the
// config package is imported by every layer, and cannot import them back.
// The sources are DESIGN.md's "Defaults worth keeping" (the systems Switchboard
// replaces) unless the comment says otherwise.
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
	// Switchboard's own: DESIGN.md asks only for a slow retry, slower than the
	// backoff's cap.
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

	// DefaultMaxSteps is how many model requests with tools one agent turn makes
	// before a last one without tools for the final answer. From persona_agent.
	DefaultMaxSteps = 10
	// DefaultParallelTools bounds the tool calls of one step that run at once.
	// Switchboard's own: models rarely ask for more in one step.
	DefaultParallelTools = 8
	// DefaultSessionTimeout: a chat session idle this long is removed. From Logicore.
	DefaultSessionTimeout = time.Hour

	// DefaultServeAddr is where `switchboard serve` listens: loopback only, so that
	// nothing is exposed beyond the machine without a token. Switchboard's own.
	DefaultServeAddr = "127.0.0.1:7300"
	// DefaultShutdownGrace is how long `switchboard serve` lets requests and turns
	// under way finish after SIGINT or SIGTERM before it cancels them. Switchboard's own.
	DefaultShutdownGrace = 10 * time.Second
	// DefaultApprovalTimeout bounds how long a turn waits for a person to approve
	// (or refuse) a call over the HTTP API; past it the call is denied. Switchboard's own.
	DefaultApprovalTimeout = 5 * time.Minute

	// DefaultDeferredThreshold: from this many tools, "deferred": "auto" shows a model
	// the search tools instead of the catalog. From Logicore.
	DefaultDeferredThreshold = 15
	// DefaultContextWindow is the context window, in tokens, that "auto:N%" takes its
	// share of when "model.contextWindow" is not set: that of the common 128k models.
	DefaultContextWindow = 128_000
	// DefaultEmbeddingsWeight is the share of the embeddings' similarity in a search's
	// score when "weight" is not given; the lexical ranking has the rest.
	DefaultEmbeddingsWeight = 0.5
)

// DefaultProtocolVersion is the protocol version upstream connections ask for. It is
// the last version with sessions: servers may send requests to their client
// (sampling, elicitation, roots), take logging/setLevel and resource subscriptions.
// The 2026-07-28 era forbids a server to send those requests on its own, so a
// gateway could not forward them to clients of the versions in use today.
const DefaultProtocolVersion = "2025-11-25"
