package main

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// metaOut is what the tool meta answers: what the client sent along with the call.
type metaOut struct {
	// Meta is the request's params._meta (the trace context's "traceparent" among
	// its keys, from a client that propagates it).
	Meta map[string]any `json:"meta"`
	// Traceparent is the HTTP request's traceparent header (Streamable HTTP, SSE).
	Traceparent string `json:"traceparent,omitempty"`
}

// registerMetaTool adds meta: a tool that reports the _meta of its call, so that
// tests see what a client propagates to the servers.
func registerMetaTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "meta", Description: "answer with the call's params._meta and, over HTTP, its traceparent header, as JSON"},
		func(_ context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			out := metaOut{Meta: req.Params.Meta}
			if req.Extra != nil && req.Extra.Header != nil {
				out.Traceparent = req.Extra.Header.Get("traceparent")
			}
			b, err := json.Marshal(out)
			if err != nil {
				return nil, nil, err
			}
			return text(string(b)), nil, nil
		})
}
