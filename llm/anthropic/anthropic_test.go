package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/anthropic"
	"github.com/switchboard-mcp/switchboard/llm/llmtest"
	"github.com/switchboard-mcp/switchboard/tool"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const testKey = "sk-ant-test-0123456789-secret"

// newModel returns a Model for baseURL with its own transport, whose idle
// connections are closed when the test ends (goleak would see them).
func newModel(t *testing.T, baseURL string, opts anthropic.Options) *anthropic.Model {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	opts.BaseURL = baseURL
	if opts.APIKey == "" {
		opts.APIKey = testKey
	}
	opts.HTTPClient = &http.Client{Transport: tr}
	m, err := anthropic.New("claude-test", &opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestStreamedText(t *testing.T) {
	const text = "Hello from the fake model — streamed in small pieces."
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: text, Chunks: 5}))
	m := newModel(t, srv.URL, anthropic.Options{})
	var rec llmtest.Recorder
	req := llmtest.UserSays("hi")
	req.System = "You are terse."
	res, err := m.Generate(context.Background(), req, rec.On)
	if err != nil {
		t.Fatal(err)
	}
	deltas := rec.Kind(llm.TextDelta)
	if len(deltas) < 5 {
		t.Errorf("got %d text deltas, want the text in pieces", len(deltas))
	}
	var joined strings.Builder
	for _, d := range deltas {
		joined.WriteString(d.Text)
	}
	if joined.String() != text || res.Message.Text != text {
		t.Errorf("deltas %q, text %q; want %q", joined.String(), res.Message.Text, text)
	}
	if res.Message.Role != llm.RoleAssistant || res.Stop != llm.StopEnd || res.Model != "claude-test" || len(res.Message.Calls) != 0 {
		t.Errorf("response = %+v", res)
	}
	got := srv.Requests()
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	r := got[0]
	if !r.Stream || r.Model != "claude-test" || r.MaxTokens != anthropic.DefaultMaxTokens || r.System != "You are terse." {
		t.Errorf("request: stream %v, model %q, max_tokens %d, system %q", r.Stream, r.Model, r.MaxTokens, r.System)
	}
	if r.Header.Get("x-api-key") != testKey || r.Header.Get("anthropic-version") == "" {
		t.Errorf("x-api-key and anthropic-version headers not sent as expected")
	}
}

func TestToolCalls(t *testing.T) {
	calls := []fakellm.Call{
		{ID: "toolu_1", Name: "weather", Arguments: `{"city":"Paris","units":"metric","days":3}`},
		{ID: "toolu_2", Name: "notes_put", Arguments: `{"key":"k","value":"a longer value, in pieces"}`},
		{ID: "toolu_3", Name: "clock", Arguments: `{}`},
	}
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: "Let me look.", Calls: calls, Chunks: 6}))
	m := newModel(t, srv.URL, anthropic.Options{})
	req := llmtest.UserSays("weather?")
	req.Tools = []tool.Tool{
		{Name: "weather", Description: "Forecast.", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)},
		{Name: "notes_put"},
		{Name: "clock"},
	}
	var rec llmtest.Recorder
	res, err := m.Generate(context.Background(), req, rec.On)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != llm.StopToolCalls || res.Message.Text != "Let me look." {
		t.Errorf("stop %q, text %q", res.Stop, res.Message.Text)
	}
	if len(res.Message.Calls) != len(calls) {
		t.Fatalf("calls = %+v", res.Message.Calls)
	}
	args := make([]strings.Builder, len(calls))
	pieces := make([]int, len(calls))
	for _, e := range rec.Kind(llm.CallDelta) {
		if e.Index < 0 || e.Index >= len(calls) {
			t.Fatalf("call delta index %d", e.Index)
		}
		if e.ID != "" && (e.ID != calls[e.Index].ID || e.Name != calls[e.Index].Name || args[e.Index].Len() > 0) {
			t.Errorf("call %d began as %q %q after %q", e.Index, e.ID, e.Name, args[e.Index].String())
		}
		if e.Arguments != "" {
			pieces[e.Index]++
		}
		args[e.Index].WriteString(e.Arguments)
	}
	for i, c := range calls {
		got := res.Message.Calls[i]
		if got.ID != c.ID || got.Name != c.Name || got.Arguments != c.Arguments {
			t.Errorf("call %d = %+v, want %+v", i, got, c)
		}
		if args[i].String() != c.Arguments {
			t.Errorf("call %d deltas = %q, want %q", i, args[i].String(), c.Arguments)
		}
	}
	if pieces[0] < 3 || pieces[1] < 3 {
		t.Errorf("arguments came in %v pieces, want several", pieces)
	}
	sent := srv.Requests()[0].Tools
	if len(sent) != 3 || sent[0].Name != "weather" || sent[0].Description != "Forecast." || sent[1].Description != "MCP tool: notes_put" {
		t.Errorf("tools sent = %+v", sent)
	}
	var schema map[string]any
	if err := json.Unmarshal(sent[2].Schema, &schema); err != nil || schema["type"] != "object" {
		t.Errorf("clock's input_schema = %s", sent[2].Schema)
	}
}

