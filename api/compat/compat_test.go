package compat_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/api/compat"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// serve mounts h's endpoints at their routes, as package api's route table does.
func serve(t *testing.T, h *compat.Handler) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", h.ChatCompletions)
	mux.HandleFunc("GET /v1/models", h.Models)
	mux.HandleFunc("POST /v1/responses", h.CreateResponse)
	mux.HandleFunc("GET /v1/responses/{id}", h.GetResponse)
	mux.HandleFunc("POST /v1/messages", h.Messages)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	method := http.MethodGet
	if body != "" {
		method, rd = http.MethodPost, strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestWithoutModel: without a Runner each endpoint that runs a turn answers 503 in
// its provider's error form with NoModel; the models listed are none; a response is
// not found without a store.
func TestWithoutModel(t *testing.T) {
	t.Parallel()
	srv := serve(t, compat.New(&compat.Options{NoModel: "no model here"}))
	for _, tc := range []struct {
		path, body string
		status     int
		want       string
	}{
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, 503, `"type": "server_error"`},
		{"/v1/responses", `{"input":"hi"}`, 503, `"code": "no_model"`},
		{"/v1/messages", `{"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, 503, `"type": "overloaded_error"`},
		{"/v1/models", "", 200, `"data": []`},
		{"/v1/responses/resp_x", "", 404, `no response \"resp_x\"`},
	} {
		status, body := post(t, srv.URL+tc.path, tc.body)
		if status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want %d with %s", tc.path, status, body, tc.status, tc.want)
		}
		if tc.status == 503 && !strings.Contains(body, "no model here") {
			t.Errorf("%s: %s does not say NoModel", tc.path, body)
		}
	}
}

// TestUnattendedTurn: a chat completion runs an unattended turn of the Runner over
// the request's messages: the call that needs approval is refused, the model told
// which endpoint cannot ask (the route's pattern); the Observer sees the call as a
// chat's; the answer is the model's.
func TestUnattendedTurn(t *testing.T) {
	t.Parallel()
	local := tool.NewLocal()
	if err := local.AddRaw("rm", "removes", json.RawMessage(`{"type":"object"}`), func(context.Context, json.RawMessage) (*tool.Result, error) {
		return tool.TextResult("removed"), nil
	}); err != nil {
		t.Fatal(err)
	}
	llmSrv := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "rm", Arguments: `{}`}}}, fakellm.Reply{Text: "Not allowed."}))
	model, err := openai.New("test", &openai.Options{BaseURL: llmSrv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	store := session.NewMemory()
	t.Cleanup(func() { store.Close() })
	runner := conversation.New(agent.New(model, store, &agent.Options{Tools: local}),
		&conversation.Options{NeedsApproval: func(c agent.Call) bool { return c.Name == "rm" }})
	var mu sync.Mutex
	var calls []conversation.Call
	srv := serve(t, compat.New(&compat.Options{Conversations: runner, Model: "m1",
		Observer: &conversation.Observer{OnCall: func(c conversation.Call) { mu.Lock(); calls = append(calls, c); mu.Unlock() }}}))
	status, body := post(t, srv.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"rm it"}]}`)
	if status != 200 || !strings.Contains(body, `"content": "Not allowed."`) || !strings.Contains(body, `"model": "m1"`) {
		t.Fatalf("%d %s", status, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || calls[0].Source != compat.Source || !calls[0].IsError ||
		!strings.Contains(calls[0].Result, "the user must approve rm, which /v1/chat/completions cannot ask for") {
		t.Fatalf("calls %+v", calls)
	}
	if list, _ := store.List(context.Background()); len(list) != 0 {
		t.Fatalf("the store has %d sessions", len(list))
	}
}
