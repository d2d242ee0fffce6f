// Package openai is the [llm.Model] for any OpenAI-compatible Chat Completions
// endpoint — OpenAI itself, Ollama, vLLM, LM Studio, OpenRouter, llama.cpp's server —
// and, with Options.API "responses", for OpenAI's Responses API with its native
// tool search (responses.go); built on the official SDK, github.com/openai/openai-go, which brings transport,
// retries on 429 and 5xx with backoff, and the server-sent event stream.
//
//	m, err := openai.New("qwen3:8b", &openai.Options{
//		BaseURL: "http://localhost:11434/v1", // Ollama; nil Options or empty means OpenAI's
//		APIKey:  os.Getenv(cfg.APIKeyEnv),    // empty sends no Authorization header
//	})
//	res, err := m.Generate(ctx, &llm.Request{Messages: history, Tools: tools}, onEvent)
//
// Tool definitions, the assistant's calls in the history and tool results are
// written by the format package (format.OpenAI) and handed to the SDK as raw JSON,
// so there is one converter. Every request streams (with
// stream_options.include_usage) and the reply is accumulated as it arrives.
//
// The SDK's client reads OPENAI_API_KEY, OPENAI_BASE_URL and other OPENAI_*
// variables from the environment; this package does not use that client, so the key
// is only ever the one in Options (read from the variable the config names).
package openai

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/internal/baseurl"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/tool"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configures a Model; nil, and every zero field, is a useful default.
type Options struct {
	// BaseURL is the API's base, up to and including /v1 (the SDK appends
	// /chat/completions): DefaultBaseURL when empty.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer …"; empty sends none (local servers).
	// It never appears in errors or logs.
	APIKey string
	// MaxTokens bounds replies when Request.MaxTokens is 0; 0 leaves it to the server.
	MaxTokens int
	// MaxTokensParam is the name Chat Completions requests give that bound:
	// ParamMaxCompletionTokens, which OpenAI takes (its reasoning models refuse the
	// other), or ParamMaxTokens, the deprecated name that every compatible server
	// reads. Empty picks by host: OpenAI's own (and Azure OpenAI's) get
	// max_completion_tokens, every other max_tokens (isOpenAIHost). The Responses
	// API has one name, max_output_tokens.
	MaxTokensParam string
	// MaxRetries is how often the SDK retries a request that failed with 408, 409,
	// 429, 5xx or a connection error: 0 means the SDK's default (2), -1 none.
	MaxRetries int
	// HTTPClient sends the requests; nil means a client of our own with
	// http.DefaultTransport's settings and, as the SDK's default client has, a
	// 10-minute bound on waiting for the response headers.
	HTTPClient *http.Client
	// API is the OpenAI API the Model speaks: "chat" (or empty), Chat Completions,
	// which OpenAI and every compatible server have; or "responses", OpenAI's
	// Responses API (POST /v1/responses, responses.go), which has OpenAI's own tool
	// search (NativeToolSearch reports true only here).
	API string
	// Logger, when set, gets one debug record per HTTP error status (before a retry
	// too), with the base URL, status and attempt, never headers or bodies; and a
	// warning for each tool left out of requests because the API would refuse its
	// definition (once per tool).
	Logger *slog.Logger
}

// Model is an OpenAI-compatible chat model. It is safe for concurrent use.
type Model struct {
	model   string // sent with every request unless Request.Model names another
	opts    Options
	baseURL string
	chat    sdk.ChatCompletionService
	tools   llm.Definitions
	// responses and rtools are the Responses API's service and tool definitions,
	// used when opts.API is APIResponses.
	responses responses.ResponseService
	rtools    llm.Definitions
	// completionTokens: send max_completion_tokens instead of max_tokens.
	completionTokens bool
}

var (
	_ llm.Model          = (*Model)(nil)
	_ llm.NativeSearcher = (*Model)(nil)
)

