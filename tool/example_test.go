package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"

	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/tool"
)

// The layering that agent frameworks wire by hand — an agent's own tools, a team's
// shared tools, a pool-wide set of MCP servers — is one union handed to the agent.
func ExampleUnion() {
	ctx := context.Background()

	// The agent's own tools: Go functions.
	agent := tool.NewLocal()
	type greetIn struct {
		Name string `json:"name" jsonschema:"who to greet"`
	}
	tool.Func(agent, "greet", "Greets someone.", func(_ context.Context, in greetIn) (string, error) {
		return "hello, " + in.Name, nil
	})

	// The team's shared tools.
	team := tool.NewLocal()
	tool.Func(team, "team_roster", "Lists the team.", func(context.Context, struct{}) ([]string, error) {
		return []string{"ada", "grace"}, nil
	})

	// The pool: real MCP servers (here the built-in demo servers, clock and notes).
	exe, _ := os.Executable()
	cfg := demo.Config(exe)
	for i := range cfg.Servers {
		cfg.Servers[i].Env = map[string]string{"SWITCHBOARD_NOTES_FILE": filepath.Join(os.TempDir(), "example-notes.json")}
	}
	pool := hub.New(cfg, &hub.Options{Logger: slog.New(slog.DiscardHandler)})
	defer pool.Close()
	if err := pool.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}

	tools := tool.Union("auto", agent, team, pool)
	defer tools.Close()

	var names []string
	for _, t := range tools.Tools() {
		names = append(names, t.Server+"/"+t.Name)
	}
	sort.Strings(names)
	fmt.Println(names)

	res, _ := tools.Call(ctx, "greet", json.RawMessage(`{"name":"switchboard"}`))
	fmt.Println(tool.Text(res))
	res, _ = tools.Call(ctx, "convert_time", json.RawMessage(`{"time":"2026-01-02T03:04:05Z","to":"Asia/Tokyo"}`))
	fmt.Println(tool.Text(res))
	// Output:
	// [clock/add_duration clock/convert_time clock/current_time local/greet local/team_roster notes/delete_note notes/get_note notes/list_notes notes/put_note notes/search_notes]
	// hello, switchboard
	// 2026-01-02T12:04:05+09:00 (Asia/Tokyo, Friday)
}
