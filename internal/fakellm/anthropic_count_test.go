package fakellm_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// TestAnthropicCountTokens: POST /v1/messages/count_tokens answers the SDK's
// CountTokens with {"input_tokens"}: a quarter of the body's bytes, plus one; a
// request count_tokens would refuse (max_tokens, no anthropic-version, a bad
// message) is a 400 invalid_request_error; no reply is asked of the script.
func TestAnthropicCountTokens(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Rules())
	client := anthropicClient(t, srv)
	res, err := client.Messages.CountTokens(context.Background(), sdk.MessageCountTokensParams{
		Model:    "claude-test",
		Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("hi"))},
	})
	if err != nil || res.InputTokens <= 0 {
		t.Fatalf("%v %+v", err, res)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	post := func(body string, version bool) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages/count_tokens", strings.NewReader(body))
		if version {
			req.Header.Set("anthropic-version", "2023-06-01")
		}
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	body := `{"model": "m", "messages": [{"role": "user", "content": "hello there"}]}`
	status, got := post(body, true)
	var count struct {
		InputTokens int `json:"input_tokens"`
	}
	if status != 200 || json.Unmarshal([]byte(got), &count) != nil || count.InputTokens != len(body)/4+1 {
		t.Errorf("%d %s, want %d tokens", status, got, len(body)/4+1)
	}
	for _, tc := range []struct {
		body    string
		version bool
		want    string
	}{
		{`{"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}`, true, "max_tokens: Extra inputs are not permitted"},
		{body, false, "anthropic-version: header is required"},
		{`{"model": "m", "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x"}]}]}`, true, "tool_result"},
		{`{"messages": []}`, true, "model: Field required"},
	} {
		status, got := post(tc.body, tc.version)
		if status != 400 || !strings.Contains(got, `"invalid_request_error"`) || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %d %s, want 400 %q", tc.body, status, got, tc.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the script was asked %d times", n)
	}
}