// The names of the token bound that Options.MaxTokensParam chooses between.
const (
	ParamMaxCompletionTokens = "max_completion_tokens"
	ParamMaxTokens           = "max_tokens"
)

// The APIs Options.API names.
const (
	APIChat      = "chat"
	APIResponses = "responses"
)

// NativeToolSearch implements llm.NativeSearcher: true with the Responses API.
// OpenAI's tool search (a {"type": "tool_search"} tool, functions with
// "defer_loading": true, and tool_search_call / tool_search_output items to send
// back) exists only there; Chat Completions, which this package speaks by default to
// OpenAI and every compatible server, has none, so the agent keeps Switchboard's own
// search, and Request.Deferred, which it then never sets, is not read. Nor is
// Message.Native, another provider's content (or, on Chat Completions, this one's).
func (m *Model) NativeToolSearch() bool { return m.opts.API == APIResponses }

// New returns a Model that asks for the model named model (Request.Model overrides
// it), configured by opts (nil: OpenAI's API, no key, the SDK's retries). It checks
// its arguments; it does not contact the server.
func New(model string, opts *Options) (*Model, error) {
	if model == "" {
		return nil, errors.New("openai: New: no model name: name the model to use")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	base, u, err := baseurl.Parse(o.BaseURL, DefaultBaseURL)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	if o.API != "" && o.API != APIChat && o.API != APIResponses {
		return nil, fmt.Errorf("openai: API %q: want %q (Chat Completions, the default) or %q", o.API, APIChat, APIResponses)
	}
	if o.MaxTokensParam != "" && o.MaxTokensParam != ParamMaxCompletionTokens && o.MaxTokensParam != ParamMaxTokens {
		return nil, fmt.Errorf("openai: MaxTokensParam %q: want %q, %q or empty (by host)", o.MaxTokensParam, ParamMaxCompletionTokens, ParamMaxTokens)
	}
	if o.MaxRetries < -1 {
		return nil, fmt.Errorf("openai: MaxRetries %d: want -1 (none), 0 (the SDK's default) or more", o.MaxRetries)
	}
	ro := requestOptions(base, o.APIKey, o.MaxRetries, o.HTTPClient)
	if o.Logger != nil {
		ro = append(ro, option.WithMiddleware(logStatus(o.Logger, base)))
	}
	// The Responses API gets error bodies made OpenAI's too, but not compatible's
	// reading of a JSON answer as a chat completion chunk.
	rro := append(ro[:len(ro):len(ro)], option.WithMiddleware(compatibleErrors))
	ro = append(ro, option.WithMiddleware(compatible))
	return &Model{
		model:            model,
		opts:             o,
		baseURL:          base,
		chat:             sdk.NewChatCompletionService(ro...),
		completionTokens: o.MaxTokensParam == ParamMaxCompletionTokens || (o.MaxTokensParam == "" && isOpenAIHost(u.Hostname())),
		tools:            llm.Definitions{Provider: format.OpenAI},
		responses:        responses.NewResponseService(rro...),
		rtools:           llm.Definitions{Provider: format.OpenAIResponses},
	}, nil
}

// requestOptions are what every service of this package is made with: the base
// URL, the HTTP client (nil: llm.NewHTTPClient's), the key when there is one and
// the retries (-1 none, 0 the SDK's default). Not sdk.NewClient: it would add
// OPENAI_* settings from the environment (a key sent to a server it was not meant
// for). The services take exactly these.
func requestOptions(base, apiKey string, maxRetries int, client *http.Client) []option.RequestOption {
	if client == nil {
		client = llm.NewHTTPClient(llm.HeaderTimeout)
	}
	ro := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(client),
	}
	if apiKey != "" {
		ro = append(ro, option.WithAPIKey(apiKey))
	}
	switch {
	case maxRetries < 0:
		ro = append(ro, option.WithMaxRetries(0))
	case maxRetries > 0:
		ro = append(ro, option.WithMaxRetries(maxRetries))
	}
	return ro
}

