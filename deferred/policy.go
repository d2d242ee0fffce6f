package deferred

import (
	"github.com/switchboard-mcp/switchboard/search"
	"github.com/switchboard-mcp/switchboard/tool"
)

// The names of the tools a deferred view offers in place of the catalog.
const (
	SearchToolName = "tool_search"       // ranked search in words
	RegexToolName  = "tool_search_regex" // regular expression over names, descriptions, parameters
	CallToolName   = "tool_call"         // call any catalog tool by name (Policy.CallTool)
)

// Defaults of a Policy's zero values (and of the config's "deferred" settings).
const (
	// DefaultThreshold is the catalog size from which Auto defers. From Logicore.
	DefaultThreshold = 15
	// DefaultContextWindow is the context window, in tokens, that Policy.Share is a
	// share of when Policy.ContextWindow is 0 ("auto:N%" without
	// "model.contextWindow"): that of the common 128k models.
	DefaultContextWindow = 128_000
)

// Mode says when a View shows the search tools instead of the catalog.
type Mode int

const (
	// Auto defers a large catalog: Policy.Threshold tools or more, or, with a
	// Policy.Share, definitions larger than that share of the context window.
	Auto Mode = iota
	// Always defers whatever the catalog's size.
	Always
	// Never shows the whole catalog: a View is then the catalog itself.
	Never
)

// Policy configures a catalog in deferred mode (Views). The zero value is Auto from DefaultThreshold
// tools, nothing pinned, no tool_call.
type Policy struct {
	Mode Mode
	// Threshold is Auto's tool count; 0 means DefaultThreshold.
	Threshold int
	// Share, when above 0, makes Auto defer when the definitions' estimated tokens
	// (their JSON size over four) exceed this share of ContextWindow, whatever the
	// count.
	Share float64
	// ContextWindow is the model's context window in tokens; 0 means
	// DefaultContextWindow.
	ContextWindow int
	// Pinned reports the tools that are always shown; nil pins none.
	Pinned func(tool.Tool) bool
	// CallTool adds tool_call(name, arguments), which calls any catalog tool by its
	// exposed name: for MCP clients that never re-list their tools after a search.
	CallTool bool
	// Embeddings, when set, ranks tool_search (not tool_search_regex) by meaning as
	// well as words; when its endpoint fails, the words alone answer.
	Embeddings *search.Embeddings
}
