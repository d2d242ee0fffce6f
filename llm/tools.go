package llm

import (
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/tool"
)

// Definitions are a backend's tool definitions in its provider's format: every tool
// the provider can take (format.Usable). A tool it cannot take (a schema it refuses)
// is left out rather than failing the request — one server's odd tool must not stop
// every turn — and said once per backend through log, at warn level.
type Definitions struct {
	Provider format.Provider
	warned   sync.Map // tool name → struct{}
}

// Of returns the definitions of tools; log may be nil.
func (d *Definitions) Of(tools []tool.Tool, log *slog.Logger) []json.RawMessage {
	defs, left := format.Usable(d.Provider, tools, nil)
	for _, e := range left {
		if _, seen := d.warned.LoadOrStore(e.Tool, struct{}{}); !seen && log != nil {
			log.Warn("tool left out of model requests: "+e.Reason, "tool", e.Tool, "provider", string(d.Provider))
		}
	}
	return defs
}

// Parse reads the call as format reads every provider's calls (format.ParseCall),
// one reader for every backend: Args is the arguments object to run the tool with,
// or Err says why the call cannot run as sent, in words for the model (ErrorResult
// is the answer to send back). Arguments stays the text as the model sent it, which
// format.CallItem and format.CallMessage write back into the next request.
func (c Call) Parse() format.Call { return format.ParseCall(c.ID, c.Name, c.Arguments) }
