package search

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/tool"
)

// embedCatalog is a small catalog where requests in other words than the tools'
// miss lexically ("hire an auto" for rent_car).
func embedCatalog(t *testing.T) []tool.Tool {
	return []tool.Tool{
		{Name: "rent_car", Server: "travel", Description: "Book a rental car for some days at a city's airport.",
			InputSchema: schema(t, map[string]string{"city": "string", "days": "integer"}, "city")},
		{Name: "get_forecast", Server: "weather", Description: "Weather forecast for a city, by day.",
			InputSchema: schema(t, map[string]string{"city": "string"}, "city")},
		{Name: "send_email", Server: "mail", Description: "Send an email to one or more addresses.",
			InputSchema: schema(t, map[string]string{"to": "string", "subject": "string", "body": "string"}, "to")},
		{Name: "list_files", Server: "fs", Description: "List the files in a folder.",
			InputSchema: schema(t, map[string]string{"path": "string"}, "path")},
		{Name: "book_flight", Server: "travel", Description: "Book a flight between two airports on a given day.",
			InputSchema: schema(t, map[string]string{"from": "string", "to": "string", "day": "string"}, "from", "to")},
		{Name: "play_song", Server: "media", Description: "Play a song by title or artist.",
			InputSchema: schema(t, map[string]string{"title": "string"}, "title")},
	}
}

// logBuffer is a logger whose records (text, debug and up) tests read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// newTestEmbeddings is an Embeddings with opts (Logger filled in) on an
// llm/openai Embedder of fake's model "fake-embed" with eo (BaseURL and HTTPClient
// filled in),
// and its log. The test checks that no goroutine outlives it.
func newTestEmbeddings(t *testing.T, fake *fakellm.EmbeddingsServer, opts EmbeddingsOptions, eo openai.EmbedderOptions) (*Embeddings, *logBuffer) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) }) // runs last: after the fake's Close
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(client.CloseIdleConnections)
	log := &logBuffer{}
	eo.BaseURL, eo.HTTPClient = fake.URL, client
	emb, err := openai.NewEmbedder("fake-embed", &eo)
	if err != nil {
		t.Fatal(err)
	}
	opts.Logger = log.logger()
	e, err := NewEmbeddings(emb, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return e, log
}

func resultNames(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Tool.Name
	}
	return out
}