// isOpenAIHost reports whether the server is OpenAI's own (or Azure OpenAI's).
//
// max_tokens or max_completion_tokens: OpenAI deprecated max_tokens, and its
// reasoning models (o1, o3, gpt-5 …) reject it with a 400, so OpenAI gets
// max_completion_tokens. The compatible servers this package is also for (Ollama,
// llama.cpp, vLLM, LM Studio, OpenRouter) all read max_tokens, and some of them
// ignore max_completion_tokens, so every other host gets max_tokens: a bound that
// is silently dropped costs more than one that is spelled the old way.
// Options.MaxTokensParam names the field for a server that wants the other.
func isOpenAIHost(host string) bool {
	host = strings.ToLower(host)
	return host == "api.openai.com" || strings.HasSuffix(host, ".openai.azure.com")
}

// logStatus logs each HTTP error status the server answers, retries included.
func logStatus(log *slog.Logger, base string) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err == nil && res.StatusCode >= 400 {
			log.Debug("openai: HTTP error status", "base_url", base, "status", res.StatusCode,
				"attempt", req.Header.Get("X-Stainless-Retry-Count"))
		}
		return res, err
	}
}

// Generate sends req as one streamed chat completion (with Options.API "responses",
// one streamed response) and returns the whole reply.
func (m *Model) Generate(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (res *llm.Response, err error) {
	ctx, end := llm.StartChat(ctx, req, "openai", m.model, m.baseURL)
	defer func() { end(res, err) }()
	return m.generate(ctx, req, onEvent)
}

func (m *Model) generate(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	if onEvent == nil {
		onEvent = func(llm.Event) {}
	}
	if m.opts.API == APIResponses {
		return m.generateResponses(ctx, req, onEvent)
	}
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	stream := m.chat.NewStreaming(ctx, params)
	defer stream.Close()

	var acc accumulator
	acc.model = params.Model
	chunks := 0
	for stream.Next() {
		chunks++
		acc.add(stream.Current(), onEvent)
	}
	if err := stream.Err(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, m.wrap(err)
	}
	if ctx.Err() != nil { // a stream cut by the cancel can end without an error
		return nil, ctx.Err()
	}
	if chunks == 0 {
		// Every server sends at least one chunk; none is a page that is not an event
		// stream (a proxy's HTML, a base URL without /v1 that some server answers).
		return nil, &llm.Error{Provider: "openai", BaseURL: m.baseURL,
			Message: "the answer held no chat completion chunks: is the base URL an OpenAI-compatible API (ending in /v1)?"}
	}
	res := acc.response()
	onEvent(llm.Event{Kind: llm.StopReport, Stop: res.Stop})
	if acc.usage != nil {
		onEvent(llm.Event{Kind: llm.UsageReport, Usage: *acc.usage})
	}
	return res, nil
}

// params builds the request body. Messages and tools are the format package's JSON
// (and ours for the rest of the conversation), passed to the SDK as raw overrides.
func (m *Model) params(req *llm.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:         m.model,
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	if req.Model != "" {
		p.Model = req.Model
	}
	msgs, err := messages(req)
	if err != nil {
		return p, err
	}
	for _, raw := range msgs {
		p.Messages = append(p.Messages, param.Override[sdk.ChatCompletionMessageParamUnion](raw))
	}
	if len(req.Tools) > 0 {
		for _, d := range m.tools.Of(req.Tools, m.opts.Logger) {
			p.Tools = append(p.Tools, param.Override[sdk.ChatCompletionToolUnionParam](d))
		}
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = m.opts.MaxTokens
	}
	if maxTokens > 0 {
		if m.completionTokens {
			p.MaxCompletionTokens = param.NewOpt(int64(maxTokens))
		} else {
			p.MaxTokens = param.NewOpt(int64(maxTokens))
		}
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.Output != nil {
		p.ResponseFormat = chatResponseFormat(req.Output)
	}
	return p, nil
}

type wireMessage struct {
	Role    string  `json:"role"`
	Content *string `json:"content"`
}

// messages writes the conversation as OpenAI messages: the system prompt as a
// "system" message (OpenAI maps it to "developer" for the models that want that;
// compatible servers know only "system"), the assistant's calls through
// format.CallMessage and tool results through format.ResultMessage.
func messages(req *llm.Request) ([]json.RawMessage, error) {
	var out []json.RawMessage
	add := func(m wireMessage) {
		b, _ := json.Marshal(m)
		out = append(out, b)
	}
	if req.System != "" {
		add(wireMessage{Role: "system", Content: &req.System})
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case llm.RoleUser:
			add(wireMessage{Role: "user", Content: &msg.Text})
		case llm.RoleAssistant:
			calls := make([]format.Call, len(msg.Calls))
			for j, c := range msg.Calls {
				calls[j] = c.Parse()
			}
			raw, err := format.CallMessage(format.OpenAI, msg.Text, calls)
			if err != nil {
				return nil, fmt.Errorf("openai: messages[%d]: %w", i, err)
			}
			out = append(out, raw)
		case llm.RoleTool:
			res := msg.Result
			if res == nil {
				res = &tool.Result{}
			}
			raw, err := format.ResultMessage(format.OpenAI, msg.CallID, res, nil)
			if err != nil {
				return nil, fmt.Errorf("openai: messages[%d]: %w", i, err)
			}
			out = append(out, raw)
		default:
			return nil, fmt.Errorf("openai: messages[%d]: unknown role %q", i, msg.Role)
		}
	}
	return out, nil
}

// wrap turns what the SDK returned into an *llm.Error that names the base URL and
// never the key: the SDK's *Error keeps the request (headers included), so it is not
// kept as the cause.
func (m *Model) wrap(err error) error {
	e := &llm.Error{Provider: "openai", BaseURL: m.baseURL}
	var apiErr *sdk.Error
	var streamErr *ssestream.StreamError
	var urlErr *url.Error
	var netErr net.Error
	switch {
	case errors.As(err, &apiErr):
		e.Status = apiErr.StatusCode
		e.Message = apiErr.Message // compatible() made every error body OpenAI's shape
		if e.Message == "" {
			e.Message = http.StatusText(apiErr.StatusCode)
		}
	case errors.As(err, &streamErr):
		e.Message = "the server sent an error in the stream: " + streamMessage(streamErr)
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Message = "connection refused: is the model server running at this address?"
		e.Err = err
	case errors.As(err, &netErr) && netErr.Timeout():
		e.Message = "timed out: " + netErr.Error()
		e.Err = err
	case errors.Is(err, io.ErrUnexpectedEOF):
		e.Message = "the stream was cut before it ended"
		e.Err = err
	case errors.As(err, &urlErr):
		e.Message = urlErr.Err.Error() // without the "Post URL:" prefix the Error already names
		e.Err = err
	default:
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			e.Message = "the server sent a stream event that is not JSON: " + err.Error()
		} else {
			e.Message = err.Error()
		}
		e.Err = err
	}
	if m.opts.APIKey != "" && strings.Contains(e.Message, m.opts.APIKey) {
		e.Message = strings.ReplaceAll(e.Message, m.opts.APIKey, "[key]")
	}
	return e
}

