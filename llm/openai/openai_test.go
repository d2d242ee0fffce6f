package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/tool"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const testKey = "sk-test-SECRET-4242"

// newModel returns a Model for the fake at url, with a client whose idle connections
// are closed when the test ends (goleak would see their goroutines otherwise).
func newModel(t *testing.T, url string, edit func(*openai.Options)) *openai.Model {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	opts := openai.Options{BaseURL: url, APIKey: testKey, HTTPClient: &http.Client{Transport: tr}}
	if edit != nil {
		edit(&opts)
	}
	m, err := openai.New("fake-model", &opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model string
		opts  *openai.Options
		want  string
	}{
		{"no model", "", &openai.Options{BaseURL: "http://127.0.0.1:1/v1"}, "openai: New: no model name: name the model to use"},
		{"bad URL", "m", &openai.Options{BaseURL: "localhost:11434"}, "not an http(s) URL"},
		{"bad retries", "m", &openai.Options{MaxRetries: -2}, "MaxRetries -2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openai.New(tc.model, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: err = %v, want it to say %q", err, tc.want)
			}
		})
	}
	if _, err := openai.New("gpt-5", nil); err != nil {
		t.Fatalf("New with a model and nil options: %v", err)
	}
}

func TestStreamedText(t *testing.T) {
	answer := "Hello, streamed world — ünïcödé and more text than one chunk."
	fake := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Text: answer, Chunks: 5, InputTokens: 11, OutputTokens: 7}))
	m := newModel(t, fake.URL, nil)
	var rec llmtest.Recorder
	req := llmtest.UserSays("hi")
	req.System = "Be terse."
	res, err := m.Generate(context.Background(), req, rec.On)
	if err != nil {
		t.Fatal(err)
	}
	deltas := rec.Kind(llm.TextDelta)
	if len(deltas) < 2 {
		t.Fatalf("got %d text deltas, want the answer in several pieces", len(deltas))
	}
	var joined strings.Builder
	for _, e := range deltas {
		joined.WriteString(e.Text)
	}
	if joined.String() != answer || res.Message.Text != answer {
		t.Fatalf("deltas %q, message %q; want %q", joined.String(), res.Message.Text, answer)
	}
	if res.Message.Role != llm.RoleAssistant || len(res.Message.Calls) != 0 || res.Stop != llm.StopEnd {
		t.Fatalf("response = %+v, want an assistant text answer that ended", res)
	}
	if res.Model != "fake-model" {
		t.Errorf("Model = %q, want the model the server named", res.Model)
	}
	want := llm.Usage{InputTokens: 11, OutputTokens: 7}
	if res.Usage != want {
		t.Errorf("Usage = %+v, want %+v", res.Usage, want)
	}
	usage := rec.Kind(llm.UsageReport)
	if len(usage) != 1 || usage[0].Usage != want || rec.Events[len(rec.Events)-1].Kind != llm.UsageReport {
		t.Errorf("usage events = %+v, want one, last, with %+v", usage, want)
	}

	got := fake.Requests()[0]
	if !got.Stream || got.Model != "fake-model" || got.System != "Be terse." || len(got.Messages) != 1 || got.Messages[0].Text != "hi" {
		t.Errorf("the fake got %+v", got)
	}
	if h := got.Header.Get("Authorization"); h != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the key as a bearer token", h)
	}
	var body struct {
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(got.Raw, &body); err != nil || !body.StreamOptions.IncludeUsage {
		t.Errorf("stream_options.include_usage not sent: %s", got.Raw)
	}
}

func TestNoKeyNoAuthorization(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	fake := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Text: "ok"}))
	m := newModel(t, fake.URL, func(o *openai.Options) { o.APIKey = "" })
	if _, err := m.Generate(context.Background(), llmtest.UserSays("hi"), nil); err != nil {
		t.Fatal(err)
	}
	if h := fake.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Fatalf("Authorization = %q, want none: the key comes from Options only, never OPENAI_API_KEY", h)
	}
}

