package api_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/switchboard-mcp/switchboard/api"
)

// TestMessagesCountTokens: the official client's CountTokens is answered by the
// configured Anthropic backend's own count (the fake's: a quarter of the request's
// bytes), of the system prompt, messages and tools the client sent, more for more;
// with another backend it is refused in Anthropic's form, saying why.
func TestMessagesCountTokens(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, anthropic: true, opts: api.Options{Token: "secret"}})
	ctx := chatCtx(t)
	c := anthropicClient(e, "secret")
	params := anthropic.MessageCountTokensParams{
		Model:    "claude-any",
		System:   anthropic.MessageCountTokensParamsSystemUnion{OfString: anthropic.String("Be brief.")},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))},
		Tools: []anthropic.MessageCountTokensToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        "lookup_order",
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"order": map[string]any{"type": "string"}}},
		}}},
	}
	small, err := c.Messages.CountTokens(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(strings.Repeat("many words ", 100)))}
	big, err := c.Messages.CountTokens(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if small.InputTokens <= 0 || big.InputTokens < small.InputTokens+250 {
		t.Errorf("counted %d, then %d for 1100 more bytes", small.InputTokens, big.InputTokens)
	}
	if n := len(e.fake.Requests()); n != 0 {
		t.Errorf("the model answered %d messages: counting is no turn", n)
	}
	e.do("POST", "/v1/messages/count_tokens", `{"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}`).
		want(t, 400, `"type": "invalid_request_error"`, "max_tokens: Extra inputs are not permitted")

	openAI := start(t, setup{model: true})
	other := anthropicClient(openAI, "unused")
	_, err = other.Messages.CountTokens(ctx, params)
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest || ae.Type() != "invalid_request_error" ||
		!strings.Contains(ae.RawJSON(), "only an Anthropic backend") {
		t.Errorf("counting with an OpenAI backend: %v", err)
	}
}

// TestMessagesRouteErrors: under /v1/messages every error is in Anthropic's form, a
// path no route takes (404 not_found_error) and a method the path does not take (405,
// with Allow) included, with x-api-key taken as the key there too (a wrong one is
// 401 authentication_error); under /v1/responses they are in OpenAI's.
func TestMessagesRouteErrors(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, opts: api.Options{Token: "secret"}})
	ctx := chatCtx(t)
	var ae *anthropic.Error
	for _, tc := range []struct {
		key, method, path string
		status            int
		typ, msg          string
	}{
		{"secret", http.MethodPost, "v1/messages/batches", http.StatusNotFound, "not_found_error", "no endpoint POST /v1/messages/batches"},
		{"secret", http.MethodGet, "v1/messages", http.StatusMethodNotAllowed, "invalid_request_error", "this endpoint takes POST"},
		{"secret", http.MethodGet, "v1/messages/count_tokens", http.StatusMethodNotAllowed, "invalid_request_error", "this endpoint takes POST"},
		{"wrong", http.MethodPost, "v1/messages/batches", http.StatusUnauthorized, "authentication_error", "bearer token"},
	} {
		var out map[string]any
		c := anthropicClient(e, tc.key)
		err := c.Execute(ctx, tc.method, tc.path, map[string]any{}, &out)
		if !errors.As(err, &ae) || ae.StatusCode != tc.status || string(ae.Type()) != tc.typ || !strings.Contains(ae.RawJSON(), tc.msg) {
			t.Errorf("%s %s: %v, want %d %s %q", tc.method, tc.path, err, tc.status, tc.typ, tc.msg)
			continue
		}
		if tc.status == http.StatusMethodNotAllowed && ae.Response.Header.Get("Allow") != "POST" {
			t.Errorf("%s %s: Allow %q", tc.method, tc.path, ae.Response.Header.Get("Allow"))
		}
	}
	e.do("GET", "/v1/responses/resp_x/output_items", nil).want(t, 404, `"type": "invalid_request_error"`, `"code": "not_found"`, `"param": null`)
	e.do("PATCH", "/v1/responses/resp_x", nil).want(t, 405, `"type": "invalid_request_error"`, `"code": "method_not_allowed"`)
	e.do("GET", "/v1/nothing", nil).want(t, 404, `"error": {`, `"code": "not_found"`)
}
