package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
)

// The whole service of a config in a Go program: its servers, the HTTP API with the
// dashboard, and the MCP gateway at /mcp, on one listener. (Sessions in memory here,
// so that the example writes nothing; a config with no servers, so that it needs
// none.)
func Example() {
	cfg, err := config.Parse([]byte(`{"mcpServers": {}, "switchboard": {"sessions": {"store": "memory"}}}`), "mcp.json", nil)
	if err != nil {
		log.Fatal(err) // every problem, each with file:line:col
	}
	ctx := context.Background()
	h := host.New(cfg, nil)
	defer h.Close() // every server stopped, every child process gone
	// the servers are told every capability the gateway forwards
	if err := h.StartShared(ctx); err != nil {
		log.Fatal(err)
	}
	srv, err := h.API(ctx, nil) // no model configured: chat answers 503, the rest works
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Shutdown(ctx)

	res, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	var health struct{ Status string }
	if err := json.NewDecoder(res.Body).Decode(&health); err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.StatusCode, health.Status)
	// Output: 200 alive
}