func TestToolCalls(t *testing.T) {
	calls := []fakellm.Call{
		{ID: "call_a", Name: "weather", Arguments: `{"city": "Zürich", "units": "metric"}`},
		{ID: "call_b", Name: "time", Arguments: `{"zone": "Europe/Zurich"}`},
		{ID: "call_c", Name: "noargs", Arguments: `{}`},
	}
	fake := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Text: "Let me look.", Calls: calls, Chunks: 4}))
	m := newModel(t, fake.URL, nil)
	var rec llmtest.Recorder
	req := llmtest.UserSays("weather and time?")
	req.Tools = []tool.Tool{
		{Name: "weather", Description: "Weather of a city.", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)},
		{Name: "time", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "noargs", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}
	res, err := m.Generate(context.Background(), req, rec.On)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != llm.StopToolCalls || res.Message.Text != "Let me look." {
		t.Fatalf("Stop = %q, text %q", res.Stop, res.Message.Text)
	}
	if len(res.Message.Calls) != len(calls) {
		t.Fatalf("got %d calls, want %d: %+v", len(res.Message.Calls), len(calls), res.Message.Calls)
	}
	// Rebuild the calls from the events alone: ID and name first, then the pieces.
	rebuilt := map[int]*llm.Call{}
	pieces := 0
	for _, e := range rec.Kind(llm.CallDelta) {
		c, ok := rebuilt[e.Index]
		if !ok {
			if e.ID == "" || e.Name == "" {
				t.Fatalf("first event of call %d has no id or name: %+v", e.Index, e)
			}
			c = &llm.Call{ID: e.ID, Name: e.Name}
			rebuilt[e.Index] = c
		}
		c.Arguments += e.Arguments
		if e.Arguments != "" {
			pieces++
		}
	}
	if pieces <= len(calls) {
		t.Errorf("got %d argument pieces, want the arguments in chunks", pieces)
	}
	for i, want := range calls {
		got := res.Message.Calls[i]
		if got.ID != want.ID || got.Name != want.Name || got.Arguments != want.Arguments {
			t.Errorf("call %d = %+v, want %+v", i, got, want)
		}
		if ev := rebuilt[i]; ev == nil || *ev != got {
			t.Errorf("call %d from events = %+v, want %+v", i, ev, got)
		}
	}
	sent := fake.Requests()[0].Tools
	if len(sent) != 3 || sent[0].Name != "weather" || sent[0].Description != "Weather of a city." || sent[1].Description == "" {
		t.Errorf("tools sent = %+v, want format's definitions (descriptions filled in)", sent)
	}
}

func TestMaxTokens(t *testing.T) {
	fake := fakellm.StartOpenAI(t, fakellm.Queue(
		fakellm.Reply{Text: "It was the best of", Stop: "max_tokens"},
		fakellm.Reply{Text: "ok"},
	))
	m := newModel(t, fake.URL, func(o *openai.Options) { o.MaxTokens = 100 })
	req := llmtest.UserSays("tell me a story")
	req.MaxTokens = 5
	res, err := m.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != llm.StopMaxTokens || res.Message.Text != "It was the best of" {
		t.Fatalf("Stop = %q, text %q; want max_tokens and the text so far", res.Stop, res.Message.Text)
	}
	if _, err := m.Generate(context.Background(), llmtest.UserSays("again"), nil); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	if reqs[0].MaxTokens != 5 || reqs[1].MaxTokens != 100 {
		t.Errorf("max tokens sent = %d, %d; want the request's 5, then the option's 100", reqs[0].MaxTokens, reqs[1].MaxTokens)
	}
	// Not OpenAI's host: the field every compatible server reads.
	if !bytes.Contains(reqs[0].Raw, []byte(`"max_tokens":5`)) || bytes.Contains(reqs[0].Raw, []byte("max_completion_tokens")) {
		t.Errorf("body = %s, want max_tokens", reqs[0].Raw)
	}
}

func TestMalformedArgumentsKept(t *testing.T) {
	bad := `{"city": "Paris", ` // cut short, as a model may send it
	fake := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Calls: []fakellm.Call{{ID: "call_1", Name: "weather", Arguments: bad}}}))
	m := newModel(t, fake.URL, nil)
	res, err := m.Generate(context.Background(), llmtest.UserSays("weather"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Message.Calls) != 1 || res.Message.Calls[0].Arguments != bad {
		t.Fatalf("calls = %+v, want the arguments %q as sent", res.Message.Calls, bad)
	}
}

