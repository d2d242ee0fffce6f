package tool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LocalServer is the Server of tools implemented in Go inside this process.
const LocalServer = "local"

// Result is the outcome of one tool call: MCP content blocks, optional structured
// content, and IsError. It is the MCP SDK's type, so results pass through the hub and
// the gateway without conversion.
type Result = mcp.CallToolResult

// Tool describes one tool in a catalog.
type Tool struct {
	// Name is the exposed name: unique in its catalog and valid for every model provider
	// (it matches [NamePattern]).
	Name string `json:"name"`
	// OriginalName is the name the owning server uses.
	OriginalName string `json:"originalName"`
	// Server names the owner: a configured server, or LocalServer.
	Server      string `json:"server"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is a JSON Schema object ({"type": "object", ...}).
	InputSchema  json.RawMessage      `json:"inputSchema"`
	OutputSchema json.RawMessage      `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

// MCP returns the tool's MCP definition under its exposed name, as a gateway lists
// it: name, title, description and annotations as they are, the input schema made
// an object schema by [CleanSchema] (MCP requires one, and the MCP SDK's
// Server.AddTool panics without it), and the output schema passed through when it is
// an object schema. The MCP specification (2025-11-25) requires "type": "object" of
// an output schema, so one that is not an object schema (or not valid JSON) is left
// out. The schemas may share memory with t.
func (t Tool) MCP() *mcp.Tool {
	mt := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: CleanSchema(t.InputSchema),
		Annotations: t.Annotations,
	}
	if isObjectSchema(t.OutputSchema) {
		mt.OutputSchema = t.OutputSchema
	}
	return mt
}

// isObjectSchema reports whether raw is a JSON object with "type": "object".
func isObjectSchema(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && string(m["type"]) == `"object"`
}

// Toolset is a set of tools that can be listed and called. Local tools, the hub,
// filters, prefixes and unions are all Toolsets.
type Toolset interface {
	// Tools returns the current snapshot. Callers must not modify it.
	Tools() []Tool
	// Call runs the named tool. Tool-level failures (unknown tool, dead server,
	// timeout, a server-side error) come back as a Result with IsError set and a
	// message the model can act on; a Go error means the toolset itself cannot serve
	// (it is closed).
	Call(ctx context.Context, name string, args json.RawMessage) (*Result, error)
	// Changed returns a channel that is closed the next time the snapshot changes.
	Changed() <-chan struct{}
}

// ErrorResult builds an error result with one text block.
func ErrorResult(format string, args ...any) *Result {
	return &Result{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}},
	}
}

// TextResult builds a successful result with one text block.
func TextResult(text string) *Result {
	return &Result{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

type metaKey struct{}

// WithMeta returns ctx carrying an MCP request's _meta (a progress token, say) for
// the calls made with it: a toolset that forwards calls to an MCP server sends it
// along. A gateway uses it to pass its client's _meta through any toolset.
func WithMeta(ctx context.Context, meta mcp.Meta) context.Context {
	return context.WithValue(ctx, metaKey{}, meta)
}

// MetaFromContext returns the _meta set by WithMeta, or nil.
func MetaFromContext(ctx context.Context) mcp.Meta {
	m, _ := ctx.Value(metaKey{}).(mcp.Meta)
	return m
}

// RefusalAuditor is a toolset that audits the calls refused before they reach it
// (a hub: hub.Hub.AuditRefused): a view that hides some of its tools (a caller's
// profiles) tells it of each call it refuses, so that the audit has every call.
type RefusalAuditor interface {
	AuditRefused(ctx context.Context, name string, args json.RawMessage)
}

// AuditRefused tells ts of a call refused before it reached it, when ts audits
// them (RefusalAuditor).
func AuditRefused(ctx context.Context, ts Toolset, name string, args json.RawMessage) {
	if au, ok := ts.(RefusalAuditor); ok {
		au.AuditRefused(ctx, name, args)
	}
}