func TestUsage(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: "ok", InputTokens: 123, OutputTokens: 45}))
	m := newModel(t, srv.URL, anthropic.Options{})
	var rec llmtest.Recorder
	res, err := m.Generate(context.Background(), llmtest.UserSays("count"), rec.On)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 123, OutputTokens: 45}
	if res.Usage != want {
		t.Errorf("usage = %+v, want %+v", res.Usage, want)
	}
	reports := rec.Kind(llm.UsageReport)
	if len(reports) != 1 || reports[0].Usage != want {
		t.Errorf("usage events = %+v, want one with %+v", reports, want)
	}
}

func TestMaxTokens(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: "It was the best of", Stop: "max_tokens"}))
	m := newModel(t, srv.URL, anthropic.Options{MaxTokens: 100})
	req := llmtest.UserSays("a long story")
	req.MaxTokens = 17
	req.Model = "claude-other"
	zero := 0.0
	req.Temperature = &zero
	res, err := m.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != llm.StopMaxTokens || res.Message.Text != "It was the best of" {
		t.Errorf("stop %q, text %q", res.Stop, res.Message.Text)
	}
	sent := srv.Requests()[0]
	if sent.MaxTokens != 17 || sent.Model != "claude-other" {
		t.Errorf("max_tokens %d, model %q sent; want the request's 17 and claude-other", sent.MaxTokens, sent.Model)
	}
	var raw struct{ Temperature *float64 }
	if err := json.Unmarshal(sent.Raw, &raw); err != nil || raw.Temperature == nil || *raw.Temperature != 0 {
		t.Errorf("temperature 0 not sent: %s", sent.Raw)
	}
}

