// Command switchboard connects LLM agents to many MCP servers at once: it loads an
// mcp.json, supervises every server, and serves their tools as one catalog.
//
// Exit codes: 0 ok, 1 the operation failed (for example a tool returned an error),
// 2 usage or configuration error, 128+N a chat turn cut short by signal N (130 for
// Ctrl-C).
package main

import (
	"context"
	"os"
	"runtime/debug"
	"syscall"
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	ctx, stop := notifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
