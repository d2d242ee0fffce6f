package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// init lets this test binary stand in for the switchboard binary in the examples:
// "TESTBINARY demo-server clock" serves the built-in demo clock over stdio, as
// "switchboard demo-server clock" does, and exits when the hub closes its stdin.
func init() {
	if len(os.Args) == 3 && os.Args[1] == "demo-server" {
		if err := demo.Run(context.Background(), os.Args[2], nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// A hub in front of one stdio server, the demo clock that the switchboard binary
// serves (`switchboard demo-server clock`): start it, list its tools, call one.
func Example() {
	switchboard, _ := os.Executable() // the examples' stand-in for the switchboard binary
	cfg, err := config.FromValue(map[string]any{
		"mcpServers": map[string]any{
			"clock": map[string]any{"command": switchboard, "args": []string{"demo-server", "clock"}},
		},
	}, nil)
	if err != nil {
		fmt.Println(err) // every problem at once, each naming its place
		return
	}

	h := hub.New(cfg, &hub.Options{Logger: slog.New(slog.DiscardHandler)})
	defer h.Close() // stops every server; no child process outlives it

	ctx := context.Background()
	// Start returns when every server is ready, failed, disabled or past its init
	// timeout (10 s by default); an error means a required server is missing.
	if err := h.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range h.Status() {
		fmt.Println(st.Name, st.State, st.Tools, "tools")
	}
	for _, t := range h.Tools() {
		fmt.Println(t.Name, "from", t.Server)
	}

	res, err := h.Call(ctx, "convert_time", json.RawMessage(`{"time":"2026-01-02T03:04:05Z","to":"Asia/Tokyo"}`))
	if err != nil {
		fmt.Println(err) // only when the hub is closed
		return
	}
	fmt.Println(tool.Text(res))

	// Failures are results the model can read and act on, not Go errors.
	res, _ = h.Call(ctx, "convert_tim", json.RawMessage(`{}`))
	fmt.Println(res.IsError, tool.Text(res))
	// Output:
	// clock ready 3 tools
	// add_duration from clock
	// convert_time from clock
	// current_time from clock
	// 2026-01-02T12:04:05+09:00 (Asia/Tokyo, Friday)
	// true unknown tool "convert_tim" (did you mean convert_time?)
}

// Reload applies a new config by difference: the server that did not change keeps
// running, the new one starts and joins the catalog when it is ready. Two servers
// now offer the same tools: under the default naming policy ("auto") the running
// server keeps its names, which clients may hold, and the newcomer's colliding tools
// take its name as a prefix. (A fresh start with both would prefix both.)
func ExampleHub_Reload() {
	switchboard, _ := os.Executable() // the examples' stand-in for the switchboard binary
	clock := map[string]any{"command": switchboard, "args": []string{"demo-server", "clock"}}
	cfg, _ := config.FromValue(map[string]any{"mcpServers": map[string]any{"clock": clock}}, nil)

	h := hub.New(cfg, &hub.Options{Logger: slog.New(slog.DiscardHandler)})
	defer h.Close()
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	before := h.Status()[0]

	// Events tell when a server changes state or tools; the catalog is rebuilt
	// before subscribers hear of it.
	ready := make(chan struct{}, 1)
	cancel := h.Subscribe(func(e upstream.Event) {
		if e.Server == "backup" && e.State == upstream.Ready {
			select {
			case ready <- struct{}{}:
			default:
			}
		}
	})
	defer cancel()

	cfg, _ = config.FromValue(map[string]any{"mcpServers": map[string]any{"clock": clock, "backup": clock}}, nil)
	if err := h.Reload(cfg); err != nil {
		fmt.Println(err)
		return
	}
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		fmt.Println("backup not ready")
		return
	}

	after := h.Status()
	for _, st := range after {
		fmt.Println(st.Name, st.State)
	}
	fmt.Println("clock kept running:", after[0].Name == "clock" && after[0].Since.Equal(before.Since))
	for _, t := range h.Tools() {
		fmt.Println(t.Name, "→", t.Server+"/"+t.OriginalName)
	}
	// Output:
	// clock ready
	// backup ready
	// clock kept running: true
	// add_duration → clock/add_duration
	// convert_time → clock/convert_time
	// current_time → clock/current_time
	// backup__add_duration → backup/add_duration
	// backup__convert_time → backup/convert_time
	// backup__current_time → backup/current_time
}