func TestHistory(t *testing.T) {
	fake := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Text: "done"}))
	m := newModel(t, fake.URL, nil)
	img := &tool.Result{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}}
	req := &llm.Request{
		System: "sys",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Text: "do three things"},
			{Role: llm.RoleAssistant, Calls: []llm.Call{
				{ID: "c1", Name: "echo", Arguments: `{"text":"x"}`},
				{ID: "c2", Name: "fail", Arguments: `{}`},
				{ID: "c3", Name: "shot", Arguments: ``},
			}},
			{Role: llm.RoleTool, CallID: "c1", Name: "echo", Result: tool.TextResult("x")},
			{Role: llm.RoleTool, CallID: "c2", Name: "fail", Result: tool.ErrorResult("disk full")},
			{Role: llm.RoleTool, CallID: "c3", Name: "shot", Result: img},
			{Role: llm.RoleAssistant, Text: "Done: x."},
			{Role: llm.RoleUser, Text: "thanks"},
		},
	}
	if _, err := m.Generate(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	got := fake.Requests()[0]
	want := []fakellm.Message{
		{Role: "user", Text: "do three things"},
		{Role: "assistant", Calls: []fakellm.Call{
			{ID: "c1", Name: "echo", Arguments: `{"text":"x"}`},
			{ID: "c2", Name: "fail", Arguments: `{}`},
			{ID: "c3", Name: "shot", Arguments: `{}`},
		}},
		{Role: "tool", CallID: "c1", Text: "x"},
		{Role: "tool", CallID: "c2", Text: "Error: disk full", IsError: true},
		{Role: "tool", CallID: "c3", Text: "[Image: image/png]"},
		{Role: "assistant", Text: "Done: x."},
		{Role: "user", Text: "thanks"},
	}
	if got.System != "sys" {
		t.Errorf("System = %q", got.System)
	}
	if g, w := mustJSON(t, got.Messages), mustJSON(t, want); g != w {
		t.Errorf("messages at the fake:\n got %s\nwant %s", g, w)
	}
	// The API reference: an assistant message's content may be null when it has tool_calls.
	var body struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(got.Raw, &body); err != nil {
		t.Fatal(err)
	}
	if roles := rolesOf(body.Messages); roles != "system user assistant tool tool tool assistant user" {
		t.Errorf("roles = %s", roles)
	}
	if c := string(body.Messages[2]["content"]); c != "null" {
		t.Errorf("assistant content with tool calls = %s, want null", c)
	}
}

func rolesOf(msgs []map[string]json.RawMessage) string {
	var roles []string
	for _, m := range msgs {
		var r string
		json.Unmarshal(m["role"], &r)
		roles = append(roles, r)
	}
	return strings.Join(roles, " ")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRetry429(t *testing.T) {
	fake := fakellm.StartOpenAI(t, fakellm.Queue(
		fakellm.Reply{Status: http.StatusTooManyRequests, ErrorMessage: "Rate limit reached"},
		fakellm.Reply{Text: "after the wait"},
	))
	m := newModel(t, fake.URL, nil)
	res, err := m.Generate(context.Background(), llmtest.UserSays("hi"), nil)
	if err != nil {
		t.Fatalf("Generate: %v; want the SDK to retry the 429", err)
	}
	if res.Message.Text != "after the wait" || len(fake.Requests()) != 2 {
		t.Fatalf("text %q after %d requests; want the second reply after 2", res.Message.Text, len(fake.Requests()))
	}
}

func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int
		message  string
		retries  int
		requests int
	}{
		{"unauthorized", http.StatusUnauthorized, "Incorrect API key provided: sk-test-****4242.", 0, 1},
		{"server error, no retries", http.StatusInternalServerError, "The server had an error", -1, 1},
		{"server error, retried", http.StatusInternalServerError, "The server had an error", 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := fakellm.StartOpenAI(t, func(fakellm.Request) fakellm.Reply {
				return fakellm.Reply{Status: tc.status, ErrorMessage: tc.message}
			})
			var logs bytes.Buffer
			m := newModel(t, fake.URL, func(o *openai.Options) {
				o.MaxRetries = tc.retries
				o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			})
			_, err := m.Generate(context.Background(), llmtest.UserSays("hi"), nil)
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if le.Provider != "openai" || le.Status != tc.status || le.BaseURL != fake.URL || le.Message != tc.message {
				t.Errorf("error = %+v, want status %d, base URL %s, message %q", le, tc.status, fake.URL, tc.message)
			}
			if n := len(fake.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if !strings.Contains(logs.String(), "status=") {
				t.Errorf("log = %q, want the status logged", logs.String())
			}
			for what, s := range map[string]string{"error": err.Error(), "log": logs.String(), "%+v": fmtAll(err)} {
				if strings.Contains(s, testKey) {
					t.Errorf("the API key appears in the %s: %s", what, s)
				}
			}
		})
	}
}

