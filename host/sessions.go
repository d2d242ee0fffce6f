package host

import (
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

// What a program lists, shows and reports of the stored conversations (the
// sessions of Options.Sessions) and of a turn (its usage, a model's error), named
// here so that it imports neither session nor llm. The types are aliases: the same
// values, and the same JSON as GET /v1/sessions writes.

// Session is a stored conversation (session.Session).
type Session = session.Session

// SessionSummary is a session as a listing shows it (session.Summary).
type SessionSummary = session.Summary

// SessionStore keeps the sessions (session.Store).
type SessionStore = session.Store

// The errors of a SessionStore: no such session, and one a turn holds now.
var (
	ErrSessionNotFound = session.ErrNotFound
	ErrSessionBusy     = session.ErrBusy
)

// CheckSessionID reports an id that no store takes (session.CheckID).
func CheckSessionID(id string) error { return session.CheckID(id) }

// Usage is the tokens a model step or turn used (llm.Usage).
type Usage = llm.Usage

// ModelError is a model provider's refusal, with its status (llm.Error).
type ModelError = llm.Error

// RoleTool is the role of a tool's answer in a session's messages (llm.RoleTool).
const RoleTool = llm.RoleTool