// streamMessage is the "message" of an error event, or the event's data.
func streamMessage(se *ssestream.StreamError) string {
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(se.Event.Data, &body) == nil && body.Error.Message != "" {
		return body.Error.Message
	}
	return strings.TrimSpace(string(se.Event.Data))
}

// accumulator builds the reply from the chunks of the stream.
type accumulator struct {
	text   strings.Builder
	calls  []*llm.Call
	byWire map[int64]int // the chunk's tool call index → our call's index
	madeUp []bool        // calls[i].ID was made up here
	finish string
	usage  *llm.Usage
	model  string
}

func (a *accumulator) add(chunk sdk.ChatCompletionChunk, onEvent func(llm.Event)) {
	if chunk.Model != "" {
		a.model = chunk.Model
	}
	// Usage comes in the last chunk (OpenAI, with include_usage), in the last content
	// chunk (some servers), in every chunk as a running count, or never: the last one
	// seen counts.
	if chunk.JSON.Usage.Valid() {
		a.usage = &llm.Usage{InputTokens: chunk.Usage.PromptTokens, OutputTokens: chunk.Usage.CompletionTokens}
	}
	for _, ch := range chunk.Choices {
		if ch.Index != 0 { // n is never set, so only choice 0 exists
			continue
		}
		if t := ch.Delta.Content; t != "" {
			a.text.WriteString(t)
			onEvent(llm.Event{Kind: llm.TextDelta, Text: t})
		}
		if t := ch.Delta.Refusal; t != "" { // the model's words all the same
			a.text.WriteString(t)
			onEvent(llm.Event{Kind: llm.TextDelta, Text: t})
		}
		for _, tc := range ch.Delta.ToolCalls {
			a.addCall(tc, onEvent)
		}
		if ch.FinishReason != "" {
			a.finish = ch.FinishReason
		}
	}
}

