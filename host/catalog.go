package host

import (
	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/tool"
)

// FormatTools is tools as `switchboard tools` prints them and GET /v1/tools answers:
// in provider p's wire format (strict: OpenAI's strict mode), or for an empty p the
// list of apiwire.ToolInfo. It is the API's own [api.Catalog], so that a command run
// here and the same command asking a running service print the same bytes.
func FormatTools(tools []tool.Tool, p format.Provider, strict bool) (any, error) {
	return api.Catalog(tools, p, strict)
}
