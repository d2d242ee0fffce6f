// Package httpx is what the HTTP API (package api) and its provider-compatible
// endpoints (package api/compat) share, so that neither imports the other's
// internals: errors in apiwire's form and the JSON a handler writes (WriteJSON), a
// request body read within its limit (DecodeBody), the logger of a request and the
// person who makes it (the request's context), the sessions a person may see
// (OwnedSession), a failed turn's status (TurnError), and the one writer of
// server-sent events (SSEWriter), which follows a conversation's turn.
package httpx