// addCall adds one tool call delta. OpenAI sends a call's id, type and name in its
// first delta and pieces of the arguments after it, all under the call's index.
// Other servers send each call whole in one delta, some without an id (one is made
// up) and some with every call at index 0 (a different id or name then starts a new
// call).
func (a *accumulator) addCall(tc sdk.ChatCompletionChunkChoiceDeltaToolCall, onEvent func(llm.Event)) {
	if a.byWire == nil {
		a.byWire = map[int64]int{}
	}
	i, ok := a.byWire[tc.Index]
	if ok {
		c := a.calls[i]
		switch {
		case tc.ID != "" && !a.madeUp[i] && c.ID != "" && tc.ID != c.ID,
			tc.ID == "" && tc.Function.Name != "" && c.Name != "" && tc.Function.Name != c.Name:
			ok = false
		}
	}
	// Arguments sent as a JSON object instead of a string holding one (some servers)
	// arrive here as the object's text: the SDK keeps a non-string's raw JSON.
	args := tc.Function.Arguments
	if !ok {
		c := &llm.Call{ID: tc.ID, Name: tc.Function.Name, Arguments: args}
		madeUp := c.ID == ""
		if madeUp {
			c.ID = newCallID()
		}
		i = len(a.calls)
		a.calls = append(a.calls, c)
		a.madeUp = append(a.madeUp, madeUp)
		a.byWire[tc.Index] = i
		onEvent(llm.Event{Kind: llm.CallDelta, Index: i, ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		return
	}
	c := a.calls[i]
	if tc.ID != "" && a.madeUp[i] {
		c.ID, a.madeUp[i] = tc.ID, false
	}
	if c.Name == "" {
		c.Name = tc.Function.Name
	}
	if args != "" {
		c.Arguments += args
		onEvent(llm.Event{Kind: llm.CallDelta, Index: i, Arguments: args})
	}
}

func (a *accumulator) response() *llm.Response {
	res := &llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Text: a.text.String()},
		Model:   a.model,
	}
	for _, c := range a.calls {
		res.Message.Calls = append(res.Message.Calls, *c)
	}
	if a.usage != nil {
		res.Usage = *a.usage
	}
	switch a.finish {
	case "length":
		res.Stop = llm.StopMaxTokens
	case "tool_calls", "function_call":
		res.Stop = llm.StopToolCalls
	case "stop", "":
		// Ollama, llama.cpp and others say "stop" (or nothing) after tool calls too.
		res.Stop = llm.StopEnd
		if len(a.calls) > 0 {
			res.Stop = llm.StopToolCalls
		}
	default: // content_filter and anything else
		res.Stop = llm.StopOther
	}
	return res
}

// newCallID makes up an id for a call that came without one, in OpenAI's shape.
func newCallID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "call_" + hex.EncodeToString(b)
}
