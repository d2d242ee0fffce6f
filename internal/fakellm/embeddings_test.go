package fakellm_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

func embeddingsClient(s *fakellm.EmbeddingsServer) sdk.EmbeddingService {
	return sdk.NewEmbeddingService(option.WithBaseURL(s.URL), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
}

func cosine(a []float64, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += a[i] * float64(b[i])
	}
	return dot
}

// The official client sends the fake what it sends OpenAI and parses what the fake
// answers, in both encodings and for both shapes of input.
func TestEmbeddingsWireFormat(t *testing.T) {
	s := fakellm.StartEmbeddings(t, nil)
	c := embeddingsClient(s)
	ctx := context.Background()
	inputs := []string{"rent a car", "hire an automobile", "weather forecast"}
	for _, format := range []sdk.EmbeddingNewParamsEncodingFormat{"", sdk.EmbeddingNewParamsEncodingFormatFloat, sdk.EmbeddingNewParamsEncodingFormatBase64} {
		t.Run("format "+string(format), func(t *testing.T) {
			res, err := c.New(ctx, sdk.EmbeddingNewParams{
				Model:          "fake-embed",
				Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: inputs},
				EncodingFormat: format,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Model != "fake-embed" || len(res.Data) != len(inputs) || res.Usage.PromptTokens != 8 || res.Usage.TotalTokens != 8 || res.Object != "list" {
				t.Fatalf("response = %s", res.RawJSON())
			}
			for i, d := range res.Data {
				want := fakellm.Embed(inputs[i], fakellm.DefaultDimensions)
				if d.Index != int64(i) || d.Object != "embedding" || len(d.Embedding) != len(want) {
					t.Fatalf("data[%d]: index %d, object %q, %d dimensions", i, d.Index, d.Object, len(d.Embedding))
				}
				if got := cosine(d.Embedding, want); math.Abs(got-1) > 1e-6 {
					t.Errorf("data[%d] is not Embed(%q): cosine %v", i, inputs[i], got)
				}
			}
			last := s.Requests()[len(s.Requests())-1]
			if last.EncodingFormat != string(format) || last.Model != "fake-embed" || !slices.Equal(last.Input, inputs) || last.Header.Get("Authorization") != "Bearer sk-test" {
				t.Errorf("request = %+v", last)
			}
		})
	}
	t.Run("string input and dimensions", func(t *testing.T) {
		res, err := c.New(ctx, sdk.EmbeddingNewParams{Model: "m", Input: sdk.EmbeddingNewParamsInputUnion{OfString: sdk.String("one text")}, Dimensions: sdk.Int(8)})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Data) != 1 || len(res.Data[0].Embedding) != 8 {
			t.Fatalf("response = %s", res.RawJSON())
		}
	})
	// The 400s OpenAI answers, as the SDK reports them.
	for _, bad := range []struct {
		name   string
		params sdk.EmbeddingNewParams
		want   string
	}{
		{"no model", sdk.EmbeddingNewParams{Input: sdk.EmbeddingNewParamsInputUnion{OfString: sdk.String("x")}}, "you must provide a model parameter"},
		{"empty input", sdk.EmbeddingNewParams{Model: "m", Input: sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"x", ""}}}, "an input is empty"},
		{"tokens", sdk.EmbeddingNewParams{Model: "m", Input: sdk.EmbeddingNewParamsInputUnion{OfArrayOfTokens: []int64{1, 2}}}, "want a string or an array of strings"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			_, err := c.New(ctx, bad.params)
			var apiErr *sdk.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || !strings.Contains(apiErr.Message, bad.want) {
				t.Errorf("error = %v, want a 400 saying %q", err, bad.want)
			}
		})
	}
}

// Fail answers the status it returns with OpenAI's error body; the SDK reads it.
func TestEmbeddingsFail(t *testing.T) {
	s := fakellm.StartEmbeddings(t, &fakellm.EmbeddingsOptions{Fail: func(fakellm.EmbeddingsRequest) (int, string) {
		return http.StatusServiceUnavailable, "overloaded"
	}})
	c := embeddingsClient(s)
	_, err := c.New(context.Background(), sdk.EmbeddingNewParams{Model: "m", Input: sdk.EmbeddingNewParamsInputUnion{OfString: sdk.String("x")}})
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable || apiErr.Message != "overloaded" || apiErr.Type != "server_error" {
		t.Errorf("error = %v", err)
	}
	if got := s.Inputs(); !slices.Equal(got, []string{"x"}) {
		t.Errorf("Inputs() = %q, want the failed request's input counted", got)
	}
}

// The fake's vectors put related texts closer than unrelated ones: a shared
// thesaurus concept ("automobile", "car") and shared parts of words ("mail",
// "email").
func TestEmbedSimilarity(t *testing.T) {
	sim := func(a, b string) float64 {
		x, y := fakellm.Embed(a, fakellm.DefaultDimensions), fakellm.Embed(b, fakellm.DefaultDimensions)
		var dot float64
		for i := range x {
			dot += float64(x[i]) * float64(y[i])
		}
		return dot
	}
	for _, c := range []struct{ query, near, far string }{
		{"hire an automobile", "rent_car: Book a rental car for some days", "get_forecast: Weather forecast for a city"},
		{"send mail", "send_email: Send an email", "list_files: List files in a folder"},
		{"will it rain tomorrow", "get_forecast: Weather forecast for a city", "rent_car: Book a rental car for some days"},
	} {
		if n, f := sim(c.query, c.near), sim(c.query, c.far); n <= f {
			t.Errorf("%q: similarity to %q is %.3f, not above %.3f to %q", c.query, c.near, n, f, c.far)
		}
	}
	if v := fakellm.Embed("the", 16); slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
		t.Errorf("a text of stop words gives %v, want zeros", v)
	}
}
