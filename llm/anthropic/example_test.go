package anthropic_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/anthropic"
)

// A model that answers with a tool call, streamed: the text and the call's
// arguments reach onEvent in pieces, and the Response holds them whole.
func Example() {
	// A fake Messages API on loopback stands in for https://api.anthropic.com.
	srv, err := fakellm.NewAnthropic("127.0.0.1:0", fakellm.Queue(fakellm.Reply{
		Text:  "Looking it up.",
		Calls: []fakellm.Call{{ID: "toolu_1", Name: "weather", Arguments: `{"city":"Paris"}`}},
	}))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()

	m, err := anthropic.New("claude-sonnet-4-5", &anthropic.Options{BaseURL: srv.URL, APIKey: "sk-ant-...", HTTPClient: client})
	if err != nil {
		panic(err)
	}
	res, err := m.Generate(context.Background(), &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Text: "Weather in Paris?"}},
	}, func(e llm.Event) {
		if e.Kind == llm.TextDelta {
			fmt.Print(e.Text)
		}
	})
	if err != nil {
		panic(err)
	}
	fmt.Println()
	for _, c := range res.Message.Calls {
		fmt.Println(c.ID, c.Name, c.Arguments)
	}
	fmt.Println(res.Stop)
	// Output:
	// Looking it up.
	// toolu_1 weather {"city":"Paris"}
	// tool_calls
}
