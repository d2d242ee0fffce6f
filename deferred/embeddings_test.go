package deferred

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/search"
	"github.com/switchboard-mcp/switchboard/tool"
)

// In deferred mode, tool_search uses the policy's embeddings; tool_search_regex does
// not.
func TestDeferredEmbeddings(t *testing.T) {
	fake := fakellm.StartEmbeddings(t, nil)
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(client.CloseIdleConnections)
	emb, err := openai.NewEmbedder("fake-embed", &openai.EmbedderOptions{BaseURL: fake.URL, HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	e, err := search.NewEmbeddings(emb, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Requests in other words than the tools' miss lexically ("hire an automobile"
	// for rent_car).
	l := tool.NewLocal()
	for _, c := range []struct{ name, desc string }{
		{"rent_car", "Book a rental car for some days at a city's airport."},
		{"get_forecast", "Weather forecast for a city, by day."},
		{"send_email", "Send an email to one or more addresses."},
		{"list_files", "List the files in a folder."},
		{"book_flight", "Book a flight between two airports on a given day."},
		{"play_song", "Play a song by title or artist."},
	} {
		if err := l.AddRaw(c.name, c.desc, nil, func(context.Context, json.RawMessage) (*tool.Result, error) {
			return tool.TextResult("ran"), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	v := New(l, Policy{Mode: Always, Embeddings: e}).View(nil, nil)
	t.Cleanup(func() { v.Close() })
	text, isErr := callText(t, v, SearchToolName, `{"query": "hire an automobile", "limit": 2}`)
	if isErr || !strings.Contains(text, "Found 2 tools") || !strings.Contains(text, "\nrent_car") || strings.Index(text, "rent_car") > strings.Index(text, "\n\n")+3 {
		t.Errorf("tool_search:\n%s", text)
	}
	if !slices.Contains(v.Loaded(), "rent_car") {
		t.Errorf("loaded %q, want rent_car", v.Loaded())
	}
	n := len(fake.Inputs())
	if text, _ := callText(t, v, RegexToolName, `{"pattern": "car"}`); !strings.Contains(text, "rent_car") {
		t.Errorf("tool_search_regex:\n%s", text)
	}
	if len(fake.Inputs()) != n {
		t.Errorf("tool_search_regex asked the embeddings endpoint")
	}
}