// A cut-off tool call (max_tokens in the middle of its input) keeps its arguments
// as the stream sent them, so that the agent answers with an error result.
func TestCutToolCall(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Calls: []fakellm.Call{{ID: "toolu_1", Name: "write", Arguments: `{"text":"unfinish`}}, Stop: "max_tokens"}))
	m := newModel(t, srv.URL, anthropic.Options{})
	res, err := m.Generate(context.Background(), llmtest.UserSays("write"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != llm.StopMaxTokens || len(res.Message.Calls) != 1 || res.Message.Calls[0].Arguments != `{"text":"unfinish` {
		t.Errorf("response = %+v", res)
	}
}

func TestHistory(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: "done"}))
	m := newModel(t, srv.URL, anthropic.Options{})
	png := []byte("\x89PNG fake image bytes")
	history := []llm.Message{
		{Role: llm.RoleUser, Text: "look things up"},
		{Role: llm.RoleAssistant, Text: "Two lookups.", Calls: []llm.Call{
			{ID: "toolu_a", Name: "search", Arguments: `{"q":"one"}`},
			{ID: "toolu_b", Name: "search", Arguments: `{"q":"two"}`},
		}},
		{Role: llm.RoleTool, CallID: "toolu_a", Name: "search", Result: tool.TextResult("found one")},
		{Role: llm.RoleTool, CallID: "toolu_b", Name: "search", Result: tool.ErrorResult("search failed: timeout")},
		{Role: llm.RoleAssistant, Calls: []llm.Call{{ID: "toolu_c", Name: "screenshot", Arguments: `not json`}}},
		{Role: llm.RoleTool, CallID: "toolu_c", Name: "screenshot", Result: &tool.Result{Content: []mcp.Content{
			&mcp.TextContent{Text: "the screen:"},
			&mcp.ImageContent{MIMEType: "image/png", Data: png},
		}}},
		{Role: llm.RoleUser, Text: "thanks"},
	}
	_, err := m.Generate(context.Background(), &llm.Request{Messages: history}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	want := []fakellm.Message{
		{Role: "user", Text: "look things up"},
		{Role: "assistant", Text: "Two lookups.", Calls: []fakellm.Call{
			{ID: "toolu_a", Name: "search", Arguments: `{"q":"one"}`},
			{ID: "toolu_b", Name: "search", Arguments: `{"q":"two"}`},
		}},
		{Role: "tool", CallID: "toolu_a", Text: "found one"},
		{Role: "tool", CallID: "toolu_b", Text: "search failed: timeout", IsError: true},
		{Role: "assistant", Calls: []fakellm.Call{{ID: "toolu_c", Name: "screenshot", Arguments: `{}`}}},
		{Role: "tool", CallID: "toolu_c", Text: "the screen:\n[image image/png]"},
		{Role: "user", Text: "thanks"},
	}
	if fmt.Sprintf("%+v", r.Messages) != fmt.Sprintf("%+v", want) {
		t.Errorf("messages the fake decoded:\n%+v\nwant\n%+v", r.Messages, want)
	}

	// On the wire: one user message holding both tool_result blocks, in order; the
	// image as an image block with base64 data. The request has no tools, so the
	// ones the history called are declared and may not be called (tool_choice none):
	// the API refuses tool blocks without tools, and the fake offers none.
	var raw struct {
		Messages []struct {
			Role    string
			Content json.RawMessage
		}
		Tools      []struct{ Name string }
		ToolChoice struct{ Type string } `json:"tool_choice"`
	}
	if err := json.Unmarshal(r.Raw, &raw); err != nil {
		t.Fatal(err)
	}
	if len(r.Tools) != 0 || len(raw.Tools) != 2 || raw.Tools[0].Name != "search" || raw.Tools[1].Name != "screenshot" || raw.ToolChoice.Type != "none" {
		t.Errorf("tools %+v, tool_choice %q; want search and screenshot, none (and none offered: %+v)", raw.Tools, raw.ToolChoice.Type, r.Tools)
	}
	roles := make([]string, len(raw.Messages))
	for i, m := range raw.Messages {
		roles[i] = m.Role
	}
	if strings.Join(roles, ",") != "user,assistant,user,assistant,user,user" {
		t.Fatalf("roles on the wire = %v", roles)
	}
	type block struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		IsError   bool   `json:"is_error"`
		Content   []struct {
			Type   string `json:"type"`
			Source struct {
				Type      string `json:"type"`
				MediaType string `json:"media_type"`
				Data      []byte `json:"data"`
			} `json:"source"`
		} `json:"content"`
	}
	var results []block
	if err := json.Unmarshal(raw.Messages[2].Content, &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 || results[0].Type != "tool_result" || results[0].ToolUseID != "toolu_a" || results[0].IsError ||
		results[1].ToolUseID != "toolu_b" || !results[1].IsError {
		t.Errorf("tool results message = %s", raw.Messages[2].Content)
	}
	var image []block
	if err := json.Unmarshal(raw.Messages[4].Content, &image); err != nil {
		t.Fatal(err)
	}
	if len(image) != 1 || len(image[0].Content) != 2 {
		t.Fatalf("image result message = %s", raw.Messages[4].Content)
	}
	src := image[0].Content[1].Source
	if image[0].Content[1].Type != "image" || src.Type != "base64" || src.MediaType != "image/png" || string(src.Data) != string(png) {
		t.Errorf("image block = %s", raw.Messages[4].Content)
	}
}

