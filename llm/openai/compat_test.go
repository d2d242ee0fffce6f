package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/llm/openai"
)

// startRaw serves h over loopback HTTP, closed when the test ends. It stands for the
// servers that are not OpenAI and not our fake.
func startRaw(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func writeEvent(w http.ResponseWriter, data string) {
	fmt.Fprintf(w, "data: %s\n\n", data)
	w.(http.Flusher).Flush()
}

// chunk is one chat.completion.chunk with the given choice fields (delta,
// finish_reason) and extra top-level fields (usage).
func chunk(choice, extra string) string {
	s := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"local-model","choices":[{"index":0,` + choice + `}]`
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

// TestCompatibleServers streams the way OpenAI-compatible servers do where they
// differ from OpenAI — arguments whole in one chunk, no call id, "stop" after tool
// calls, usage in the last content chunk or nowhere, every call at index 0, no
// [DONE] before the stream closes — and checks that the reply is still right.
func TestCompatibleServers(t *testing.T) {
	type call struct{ name, args string }
	for _, tc := range []struct {
		name   string
		events []string
		text   string
		calls  []call
		usage  llm.Usage
		stop   llm.StopReason
	}{
		{
			name: "Ollama: whole arguments, finish stop, usage in the last content chunk",
			events: []string{
				chunk(`"delta":{"role":"assistant","content":"Checking"},"finish_reason":null`, ""),
				chunk(`"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_ol1","index":0,"type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}]},"finish_reason":null`, ""),
				chunk(`"delta":{"role":"assistant","content":""},"finish_reason":"stop"`, `"usage":{"prompt_tokens":31,"completion_tokens":9,"total_tokens":40}`),
				"[DONE]",
			},
			text:  "Checking",
			calls: []call{{"weather", `{"city":"Oslo"}`}},
			usage: llm.Usage{InputTokens: 31, OutputTokens: 9},
			stop:  llm.StopToolCalls,
		},
		{
			name: "llama.cpp: no call ids, no usage, no [DONE]",
			events: []string{
				chunk(`"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}]},"finish_reason":null`, ""),
				chunk(`"delta":{"tool_calls":[{"index":1,"type":"function","function":{"name":"time","arguments":"{}"}}]},"finish_reason":null`, ""),
				chunk(`"delta":{},"finish_reason":"stop"`, ""),
			},
			calls: []call{{"weather", `{"city":"Rome"}`}, {"time", `{}`}},
			stop:  llm.StopToolCalls,
		},
		{
			name: "every call at index 0, told apart by id",
			events: []string{
				chunk(`"delta":{"tool_calls":[{"id":"a","index":0,"function":{"name":"weather","arguments":"{\"city\":\"Lima\"}"}}]},"finish_reason":null`, ""),
				chunk(`"delta":{"tool_calls":[{"id":"b","index":0,"function":{"name":"weather","arguments":"{\"city\":\"Quito\"}"}}]},"finish_reason":"tool_calls"`, ""),
				"[DONE]",
			},
			calls: []call{{"weather", `{"city":"Lima"}`}, {"weather", `{"city":"Quito"}`}},
			stop:  llm.StopToolCalls,
		},
		{
			name: "vLLM: usage chunk with choices null, text only",
			events: []string{
				chunk(`"delta":{"role":"assistant","content":""},"finish_reason":null`, `"usage":null`),
				chunk(`"delta":{"content":"Hi "},"finish_reason":null`, `"usage":null`),
				chunk(`"delta":{"content":"there."},"finish_reason":"stop"`, `"usage":null`),
				`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"local-model","choices":null,"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`,
				"[DONE]",
			},
			text:  "Hi there.",
			usage: llm.Usage{InputTokens: 5, OutputTokens: 2},
			stop:  llm.StopEnd,
		},
		{
			name: "arguments as a JSON object, not a string",
			events: []string{
				chunk(`"delta":{"tool_calls":[{"id":"call_o","index":0,"type":"function","function":{"name":"weather","arguments":{"city":"Bern"}}}]},"finish_reason":"tool_calls"`, ""),
			},
			calls: []call{{"weather", `{"city":"Bern"}`}},
			stop:  llm.StopToolCalls,
		},
		{
			name: "no finish_reason at all",
			events: []string{
				chunk(`"delta":{"content":"Bye."}`, ""),
			},
			text: "Bye.",
			stop: llm.StopEnd,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := startRaw(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/chat/completions" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				for _, e := range tc.events {
					writeEvent(w, e)
				}
			})
			m := newModel(t, url+"/v1", nil)
			var rec llmtest.Recorder
			res, err := m.Generate(context.Background(), llmtest.UserSays("hi"), rec.On)
			if err != nil {
				t.Fatal(err)
			}
			if res.Message.Text != tc.text || res.Stop != tc.stop || res.Usage != tc.usage || res.Model != "local-model" {
				t.Errorf("text %q, stop %q, usage %+v, model %q; want %q, %q, %+v, local-model",
					res.Message.Text, res.Stop, res.Usage, res.Model, tc.text, tc.stop, tc.usage)
			}
			if len(res.Message.Calls) != len(tc.calls) {
				t.Fatalf("calls = %+v, want %d", res.Message.Calls, len(tc.calls))
			}
			ids := map[string]bool{}
			for i, want := range tc.calls {
				got := res.Message.Calls[i]
				if got.Name != want.name || got.Arguments != want.args {
					t.Errorf("call %d = %+v, want %s %s", i, got, want.name, want.args)
				}
				if got.ID == "" || ids[got.ID] {
					t.Errorf("call %d id %q: want a unique id, made up when the server sent none", i, got.ID)
				}
				ids[got.ID] = true
			}
			starts := 0
			for _, e := range rec.Kind(llm.CallDelta) {
				if e.ID != "" {
					starts++
					if e.ID != res.Message.Calls[e.Index].ID {
						t.Errorf("event id %q, call %d id %q", e.ID, e.Index, res.Message.Calls[e.Index].ID)
					}
				}
			}
			if starts != len(tc.calls) {
				t.Errorf("%d call start events, want %d", starts, len(tc.calls))
			}
			if tc.usage != (llm.Usage{}) && len(rec.Kind(llm.UsageReport)) != 1 {
				t.Errorf("usage events: %+v", rec.Kind(llm.UsageReport))
			}
		})
	}
}