// A request in other words than the tool's: the lexical ranking misses it, the fused
// ranking puts it first; one the words already answer keeps its first result.
func TestEmbeddingsRanking(t *testing.T) {
	fake := fakellm.StartEmbeddings(t, nil)
	e, log := newTestEmbeddings(t, fake, EmbeddingsOptions{}, openai.EmbedderOptions{})
	ix := New(embedCatalog(t))
	ctx := context.Background()
	for _, c := range []struct{ query, want string }{
		{"hire an auto", "rent_car"},
		{"put on a tune", "play_song"},
	} {
		lexical, err := ix.ToolSearch(c.query, 0)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(resultNames(lexical), c.want) {
			t.Fatalf("%q: the lexical ranking finds %s already (%q): not a case for embeddings", c.query, c.want, resultNames(lexical))
		}
		got, err := e.ToolSearch(ctx, ix, c.query, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Tool.Name != c.want {
			t.Errorf("%q with embeddings: %q, want %s first", c.query, resultNames(got), c.want)
		}
	}
	for _, q := range []string{"weather forecast for Paris", "send an email", "book a flight"} {
		lexical, _ := ix.ToolSearch(q, 0)
		got, _ := e.ToolSearch(ctx, ix, q, 0)
		if len(got) == 0 || got[0].Tool.Name != lexical[0].Tool.Name {
			t.Errorf("%q: with embeddings %q, lexical %q: the first result changed", q, resultNames(got), resultNames(lexical))
		}
		for i := 1; i < len(got); i++ {
			if got[i].Score > got[i-1].Score || got[i].Score <= 0 || got[i].Score > 1 {
				t.Errorf("%q: scores %v are not in (0, 1], best first", q, got)
			}
		}
	}
	if got, _ := e.ToolSearch(ctx, ix, "music", 2); len(got) != 2 {
		t.Errorf("limit 2 gave %d results", len(got))
	}
	if log.String() != "" {
		t.Errorf("a healthy endpoint logs nothing:\n%s", log)
	}
}

// The arguments are checked as Index.ToolSearch checks them, before any request.
func TestEmbeddingsToolSearchArguments(t *testing.T) {
	fake := fakellm.StartEmbeddings(t, nil)
	e, _ := newTestEmbeddings(t, fake, EmbeddingsOptions{}, openai.EmbedderOptions{})
	ix := New(embedCatalog(t))
	for _, c := range []struct {
		query string
		limit int
	}{{"car", 51}, {"car", -1}, {"  ", 0}} {
		_, want := ix.ToolSearch(c.query, c.limit)
		_, err := e.ToolSearch(context.Background(), ix, c.query, c.limit)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("ToolSearch(%q, %d) = %v, want %v", c.query, c.limit, err, want)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests for bad arguments", n)
	}
}

// Each tool's text is embedded once: a second search embeds only its query, and a
// catalog change only the tools that changed (and the query).
func TestEmbeddingsCache(t *testing.T) {
	fake := fakellm.StartEmbeddings(t, nil)
	e, _ := newTestEmbeddings(t, fake, EmbeddingsOptions{Batch: 4}, openai.EmbedderOptions{})
	tools := embedCatalog(t)
	ix := New(tools)
	ctx := context.Background()
	e.Search(ctx, ix, "hire an automobile", 5)
	inputs := fake.Inputs()
	if len(inputs) != len(tools)+1 || inputs[len(tools)] != "hire an automobile" {
		t.Fatalf("first search embedded %d inputs %q, want the %d tools then the query", len(inputs), inputs, len(tools))
	}
	if n := len(fake.Requests()); n != 2 {
		t.Errorf("%d requests for 7 inputs in batches of 4", n)
	}
	e.Search(ctx, ix, "play a tune", 5)
	if got := fake.Inputs()[len(inputs):]; !slices.Equal(got, []string{"play a tune"}) {
		t.Errorf("second search embedded %q, want the query alone", got)
	}
	// One tool changed, one added, one removed.
	changed := slices.Clone(tools[:len(tools)-1])
	changed[1].Description = "Weather forecast for a city, by hour."
	changed = append(changed, tool.Tool{Name: "translate_text", Server: "lang", Description: "Translate a text into another language."})
	before := len(fake.Inputs())
	got := e.Search(ctx, ix.Update(changed), "translation", 5)
	added := fake.Inputs()[before:]
	if len(added) != 3 || !strings.HasPrefix(added[0], "get_forecast (server weather): Weather forecast for a city, by hour.") ||
		!strings.HasPrefix(added[1], "translate_text (server lang): Translate a text") || added[2] != "translation" {
		t.Errorf("after the change, embedded %q, want the changed tool, the new one and the query", added)
	}
	if len(got) == 0 || got[0].Tool.Name != "translate_text" {
		t.Errorf("translation: %q", resultNames(got))
	}
	// Back to the first catalog: its vectors are still there.
	before = len(fake.Inputs())
	e.Search(ctx, ix, "car", 5)
	if got := fake.Inputs()[before:]; !slices.Equal(got, []string{"car"}) {
		t.Errorf("the first catalog again embedded %q, want the query alone", got)
	}
}

// Searches at once on a fresh catalog embed each tool once between them.
func TestEmbeddingsConcurrent(t *testing.T) {
	fake := fakellm.StartEmbeddings(t, nil)
	e, _ := newTestEmbeddings(t, fake, EmbeddingsOptions{}, openai.EmbedderOptions{})
	tools := embedCatalog(t)
	ix := New(tools)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := e.Search(context.Background(), ix, fmt.Sprintf("query %d music", i), 3); len(got) == 0 || got[0].Tool.Name != "play_song" {
				t.Errorf("query %d: %q", i, resultNames(got))
			}
		}()
	}
	wg.Wait()
	if n := len(fake.Inputs()); n != len(tools)+4 {
		t.Errorf("embedded %d inputs, want %d tools and 4 queries: %q", n, len(tools), fake.Inputs())
	}
}