func TestRetry(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue(
		fakellm.Reply{Status: http.StatusTooManyRequests, ErrorMessage: "Number of request tokens has exceeded your per-minute rate limit"},
		fakellm.Reply{Status: 529},
		fakellm.Reply{Text: "third time lucky"},
	))
	m := newModel(t, srv.URL, anthropic.Options{})
	res, err := m.Generate(context.Background(), llmtest.UserSays("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Text != "third time lucky" {
		t.Errorf("text = %q", res.Message.Text)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("the fake got %d requests, want 3 (the 429, the 529, then the SDK's second retry)", n)
	}
}

// checkNoKey fails when the API key shows in any rendering of err.
func checkNoKey(t *testing.T, err error) {
	t.Helper()
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if strings.Contains(s, testKey) {
			t.Errorf("the API key shows in the error: %s", s)
		}
	}
}

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		status  int
		message string
		want    string
	}{
		{401, "invalid x-api-key", "authentication_error: invalid x-api-key"},
		{401, "invalid x-api-key " + testKey, "authentication_error: invalid x-api-key [api key]"},
		{500, "Internal server error", "api_error: Internal server error"},
		{529, "", "overloaded_error: Overloaded"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Status: c.status, ErrorMessage: c.message}))
			m := newModel(t, srv.URL, anthropic.Options{MaxRetries: -1})
			_, err := m.Generate(context.Background(), llmtest.UserSays("hi"), nil)
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want an *llm.Error", err)
			}
			if le.Provider != "anthropic" || le.BaseURL != srv.URL || le.Status != c.status || le.Message != c.want {
				t.Errorf("err = %#v", le)
			}
			want := fmt.Sprintf("anthropic model at %s: HTTP %d: %s", srv.URL, c.status, c.want)
			if err.Error() != want {
				t.Errorf("err = %q, want %q", err, want)
			}
			checkNoKey(t, err)
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests with MaxRetries -1, want 1", n)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	m := newModel(t, url, anthropic.Options{MaxRetries: -1})
	_, err = m.Generate(context.Background(), llmtest.UserSays("hi"), nil)
	var le *llm.Error
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want an *llm.Error", err)
	}
	if le.Status != 0 || le.BaseURL != url || !strings.Contains(le.Message, "connection refused") {
		t.Errorf("err = %#v", le)
	}
	checkNoKey(t, err)
}

// The backend reads no ANTHROPIC_* variable: the key is the one it was given, or none.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-the-environment")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: "ok"}))
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	m, err := anthropic.New("claude-test", &anthropic.Options{BaseURL: srv.URL, HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), llmtest.UserSays("hi"), nil); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	if h.Get("x-api-key") != "" || h.Get("authorization") != "" {
		t.Errorf("a credential was sent though none was given")
	}
}

func TestNewOptions(t *testing.T) {
	for _, c := range []struct {
		model string
		opts  *anthropic.Options
		want  string
	}{
		{"", nil, "anthropic: New: no model name: name the model to use"},
		{"m", &anthropic.Options{BaseURL: "localhost:8080"}, `anthropic: base URL "localhost:8080" is not an http(s) URL`},
		{"m", &anthropic.Options{MaxTokens: -1}, "anthropic: Options.MaxTokens is -1: it must be positive (0 means 4096)"},
	} {
		_, err := anthropic.New(c.model, c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("New(%q, %+v) = %v, want %q", c.model, c.opts, err, c.want)
		}
	}
	// nil options: Anthropic's API with the defaults, its tool search on.
	if m, err := anthropic.New("claude-sonnet-4-5", nil); err != nil || !m.NativeToolSearch() {
		t.Errorf("New with nil options: %v, native tool search %v", err, err == nil && m.NativeToolSearch())
	}
}

// generate runs Generate in a goroutine and waits for it, bounded, so that a hang
// fails the test instead of stalling it.
func generate(t *testing.T, ctx context.Context, m *anthropic.Model, req *llm.Request, on func(llm.Event)) (*llm.Response, error) {
	t.Helper()
	type result struct {
		res *llm.Response
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := m.Generate(ctx, req, on)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-time.After(30 * time.Second):
		t.Fatal("Generate did not return")
		return nil, nil
	}
}