// TestStreamErrorEvent: a server that reports an error inside the stream (OpenAI
// and vLLM do: a data event with an "error" object) gives an *llm.Error with its message.
func TestStreamErrorEvent(t *testing.T) {
	url := startRaw(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, chunk(`"delta":{"content":"Hal"},"finish_reason":null`, ""))
		writeEvent(w, `{"error":{"message":"model overloaded mid-answer","type":"server_error"}}`)
	})
	m := newModel(t, url+"/v1", nil)
	_, err := m.Generate(context.Background(), llmtest.UserSays("hi"), nil)
	var le *llm.Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, "model overloaded mid-answer") || le.BaseURL != url+"/v1" {
		t.Fatalf("err = %v, want an *llm.Error with the server's message", err)
	}
}

// TestStreamCut: a server that dies mid-stream (the connection cut, no clean end)
// is an error, not a short answer.
func TestStreamCut(t *testing.T) {
	url := startRaw(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, chunk(`"delta":{"content":"Hal"},"finish_reason":null`, ""))
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	m := newModel(t, url+"/v1", func(o *openai.Options) { o.MaxRetries = -1 })
	_, err := m.Generate(context.Background(), llmtest.UserSays("hi"), nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Status != 0 {
		t.Fatalf("err = %v, want an *llm.Error with status 0", err)
	}
}

// TestNotAStream: a server that answers a streamed request with one JSON completion
// is read all the same; one that answers with something else is an error that says
// so, not an empty answer.
func TestNotAStream(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
		text, calls, err        string
	}{
		{
			name:        "a chat.completion object",
			contentType: "application/json",
			body: `{"id":"c1","object":"chat.completion","created":1,"model":"local-model","choices":[{"index":0,"message":{"role":"assistant","content":"Sure.",` +
				`"tool_calls":[{"id":"call_j","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Nice\"}"}}]},"finish_reason":"tool_calls"}],` +
				`"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`,
			text:  "Sure.",
			calls: `weather {"city":"Nice"}`,
		},
		{name: "an error object with status 200", contentType: "application/json", body: `{"error":{"message":"model not loaded"}}`, err: "model not loaded"},
		{name: "other JSON", contentType: "application/json", body: `{"status":"ok"}`, err: "not a chat completion"},
		{name: "an HTML page", contentType: "text/html", body: "<html>Sign in</html>", err: "no chat completion chunks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := startRaw(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				fmt.Fprint(w, tc.body)
			})
			m := newModel(t, url+"/v1", nil)
			var rec llmtest.Recorder
			res, err := m.Generate(context.Background(), llmtest.UserSays("hi"), rec.On)
			if tc.err != "" {
				var le *llm.Error
				if !errors.As(err, &le) || !strings.Contains(le.Message, tc.err) {
					t.Fatalf("err = %v, want an *llm.Error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var calls []string
			for _, c := range res.Message.Calls {
				calls = append(calls, c.Name+" "+c.Arguments)
			}
			if res.Message.Text != tc.text || strings.Join(calls, ";") != tc.calls || res.Stop != llm.StopToolCalls || res.Usage.OutputTokens != 4 {
				t.Fatalf("response = %+v", res)
			}
			if len(rec.Kind(llm.TextDelta)) != 1 || len(rec.Kind(llm.CallDelta)) != 1 {
				t.Errorf("events = %+v, want the text and the call once each", rec.Events)
			}
		})
	}
}

// TestErrorBodies: error statuses from servers whose bodies are not OpenAI's error
// object still give their message.
func TestErrorBodies(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
		status           int
	}{
		{"vLLM", `{"object":"error","message":"The model 'x' does not exist.","type":"NotFoundError","param":null,"code":404}`, "The model 'x' does not exist.", 404},
		{"FastAPI", `{"detail":"Not Found"}`, "Not Found", 404},
		{"error as a string", `{"error":"model 'x' not found, try pulling it first"}`, "model 'x' not found, try pulling it first", 404},
		{"plain text", "upstream connect error\n", "upstream connect error", 502},
		{"empty", "", "Bad Request", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := startRaw(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			})
			m := newModel(t, url+"/v1", func(o *openai.Options) { o.MaxRetries = -1 })
			_, err := m.Generate(context.Background(), llmtest.UserSays("hi"), nil)
			var le *llm.Error
			if !errors.As(err, &le) || le.Status != tc.status || le.Message != tc.want {
				t.Fatalf("err = %#v, want status %d and message %q", le, tc.status, tc.want)
			}
		})
	}
}
