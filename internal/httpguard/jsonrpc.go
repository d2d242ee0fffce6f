package httpguard

import (
	"encoding/json"
	"net/http"
)

// JSONRPCServerError is the JSON-RPC error code of a request refused by the HTTP
// layer (no token, a cross-site request, a Host of a rebinding attack): -32000, the
// first of the range JSON-RPC 2.0 leaves to servers, as the MCP TypeScript SDK
// answers its own transport refusals.
const JSONRPCServerError = -32000

// JSONRPCError answers an MCP client's HTTP request with status and a JSON-RPC error
// response that has no id (a null one, as JSON-RPC 2.0 §5 has it for a request it
// could not identify). The Streamable HTTP transport says so for a refused Origin
// ("servers MUST respond with HTTP 403 Forbidden. The HTTP response body MAY comprise
// a JSON-RPC error response that has no id", 2025-11-25, "Security Warning") and for
// any message the server does not accept ("Sending Messages to the Server"). The
// TypeScript SDK's client quotes the body in its error; the Go SDK's reads only
// errors that carry the request's id, and reports the status ("Unauthorized") here,
// as it did for a text body: the body is not read to find the id, so that a refused
// request is answered before its body arrives.
func JSONRPCError(w http.ResponseWriter, status int, message string) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": JSONRPCServerError, "message": message},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
