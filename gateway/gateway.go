// Package gateway exposes any tool.Toolset — normally the hub — as one MCP server, so
// that Claude Code, Codex, IDEs and any other MCP client use every configured server
// through one entry, with the same names and filters that native agents see.
//
//	gw := gateway.New(h, nil)  // h: a started *hub.Hub, or any tool.Toolset
//	defer gw.Close()
//	err := gw.ServeStdio(ctx) // or: http.Handle("/", gw.Handler(nil))
//
// The served catalog follows the toolset: when it changes (a server joins,
// reconnects, sends tools/list_changed), clients get notifications/tools/list_changed.
package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/tool"
)

// Options configure a Gateway; nil means defaults.
type Options struct {
	// Name and Version identify the gateway to its clients (default "switchboard").
	Name, Version string
	// Instructions are sent to clients that initialize.
	Instructions string
	Logger       *slog.Logger
}

// Gateway is one MCP server whose tools are a toolset's.
type Gateway struct {
	ts     tool.Toolset
	server *mcp.Server
	log    *slog.Logger

	mu     sync.Mutex
	served map[string]tool.Tool // what the MCP server lists now

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// New builds a gateway for ts and starts following its changes; Close stops that.
func New(ts tool.Toolset, opts *Options) *Gateway {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = "switchboard"
	}
	if o.Version == "" {
		o.Version = "0.1.0"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	g := &Gateway{
		ts:     ts,
		log:    o.Logger,
		served: map[string]tool.Tool{},
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	g.server = mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, &mcp.ServerOptions{
		Instructions: o.Instructions,
		// The catalog is dynamic: advertise tools (with listChanged) even while empty.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	changed := ts.Changed() // taken before the first sync, so no change is missed
	g.sync()
	go g.follow(changed)
	return g
}

// Server is the underlying MCP server, for callers that serve it on their own transport.
func (g *Gateway) Server() *mcp.Server { return g.server }

// Close stops following the toolset. It does not close the toolset.
func (g *Gateway) Close() error {
	g.once.Do(func() {
		close(g.stop)
		<-g.done
	})
	return nil
}

func (g *Gateway) follow(changed <-chan struct{}) {
	defer close(g.done)
	for {
		select {
		case <-g.stop:
			return
		case <-changed:
			changed = g.ts.Changed()
			g.sync()
		}
	}
}

// sync makes the served tools equal to the toolset's. The SDK sends
// notifications/tools/list_changed to connected clients for every change.
func (g *Gateway) sync() {
	g.mu.Lock()
	defer g.mu.Unlock()
	want := map[string]tool.Tool{}
	for _, t := range g.ts.Tools() {
		want[t.Name] = t
	}
	var gone []string
	for name := range g.served {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		g.server.RemoveTools(gone...)
	}
	added := 0
	for name, t := range want {
		if old, ok := g.served[name]; ok && sameTool(old, t) {
			continue
		}
		g.server.AddTool(mcpTool(t), g.handler(name))
		added++
	}
	g.served = want
	if len(gone)+added > 0 {
		g.log.Debug("gateway catalog updated", "tools", len(want), "added_or_changed", added, "removed", len(gone))
	}
}

func sameTool(a, b tool.Tool) bool {
	return a.Description == b.Description && a.Title == b.Title &&
		bytes.Equal(a.InputSchema, b.InputSchema) && bytes.Equal(a.OutputSchema, b.OutputSchema) &&
		annotationsEqual(a.Annotations, b.Annotations)
}

func annotationsEqual(a, b *mcp.ToolAnnotations) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// mcpTool is the MCP definition of a catalog tool under its exposed name. The input
// schema is an object schema (the catalog cleans it), which Server.AddTool requires.
func mcpTool(t tool.Tool) *mcp.Tool {
	mt := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: tool.CleanSchema(t.InputSchema),
		Annotations: t.Annotations,
	}
	if len(t.OutputSchema) > 0 {
		mt.OutputSchema = t.OutputSchema
	}
	return mt
}

// handler forwards one call to the toolset. Failures are error results, as the
// toolset makes them; a closed toolset is a JSON-RPC error.
func (g *Gateway) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		return g.ts.Call(ctx, name, args)
	}
}

// ServeStdio serves the gateway on stdin/stdout until the client disconnects or ctx
// ends.
func (g *Gateway) ServeStdio(ctx context.Context) error {
	err := g.server.Run(ctx, &mcp.StdioTransport{})
	if ctx.Err() != nil {
		return nil
	}
	return err
}