// A dead endpoint, one that answers 500, and one too slow: the search answers as the
// lexical ranking does, with one warning; during the cooldown no request is sent;
// once the endpoint answers again, the fused ranking is back.
func TestEmbeddingsFallback(t *testing.T) {
	ctx := context.Background()
	t.Run("dead", func(t *testing.T) {
		dead, err := fakellm.NewEmbeddings("127.0.0.1:0", nil)
		if err != nil {
			t.Fatal(err)
		}
		dead.Close()
		e, log := newTestEmbeddings(t, dead, EmbeddingsOptions{}, openai.EmbedderOptions{MaxRetries: -1})
		ix := New(embedCatalog(t))
		for range 3 {
			checkFallback(t, e, ix, "hire an automobile")
		}
		if n := strings.Count(log.String(), "level=WARN"); n != 1 || !strings.Contains(log.String(), "the embeddings endpoint failed; ranking by words alone") ||
			!strings.Contains(log.String(), "connection refused") {
			t.Errorf("want one warning that says why:\n%s", log)
		}
	})
	t.Run("500 then recovered", func(t *testing.T) {
		fake, failing := loadingEmbeddings(t)
		e, log := newTestEmbeddings(t, fake, EmbeddingsOptions{Cooldown: time.Hour}, openai.EmbedderOptions{MaxRetries: -1})
		ix := New(embedCatalog(t))
		checkFallback(t, e, ix, "hire an automobile")
		checkFallback(t, e, ix, "put on some music")
		if n := len(fake.Requests()); n != 1 {
			t.Errorf("%d requests: during the cooldown there should be none after the first", n)
		}
		if !strings.Contains(log.String(), "500 Internal Server Error: the model is loading") || strings.Count(log.String(), "level=WARN") != 1 {
			t.Errorf("want one warning with the endpoint's message:\n%s", log)
		}
		// The cooldown over (moved into the past), a working endpoint is used again.
		failing.Store(false)
		e.mu.Lock()
		e.down = time.Time{}
		e.mu.Unlock()
		if got := e.Search(ctx, ix, "hire an automobile", 5); len(got) == 0 || got[0].Tool.Name != "rent_car" {
			t.Errorf("after recovery: %q", resultNames(got))
		}
		if !strings.Contains(log.String(), "the embeddings endpoint answers again") {
			t.Errorf("no record of the recovery:\n%s", log)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		fake := fakellm.StartEmbeddings(t, &fakellm.EmbeddingsOptions{Delay: time.Minute})
		e, log := newTestEmbeddings(t, fake, EmbeddingsOptions{Timeout: 100 * time.Millisecond}, openai.EmbedderOptions{MaxRetries: -1})
		checkFallback(t, e, New(embedCatalog(t)), "hire an automobile")
		if !strings.Contains(log.String(), "context deadline exceeded") {
			t.Errorf("want a warning naming the timeout:\n%s", log)
		}
	})
	t.Run("caller gone", func(t *testing.T) {
		fake := fakellm.StartEmbeddings(t, &fakellm.EmbeddingsOptions{Delay: time.Minute})
		e, log := newTestEmbeddings(t, fake, EmbeddingsOptions{}, openai.EmbedderOptions{MaxRetries: -1})
		cctx, cancel := context.WithCancel(ctx)
		go func() {
			for len(fake.Requests()) == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
		}()
		ix := New(embedCatalog(t))
		if got, want := e.Search(cctx, ix, "music", 5), ix.Search("music", 5); !slices.Equal(resultNames(got), resultNames(want)) {
			t.Errorf("cancelled search: %q, want the lexical %q", resultNames(got), resultNames(want))
		}
		if log.String() != "" || e.cooling() {
			t.Errorf("a caller that left is not the endpoint's failure:\n%s", log)
		}
	})
}

func checkFallback(t *testing.T, e *Embeddings, ix *Index, query string) {
	t.Helper()
	want, err := ix.ToolSearch(query, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.ToolSearch(context.Background(), ix, query, 0)
	if err != nil {
		t.Fatalf("ToolSearch failed with the endpoint: %v", err)
	}
	if !slices.EqualFunc(got, want, func(a, b Result) bool { return a.Tool.Name == b.Tool.Name && a.Score == b.Score }) {
		t.Errorf("%q: %v, want the lexical %v", query, got, want)
	}
}

// The API key is sent, and never logged, even when the endpoint echoes it.
func TestEmbeddingsKeyNotLogged(t *testing.T) {
	const key = "sk-proj-very-secret-0042"
	fake := fakellm.StartEmbeddings(t, &fakellm.EmbeddingsOptions{Fail: func(r fakellm.EmbeddingsRequest) (int, string) {
		return http.StatusUnauthorized, "Incorrect API key provided: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}})
	e, log := newTestEmbeddings(t, fake, EmbeddingsOptions{}, openai.EmbedderOptions{APIKey: key, MaxRetries: -1})
	checkFallback(t, e, New(embedCatalog(t)), "music")
	if reqs := fake.Requests(); len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer "+key {
		t.Fatalf("requests = %+v", reqs)
	}
	if strings.Contains(log.String(), key) || !strings.Contains(log.String(), "Incorrect API key provided: [REDACTED]") {
		t.Errorf("log:\n%s", log)
	}
}

func TestNewEmbeddingsErrors(t *testing.T) {
	emb, err := openai.NewEmbedder("m", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		embedder Embedder
		opts     *EmbeddingsOptions
		want     string
	}{
		{nil, nil, "search: NewEmbeddings: the Embedder is nil: give one (llm/openai's NewEmbedder, say)"},
		{emb, &EmbeddingsOptions{Weight: 1.5}, "search: embeddings weight 1.5: want above 0 and at most 1"},
		{emb, &EmbeddingsOptions{Weight: -0.1}, "search: embeddings weight -0.1: want above 0 and at most 1"},
	} {
		if _, err := NewEmbeddings(c.embedder, c.opts); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("NewEmbeddings(%v, %+v) = %v, want %q", c.embedder, c.opts, err, c.want)
		}
	}
	e, err := NewEmbeddings(emb, nil)
	if err != nil || e.opts.Weight != DefaultEmbeddingsWeight || e.name != openai.DefaultBaseURL+" (model m)" || e.opts.Timeout != DefaultEmbeddingsTimeout {
		t.Errorf("defaults: %+v, %v", e, err)
	}
}

// TestEmbeddingsNilLoggerIsQuiet: without a Logger, an endpoint that fails and
// recovers logs nothing, through the default logger either.
func TestEmbeddingsNilLoggerIsQuiet(t *testing.T) {
	out := testenv.CaptureDefaultLog(t)
	fake, failing := loadingEmbeddings(t)
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(client.CloseIdleConnections)
	emb, err := openai.NewEmbedder("fake-embed", &openai.EmbedderOptions{BaseURL: fake.URL, HTTPClient: client, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEmbeddings(emb, nil)
	if err != nil {
		t.Fatal(err)
	}
	ix := New(embedCatalog(t))
	checkFallback(t, e, ix, "hire an automobile") // the failure
	failing.Store(false)
	e.mu.Lock()
	e.down = time.Time{}
	e.mu.Unlock()
	if got := e.Search(context.Background(), ix, "hire an automobile", 5); len(got) == 0 || got[0].Tool.Name != "rent_car" {
		t.Fatalf("after recovery: %q", resultNames(got)) // the recovery, which logs too
	}
	if got := out.String(); got != "" {
		t.Errorf("embeddings without a logger logged through the default logger:\n%s", got)
	}
}

// loadingEmbeddings is an embeddings fake that answers HTTP 500 ("the model is
// loading") while failing is set, as it is at first.
func loadingEmbeddings(t *testing.T) (fake *fakellm.EmbeddingsServer, failing *atomic.Bool) {
	failing = new(atomic.Bool)
	failing.Store(true)
	fake = fakellm.StartEmbeddings(t, &fakellm.EmbeddingsOptions{Fail: func(fakellm.EmbeddingsRequest) (int, string) {
		if failing.Load() {
			return http.StatusInternalServerError, "the model is loading"
		}
		return 0, ""
	}})
	return fake, failing
}
