// Package httpguard holds what both of Switchboard's HTTP servers (package api's
// service and the gateway's own listener) put in front of their handlers, so that one
// rule holds for both: the bearer token check, the refusal of a request whose body
// was never read, the deadlines of a connection, and the JSON-RPC error body an MCP
// client reads.
package httpguard
