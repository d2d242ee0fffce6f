package api

import (
	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Catalog is tools as GET /v1/tools and `switchboard tools` print them: in provider
// p's wire format (format.Tools; strict applies OpenAI's strict mode), or for an
// empty p the apiwire.ToolInfo list. Both print this one value (the CLI through
// Host.ToolCatalog), so they agree byte for byte.
func Catalog(tools []tool.Tool, p format.Provider, strict bool) (any, error) {
	if p == "" {
		out := make([]apiwire.ToolInfo, 0, len(tools))
		for _, t := range tools {
			out = append(out, apiwire.ToolInfo{Name: t.Name, Server: t.Server, OriginalName: t.OriginalName,
				Description: t.Description, InputSchema: t.InputSchema})
		}
		return out, nil
	}
	return format.Tools(p, tools, &format.Options{Strict: strict})
}
