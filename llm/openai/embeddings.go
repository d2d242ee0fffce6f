package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"

	"github.com/switchboard-mcp/switchboard/internal/baseurl"
)

// EmbedderOptions configures an Embedder; nil, and every zero field, is a useful
// default.
type EmbedderOptions struct {
	// BaseURL is the API's base up to and including /v1 (the SDK appends
	// /embeddings): DefaultBaseURL when empty.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer …"; empty sends none (local servers).
	// It never appears in errors.
	APIKey string
	// MaxRetries is how often the SDK retries a request that failed with 408, 409,
	// 429, 5xx or a connection error: 0 means the SDK's default (2), -1 none.
	MaxRetries int
	// HTTPClient sends the requests; nil means one of llm.NewHTTPClient's.
	HTTPClient *http.Client
}

// Embedder asks an OpenAI-compatible /embeddings endpoint (OpenAI, Ollama, vLLM,
// llama.cpp, LM Studio) for the vectors of texts: search.Embeddings' backend. It is
// safe for concurrent use.
type Embedder struct {
	model string // the embedding model's name at the endpoint
	opts  EmbedderOptions
	base  string // for messages: the URL with any user info masked
	svc   sdk.EmbeddingService
}

// NewEmbedder returns an Embedder that asks for the vectors of the embedding model
// named model, configured by opts (nil: OpenAI's API, no key, the SDK's retries). It
// checks its arguments; it does not contact the endpoint.
func NewEmbedder(model string, opts *EmbedderOptions) (*Embedder, error) {
	if model == "" {
		return nil, errors.New("openai: NewEmbedder: no model name: name the embedding model to use")
	}
	var o EmbedderOptions
	if opts != nil {
		o = *opts
	}
	base, u, err := baseurl.Parse(o.BaseURL, DefaultBaseURL)
	if err != nil {
		return nil, fmt.Errorf("openai: embeddings %w", err)
	}
	if o.MaxRetries < -1 {
		return nil, fmt.Errorf("openai: embeddings MaxRetries %d: want -1 (none), 0 (the SDK's default) or more", o.MaxRetries)
	}
	svc := sdk.NewEmbeddingService(requestOptions(base, o.APIKey, o.MaxRetries, o.HTTPClient)...)
	return &Embedder{model: model, opts: o, base: u.Redacted(), svc: svc}, nil
}

// String names the endpoint and model for log lines: "http://host/v1 (model m)".
func (e *Embedder) String() string { return e.base + " (model " + e.model + ")" }

// Embed returns the vectors of inputs, in order, as the endpoint gives them. An
// empty input is sent as "(empty)" (the API refuses empty strings). An error
// carries the API's own message ("model not found" says what to fix), and never
// the key.
func (e *Embedder) Embed(ctx context.Context, inputs []string) ([][]float64, error) {
	sent := make([]string, len(inputs))
	for i, in := range inputs {
		sent[i] = in
		if strings.TrimSpace(in) == "" {
			sent[i] = "(empty)"
		}
	}
	res, err := e.svc.New(ctx, sdk.EmbeddingNewParams{
		Model: e.model,
		Input: sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: sent},
	})
	if err != nil {
		msg := err.Error()
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) && apiErr.Message != "" {
			msg = fmt.Sprintf("%s: %s", msg, apiErr.Message)
		}
		return nil, errors.New(e.redact(msg))
	}
	if len(res.Data) != len(inputs) {
		return nil, fmt.Errorf("the endpoint answered %d embeddings for %d inputs", len(res.Data), len(inputs))
	}
	out := make([][]float64, len(inputs))
	for _, d := range res.Data {
		if d.Index < 0 || int(d.Index) >= len(inputs) || out[d.Index] != nil {
			return nil, fmt.Errorf("the endpoint answered an embedding with index %d for %d inputs", d.Index, len(inputs))
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("the endpoint answered an empty embedding (index %d)", d.Index)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// redact takes the API key out of a message: an endpoint may echo what it got.
func (e *Embedder) redact(s string) string {
	if e.opts.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, e.opts.APIKey, "[REDACTED]")
}
