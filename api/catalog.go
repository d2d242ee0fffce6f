package api

import (
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/tool"
)

// ToolInfo is one tool as GET /v1/tools lists it without a format, and as
// `switchboard tools --json` prints it.
type ToolInfo struct {
	Name         string          `json:"name"`
	Server       string          `json:"server"`
	OriginalName string          `json:"originalName"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
}

// Catalog is tools as GET /v1/tools and `switchboard tools` print them: in provider
// p's wire format (format.Tools; strict applies OpenAI's strict mode), or for an
// empty p the ToolInfo list. Both print this one value, so they agree byte for byte.
func Catalog(tools []tool.Tool, p format.Provider, strict bool) (any, error) {
	if p == "" {
		out := make([]ToolInfo, 0, len(tools))
		for _, t := range tools {
			out = append(out, ToolInfo{t.Name, t.Server, t.OriginalName, t.Description, t.InputSchema})
		}
		return out, nil
	}
	return format.Tools(p, tools, &format.Options{Strict: strict})
}
