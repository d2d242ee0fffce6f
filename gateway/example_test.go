package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/tool"
)

// A toolset served as one MCP server over Streamable HTTP, and an MCP client (the
// official SDK's) that lists its tools and calls one. The toolset here is one Go
// function; in front of a started hub.Hub the same lines serve every configured
// server, prompts and resources included.
func Example() {
	tools := tool.NewLocal()
	type greetIn struct {
		Name string `json:"name" jsonschema:"who to greet"`
	}
	err := tool.Func(tools, "greet", "Greets someone by name.", func(_ context.Context, in greetIn) (string, error) {
		return "hello, " + in.Name, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	gw := gateway.New(tools, &gateway.Options{Logger: slog.New(slog.DiscardHandler)})
	defer gw.Close()
	// Loopback needs no token; any other address requires HTTPOptions.Token.
	bridge, err := gw.Listen("127.0.0.1:0", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bridge.Close()

	// Any MCP client will do: Claude Code, Codex, an IDE, or the Go SDK's.
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "example-client", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: bridge.URL()}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	list, err := session.ListTools(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range list.Tools {
		schema, _ := json.Marshal(t.InputSchema)
		fmt.Println(t.Name, "-", t.Description)
		fmt.Println(string(schema))
	}

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "switchboard"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// greet - Greets someone by name.
	// {"additionalProperties":false,"properties":{"name":{"description":"who to greet","type":"string"}},"required":["name"],"type":"object"}
	// false hello, switchboard
}