// TestKeyEchoedByServer: a server that repeats the whole key in its error message
// (OpenAI masks it; not every compatible server does) does not get it into ours.
func TestKeyEchoedByServer(t *testing.T) {
	fake := fakellm.StartOpenAI(t, fakellm.Queue(fakellm.Reply{Status: http.StatusUnauthorized, ErrorMessage: "bad key " + testKey + " for this server"}))
	m := newModel(t, fake.URL, nil)
	_, err := m.Generate(context.Background(), llmtest.UserSays("hi"), nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Status != http.StatusUnauthorized {
		t.Fatalf("err = %v, want a 401 *llm.Error", err)
	}
	if s := fmtAll(err); strings.Contains(s, testKey) || !strings.Contains(s, "bad key [key] for this server") {
		t.Fatalf("error = %q, want the server's message with the key replaced", s)
	}
}

func fmtAll(err error) string {
	var b strings.Builder
	for e := err; e != nil; e = errors.Unwrap(e) {
		b.WriteString(e.Error())
		b.WriteString("\n")
	}
	return b.String()
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	m := newModel(t, url, func(o *openai.Options) { o.MaxRetries = -1 })
	_, err = m.Generate(context.Background(), llmtest.UserSays("hi"), nil)
	var le *llm.Error
	if !errors.As(err, &le) {
		t.Fatalf("err = %v (%T), want *llm.Error", err, err)
	}
	if le.Status != 0 || le.BaseURL != url || !strings.Contains(le.Message, "connection refused") {
		t.Fatalf("error = %+v, want status 0, the base URL and 'connection refused'", le)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Fatalf("the key appears in %q", err)
	}
}

// TestCancelMidStream cancels while the server is between two chunks: Generate
// returns ctx's error without waiting for the server, and (TestMain) leaves no
// goroutine behind.
func TestCancelMidStream(t *testing.T) {
	srv := startRaw(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, `{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}`)
		<-r.Context().Done() // a model that stalls mid-answer
	})
	m := newModel(t, srv+"/v1", nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rec llmtest.Recorder
	_, err := m.Generate(ctx, llmtest.UserSays("hi"), func(e llm.Event) {
		rec.On(e)
		if e.Kind == llm.TextDelta {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if len(rec.Kind(llm.TextDelta)) != 1 {
		t.Fatalf("events = %+v, want the one delta before the cancel", rec.Events)
	}
}

func TestCancelBeforeAnswer(t *testing.T) {
	started := make(chan struct{})
	fake := fakellm.StartOpenAI(t, func(fakellm.Request) fakellm.Reply {
		close(started)
		return fakellm.Reply{Text: "too late", Delay: 1 << 40}
	})
	m := newModel(t, fake.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	if _, err := m.Generate(ctx, llmtest.UserSays("hi"), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestStopEvent: on Chat Completions and on the Responses API, the stream's end is
// reported as an event with the stop reason, before the usage.
func TestStopEvent(t *testing.T) {
	for _, api := range []string{openai.APIChat, openai.APIResponses} {
		for _, tt := range llmtest.StopCases("call_1") {
			fake := fakellm.StartOpenAI(t, fakellm.Queue(tt.Reply))
			m := newModel(t, fake.URL, func(o *openai.Options) { o.API = api })
			var rec llmtest.Recorder
			res, err := m.Generate(context.Background(), llmtest.UserSays("hi"), rec.On)
			if err != nil {
				t.Fatal(err)
			}
			if err := rec.CheckStop(tt.Want); err != nil || res.Stop != tt.Want {
				t.Errorf("%s, %q: response's stop %q; %v", api, tt.Want, res.Stop, err)
			}
		}
	}
}
