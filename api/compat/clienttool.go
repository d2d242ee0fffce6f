package compat

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/tool"
)

// clientTool is a function that a request of an OpenAI-compatible endpoint declares
// (at where) and that the client runs itself: its name must be a tool's, and its
// parameters a JSON Schema object (none: no parameters).
func clientTool(where, name, description string, schema json.RawMessage) (tool.Tool, *apiError) {
	if !tool.NamePattern.MatchString(name) {
		return tool.Tool{}, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s: function name %q: want 1 to %d of a-z, A-Z, 0-9, _ and -", where, name, tool.MaxNameLen)
	}
	if t := bytes.TrimSpace(schema); len(t) == 0 || string(t) == "null" {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	} else if t[0] != '{' {
		return tool.Tool{}, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s: function parameters: want a JSON Schema object", where)
	}
	return tool.Tool{Name: name, OriginalName: name, Server: "client", Description: description, InputSchema: schema}, nil
}
