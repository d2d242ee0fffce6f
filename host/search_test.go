package host_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
)

// The API's GET /v1/search ranks a query in words with the configured embeddings, as
// the model's tool_search and switchboard search do (it ranked by words alone, so a
// CLI pointed at serve found other tools than the same CLI on its own); ?regex=1
// asks no embedding.
func TestAPISearchEmbeddings(t *testing.T) {
	t.Setenv("HOST_TEST_EMBED_KEY", "embed-key-Qz4")
	fake := fakellm.StartEmbeddings(t, nil)
	cfg := &config.Config{Servers: []config.Server{testserver.Stdio(t, "ts")}}
	cfg.Settings.Search.Embeddings = &config.EmbeddingsSettings{BaseURL: fake.URL, Model: "fake-embed", APIKeyEnv: "HOST_TEST_EMBED_KEY"}
	h := host.New(cfg, nil)
	t.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	srv, err := h.API(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := serveAPI(t, srv)
	search := func(query string) []string {
		t.Helper()
		res, err := http.Get(base + "/v1/search?" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body struct {
			Results []struct{ Name string } `json:"results"`
		}
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET /v1/search?%s: %d %v", query, res.StatusCode, err)
		}
		var names []string
		for _, r := range body.Results {
			names = append(names, r.Name)
		}
		return names
	}
	if got := search("q=echo+back+the+text&limit=3"); len(got) == 0 {
		t.Error("the search in words found nothing")
	}
	if !slices.Contains(fake.Inputs(), "echo back the text") {
		t.Errorf("the embeddings server was asked %q, not the query", fake.Inputs())
	}
	n := len(fake.Requests())
	if got := search("q=echo&regex=1"); len(got) == 0 {
		t.Error("the regex search found nothing")
	}
	if len(fake.Requests()) != n {
		t.Error("a regex search asked the embeddings server")
	}
}
