package agent_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// A turn with one tool, against a fake OpenAI-compatible server whose rules call the
// tools named in the user's message and then repeat their results.
func Example() {
	srv, err := fakellm.NewOpenAI("127.0.0.1:0", fakellm.Rules())
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	model, err := openai.New("any", &openai.Options{BaseURL: srv.URL})
	if err != nil {
		log.Fatal(err)
	}

	local := tool.NewLocal()
	type addArgs struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	if err := tool.Func(local, "add", "Adds two integers.", func(_ context.Context, in addArgs) (string, error) {
		return fmt.Sprint(in.A + in.B), nil
	}); err != nil {
		log.Fatal(err)
	}

	store := session.NewMemory()
	defer store.Close()
	ctx := context.Background()
	if err := store.Create(ctx, &session.Session{ID: "demo"}); err != nil {
		log.Fatal(err)
	}

	a := agent.New(model, store, &agent.Options{
		Tools: local,
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.ToolFinished {
				fmt.Printf("step %d: %s(%s) = %s\n", e.Step, e.Name, e.Arguments, e.Result)
			}
		},
	})
	turn, err := a.Run(ctx, "demo", "call add {\"a\": 2, \"b\": 3}\ncall add {\"a\": 10, \"b\": -4}")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.ReplaceAll(turn.Answer, "\n", " | "))
	fmt.Println(len(turn.Steps), "steps")
	// Unordered output:
	// step 1: add({"a": 2, "b": 3}) = 5
	// step 1: add({"a": 10, "b": -4}) = 6
	// add: 5 | add: 6
	// 2 steps
}
