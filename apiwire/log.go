package apiwire

import "time"

// ServerLog is the answer of GET /v1/servers/{name}/log without follow: Last is the
// newest entry's sequence number (since=Last asks for what comes next), Missed counts
// the entries after since that are not in the answer.
type ServerLog struct {
	Server  string     `json:"server"`
	Entries []LogEntry `json:"entries"`
	Last    uint64     `json:"last"`
	Missed  uint64     `json:"missed"`
}

// LogEntry is one entry of a server's log, and the data of a followed log's "log"
// event.
type LogEntry struct {
	// Seq numbers the entries of one log from 1, without gaps.
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	// Kind is "stderr" (a stdio server's line), "state" (a change of state),
	// "notice" (a failed connection attempt, …) or "mcp" (a log message it sent).
	Kind string `json:"kind"`
	Text string `json:"text"`
	// State and From: a state entry's state entered and left.
	State State `json:"state,omitempty"`
	From  State `json:"from,omitempty"`
	// Level is an MCP log message's level ("info", "error", ...).
	Level string `json:"level,omitempty"`
}