// rawServer serves events as the real API may send them, then holds the stream
// open until the client leaves when hold is set.
func rawServer(t *testing.T, events string, hold bool) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, events)
		w.(http.Flusher).Flush()
		if hold {
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func sse(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		var ev struct{ Type string }
		if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Type == "" {
			panic("sse: not an event: " + l)
		}
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", ev.Type, l)
	}
	return b.String()
}

const (
	evStart     = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-real","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":1}}}`
	evPing      = `{"type": "ping"}`
	evTextStart = `{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`
	evText      = `{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%q}}`
	evStop      = `{"type":"content_block_stop","index":%d}`
	evDelta     = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`
	evEnd       = `{"type":"message_stop"}`
)

func TestCancelMidStream(t *testing.T) {
	url := rawServer(t, sse(evStart, fmt.Sprintf(evTextStart, 0), fmt.Sprintf(evText, 0, "first")), true)
	m := newModel(t, url, anthropic.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	_, err := generate(t, ctx, m, llmtest.UserSays("hi"), func(e llm.Event) {
		got = append(got, e.Text)
		cancel() // the server holds the stream open: only the cancel can end it
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var le *llm.Error
	if !errors.As(err, &le) || le.Status != 0 {
		t.Errorf("err = %#v, want an *llm.Error with status 0", err)
	}
	if len(got) != 1 || got[0] != "first" {
		t.Errorf("events before the cancel = %q", got)
	}
}

func TestCancelWhileWaiting(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: "late", Delay: time.Hour}))
	m := newModel(t, srv.URL, anthropic.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the fake holds the request.
		for len(srv.Requests()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := generate(t, ctx, m, llmtest.UserSays("hi"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// Streams the real API may send and the fake does not.
func TestRealStreams(t *testing.T) {
	thinking := `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`
	thinkingDelta := `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think."}}`
	signature := `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM"}}`
	overloaded := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	cases := []struct {
		name   string
		events string
		text   string
		err    string
	}{
		{
			name:   "pings everywhere",
			events: sse(evPing, evStart, evPing, fmt.Sprintf(evTextStart, 0), evPing, fmt.Sprintf(evText, 0, "Hi"), evPing, fmt.Sprintf(evText, 0, " there"), fmt.Sprintf(evStop, 0), evPing, evDelta, evEnd),
			text:   "Hi there",
		},
		{
			name:   "thinking first",
			events: sse(evStart, thinking, thinkingDelta, signature, fmt.Sprintf(evStop, 0), fmt.Sprintf(evTextStart, 1), fmt.Sprintf(evText, 1, "Answer."), fmt.Sprintf(evStop, 1), evDelta, evEnd),
			text:   "Answer.",
		},
		{
			name:   "error event",
			events: sse(evStart, fmt.Sprintf(evTextStart, 0), fmt.Sprintf(evText, 0, "Hi"), overloaded),
			err:    "anthropic model at URL: error event in the stream: overloaded_error: Overloaded",
		},
		{
			name:   "cut before message_stop",
			events: sse(evStart, fmt.Sprintf(evTextStart, 0), fmt.Sprintf(evText, 0, "Hi")),
			err:    "anthropic model at URL: the stream ended before message_stop",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := rawServer(t, c.events, false)
			m := newModel(t, url, anthropic.Options{MaxRetries: -1})
			var rec llmtest.Recorder
			res, err := generate(t, context.Background(), m, llmtest.UserSays("hi"), rec.On)
			if c.err != "" {
				var le *llm.Error
				if !errors.As(err, &le) || le.Status != 0 {
					t.Fatalf("err = %v, want an *llm.Error with status 0", err)
				}
				if want := strings.Replace(c.err, "URL", url, 1); err.Error() != want {
					t.Errorf("err = %q, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var deltas strings.Builder
			for _, e := range rec.Kind(llm.TextDelta) {
				deltas.WriteString(e.Text)
			}
			if res.Message.Text != c.text || deltas.String() != c.text {
				t.Errorf("text %q, deltas %q, want %q", res.Message.Text, deltas.String(), c.text)
			}
			want := llm.Usage{InputTokens: 15, OutputTokens: 7}
			if res.Usage != want || res.Stop != llm.StopEnd || res.Model != "claude-real" {
				t.Errorf("usage %+v, stop %q, model %q", res.Usage, res.Stop, res.Model)
			}
		})
	}
}

// fakellm.Rules drives a whole tool round trip through the backend: the call it
// reads from the user's text, then the answer it makes of the tool's result.
func TestRulesRoundTrip(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Rules())
	m := newModel(t, srv.URL, anthropic.Options{})
	history := []llm.Message{{Role: llm.RoleUser, Text: `call weather {"city":"Oslo"}`}}
	tools := []tool.Tool{{Name: "weather"}}
	res, err := m.Generate(context.Background(), &llm.Request{Messages: history, Tools: tools}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != llm.StopToolCalls || len(res.Message.Calls) != 1 || res.Message.Calls[0].Name != "weather" || res.Message.Calls[0].Arguments != `{"city":"Oslo"}` {
		t.Fatalf("first step = %+v", res)
	}
	c := res.Message.Calls[0]
	history = append(history, res.Message, llm.Message{Role: llm.RoleTool, CallID: c.ID, Name: c.Name, Result: tool.TextResult("rain")})
	res, err = m.Generate(context.Background(), &llm.Request{Messages: history}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != llm.StopEnd || res.Message.Text != "weather: rain" {
		t.Errorf("second step = %+v", res)
	}
}

// Deltas of open blocks may interleave; each piece goes to its own call.
func TestInterleavedCalls(t *testing.T) {
	use := `{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_%d","name":"t%d","input":{}}}`
	piece := `{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%q}}`
	toolStop := `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}`
	url := rawServer(t, sse(evStart,
		fmt.Sprintf(use, 0, 0, 0), fmt.Sprintf(piece, 0, `{"a":`),
		fmt.Sprintf(use, 1, 1, 1), fmt.Sprintf(piece, 1, `{"b":`),
		fmt.Sprintf(piece, 0, `1}`), fmt.Sprintf(piece, 1, `2}`),
		fmt.Sprintf(evStop, 0), fmt.Sprintf(evStop, 1), toolStop, evEnd), false)
	m := newModel(t, url, anthropic.Options{})
	var rec llmtest.Recorder
	res, err := generate(t, context.Background(), m, llmtest.UserSays("hi"), rec.On)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Call{{ID: "toolu_0", Name: "t0", Arguments: `{"a":1}`}, {ID: "toolu_1", Name: "t1", Arguments: `{"b":2}`}}
	if fmt.Sprint(res.Message.Calls) != fmt.Sprint(want) || res.Stop != llm.StopToolCalls {
		t.Errorf("calls %+v, stop %q; want %+v", res.Message.Calls, res.Stop, want)
	}
	var order []string
	for _, e := range rec.Kind(llm.CallDelta) {
		order = append(order, fmt.Sprintf("%d:%s%s", e.Index, e.ID, e.Arguments))
	}
	if got := strings.Join(order, " "); got != `0:toolu_0 0:{"a": 1:toolu_1 1:{"b": 0:1} 1:2}` {
		t.Errorf("call deltas = %s", got)
	}
}

// TestStopEvent: the stream's end is reported as an event with the stop reason,
// before the usage.
func TestStopEvent(t *testing.T) {
	for _, tt := range llmtest.StopCases("toolu_1") {
		srv := fakellm.StartAnthropic(t, fakellm.Queue(tt.Reply))
		m := newModel(t, srv.URL, anthropic.Options{})
		var rec llmtest.Recorder
		res, err := m.Generate(context.Background(), llmtest.UserSays("hi"), rec.On)
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.CheckStop(tt.Want); err != nil || res.Stop != tt.Want {
			t.Errorf("%q: response's stop %q; %v", tt.Want, res.Stop, err)
		}
	}
}
