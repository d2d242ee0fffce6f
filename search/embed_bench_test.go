//go:build unix

package search

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/llm/openai"
)

// BenchmarkEmbeddings10k is the cost of the embeddings over 10,000 tools against
// the fake endpoint on loopback: the first search, which embeds the catalog, and
// then the median search (one request for the query, and the fusion), against the
// lexical search in the same run. The fake is not a model: its rankings say
// nothing of quality, and a real endpoint adds its own latency to every search.
func BenchmarkEmbeddings10k(b *testing.B) {
	tools, reqs := catalog10k(b)
	ix := New(tools)
	fake := fakellm.StartEmbeddings(b, nil)
	embedder, err := openai.NewEmbedder("fake", &openai.EmbedderOptions{BaseURL: fake.URL})
	if err != nil {
		b.Fatal(err)
	}
	e, err := NewEmbeddings(embedder, &EmbeddingsOptions{Timeout: time.Minute,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	t0 := time.Now()
	e.Search(ctx, ix, "warm the cache", DefaultSearchLimit)
	fill := time.Since(t0)
	if n := len(fake.Inputs()); n != len(tools)+1 {
		b.Fatalf("the first search embedded %d inputs, want %d", n, len(tools)+1)
	}
	var lex, emb []float64
	i := 0
	for b.Loop() {
		q := reqs[i%len(reqs)].query
		i++
		t0 := time.Now()
		ix.Search(q, DefaultSearchLimit)
		t1 := time.Now()
		e.Search(ctx, ix, q, DefaultSearchLimit)
		lex = append(lex, float64(t1.Sub(t0).Nanoseconds()))
		emb = append(emb, float64(time.Since(t1).Nanoseconds()))
	}
	b.ReportMetric(float64(fill.Milliseconds()), "ms-first-search")
	b.ReportMetric(testenv.Median(emb)/1e3, "µs-median/search")
	b.ReportMetric(testenv.Median(lex)/1e3, "µs-median/lexical")
	b.ReportMetric(testenv.Median(emb)/testenv.Median(lex), "x-lexical")
}
