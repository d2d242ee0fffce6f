package compat_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/api/compat"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/session"
)

// TestThreadUnsupported: without a session store a message thread cannot be kept:
// the request is refused as Anthropic refuses one it cannot keep, a 400
// invalid_request_error with error.details.error_code "thread_unsupported_request",
// on which the SDKs send the whole conversation again without a thread (which is
// answered); the model is not asked.
func TestThreadUnsupported(t *testing.T) {
	t.Parallel()
	llmSrv := fakellm.StartOpenAI(t, fakellm.Rules())
	model, err := openai.New("test", &openai.Options{BaseURL: llmSrv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	store := session.NewMemory()
	t.Cleanup(func() { store.Close() })
	srv := serve(t, compat.New(&compat.Options{Conversations: conversation.New(agent.New(model, store, nil), nil)}))
	send := func(thread string) (int, string) {
		t.Helper()
		body := `{"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]` + thread + `}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
		req.Header.Set("anthropic-beta", "message-threads-2026-08-12")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, thread := range []string{`{"type": "create"}`, `{"type": "continue", "previous_message_id": "msg_1"}`} {
		status, body := send(`, "thread": ` + thread)
		var e struct {
			Type  string
			Error struct {
				Type, Message string
				Details       struct {
					ErrorCode string `json:"error_code"`
				}
			}
		}
		if status != http.StatusBadRequest || json.Unmarshal([]byte(body), &e) != nil || e.Type != "error" ||
			e.Error.Type != "invalid_request_error" || e.Error.Details.ErrorCode != "thread_unsupported_request" ||
			!strings.Contains(e.Error.Message, "send the whole conversation without") {
			t.Errorf("thread %s: %d %s", thread, status, body)
		}
	}
	if n := len(llmSrv.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	if status, body := send(""); status != http.StatusOK || !strings.Contains(body, "You said: hi") {
		t.Errorf("without a thread: %d %s", status, body)
	}
}
