package apiwire_test

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/apiwire"
)

// A client decides on an error's code, never on its message.
func ExampleErrorBody() {
	data := []byte(`{"error": {"code": "unknown_tool", "message": "unknown tool \"get_tme\"", "suggestions": ["get_time"]}}`)
	var body apiwire.ErrorBody
	if err := json.Unmarshal(data, &body); err != nil {
		panic(err)
	}
	if body.Error.Code == apiwire.CodeUnknownTool {
		fmt.Println("did you mean", body.Error.Suggestions[0])
	}
	// Output: did you mean get_time
}

// The servers of GET /v1/servers, and why those that are not ready are not.
func ExampleServers() {
	data := []byte(`{"servers": [
	  {"name": "clock", "state": "ready", "transport": "stdio", "tools": 3, "since": "2026-01-02T03:04:05Z", "restarts": 0},
	  {"name": "github", "state": "needs_sign_in", "transport": "http", "tools": 0, "since": "2026-01-02T03:04:05Z", "restarts": 0,
	   "reason": "the server wants a sign-in"}
	]}`)
	var body apiwire.Servers
	if err := json.Unmarshal(data, &body); err != nil {
		panic(err)
	}
	for _, s := range body.Servers {
		if s.State != apiwire.Ready {
			fmt.Printf("%s is %s: %s\n", s.Name, s.State, s.Reason)
		}
	}
	// Output: github is needs_sign_in: the server wants a sign-in
}
