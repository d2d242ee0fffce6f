package apiwire

import "encoding/json"

// ToolInfo is one tool as GET /v1/tools lists it without a format, and as
// `switchboard tools --json` prints it.
type ToolInfo struct {
	Name         string          `json:"name"`
	Server       string          `json:"server"`
	OriginalName string          `json:"originalName"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
}

// SearchResults is the answer of GET /v1/search, best first.
type SearchResults struct {
	Results []SearchResult `json:"results"`
}

// SearchResult is one tool a search found.
type SearchResult struct {
	Name         string  `json:"name"`
	Server       string  `json:"server"`
	OriginalName string  `json:"originalName"`
	Description  string  `json:"description"`
	Score        float64 `json:"score"`
}

// CallResult is the answer of POST /v1/tools/{name}/call: the result's text as a
// model gets it, and the MCP result's own parts as MCP encodes them (content blocks,
// structured content). A tool's own failure is IsError, with status 200.
type CallResult struct {
	Text              string `json:"text"`
	Content           any    `json:"content"`
	StructuredContent any    `json:"structuredContent,omitempty"`
	IsError           bool   `json:"isError"`
}
