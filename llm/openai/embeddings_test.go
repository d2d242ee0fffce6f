package openai

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

func TestNewEmbedderErrors(t *testing.T) {
	for _, c := range []struct {
		model string
		opts  *EmbedderOptions
		want  string
	}{
		{"", nil, "openai: NewEmbedder: no model name: name the embedding model to use"},
		{"m", &EmbedderOptions{BaseURL: "localhost:1234"}, `openai: embeddings base URL "localhost:1234" is not an http(s) URL`},
		{"m", &EmbedderOptions{MaxRetries: -2}, "openai: embeddings MaxRetries -2"},
	} {
		if _, err := NewEmbedder(c.model, c.opts); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("NewEmbedder(%q, %+v) = %v, want %q", c.model, c.opts, err, c.want)
		}
	}
	// nil options: OpenAI's API.
	if e, err := NewEmbedder("text-embedding-3-small", nil); err != nil || e.String() != DefaultBaseURL+" (model text-embedding-3-small)" {
		t.Errorf("NewEmbedder with nil options: %v, %v", e, err)
	}
	e, err := NewEmbedder("m", &EmbedderOptions{BaseURL: "http://user:pw@127.0.0.1:9/v1/"})
	if err != nil || e.String() != "http://user:xxxxx@127.0.0.1:9/v1 (model m)" {
		t.Errorf("NewEmbedder: %v, %v", e, err)
	}
}

// Embed sends the texts in one request, empty ones as "(empty)", and answers the
// vectors in the inputs' order; an error carries the API's message, never the key.
func TestEmbed(t *testing.T) {
	const key = "sk-embed-secret-77"
	fake := fakellm.StartEmbeddings(t, nil)
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(client.CloseIdleConnections)
	e, err := NewEmbedder("fake-embed", &EmbedderOptions{BaseURL: fake.URL, APIKey: key, HTTPClient: client, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.Embed(context.Background(), []string{"rent a car", " ", "play a song"})
	if err != nil || len(vs) != 3 || len(vs[0]) == 0 {
		t.Fatalf("Embed = %d vectors, %v", len(vs), err)
	}
	if in := fake.Inputs(); len(in) != 3 || in[1] != "(empty)" {
		t.Errorf("the endpoint got %q", in)
	}
	if reqs := fake.Requests(); len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer "+key {
		t.Errorf("requests: %+v", reqs)
	}

	echo := fakellm.StartEmbeddings(t, &fakellm.EmbeddingsOptions{Fail: func(r fakellm.EmbeddingsRequest) (int, string) {
		return http.StatusUnauthorized, "Incorrect API key provided: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}})
	e, err = NewEmbedder("fake-embed", &EmbedderOptions{BaseURL: echo.URL, APIKey: key, HTTPClient: client, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), []string{"x"})
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "Incorrect API key provided: [REDACTED]") {
		t.Errorf("Embed error = %v", err)
	}
}
