// Package anthropic is the llm.Model of the Anthropic Messages API, built on the
// official Go SDK (github.com/anthropics/anthropic-sdk-go), which brings the
// transport, the retries on 408, 409, 429 and 5xx (529 "overloaded" included) with
// backoff and the server's retry-after, and the server-sent events.
//
//	m, err := anthropic.New("claude-sonnet-4-5", &anthropic.Options{
//		APIKey: os.Getenv(cfg.APIKeyEnv), // the variable the config names, read by the caller
//	})
//	res, err := m.Generate(ctx, req, onEvent)
//
// Every request is streamed and accumulated (the SDK's Message.Accumulate), so that
// text and tool-call arguments reach onEvent as they arrive. Tool definitions, the
// assistant's calls written back into the history, and tool results go through the
// format package; the calls themselves come from the stream.
//
// The Model is an llm.NativeSearcher: given Request.Deferred, it sends those tools
// with "defer_loading": true next to Anthropic's tool search tool (BM25 unless
// Options.ToolSearch says regex), which the API runs on its side. A reply that used
// it holds server_tool_use and tool_search_tool_result blocks before the model's
// tool_use of the tool it found: the call becomes an ordinary llm.Call, and the
// blocks ride in Message.Native, which the next request sends back as they came
// (the API loads a deferred tool only where a tool_reference in the history names it).
//
// The client reads nothing from the environment (ANTHROPIC_API_KEY,
// ANTHROPIC_BASE_URL and the SDK's profiles are ignored): what it uses is in Options.
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/internal/baseurl"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/tool"
)

// DefaultBaseURL is where requests go when Options.BaseURL is empty.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens bounds a reply when neither the request nor Options do: the
// Messages API requires max_tokens on every request.
const DefaultMaxTokens = 4096

// Options configures a Model; nil, and every zero field, is a useful default.
type Options struct {
	// BaseURL is the API's address without /v1 (the SDK appends /v1/messages);
	// empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as x-api-key. Empty sends none (a local server may not need one).
	APIKey string
	// MaxTokens bounds replies when a Request does not; 0 means DefaultMaxTokens.
	MaxTokens int
	// MaxRetries is how many times the SDK retries a failed request: 0 means the
	// SDK's default (2), -1 none.
	MaxRetries int
	// HTTPClient makes the requests; nil means a client of our own with
	// http.DefaultTransport's settings and a bound of llm.HeaderTimeout on waiting
	// for the response headers, as llm/openai's.
	HTTPClient *http.Client
	// Logger, when set, is told of each tool left out of requests because the API
	// would refuse its definition (once per tool).
	Logger *slog.Logger
	// ToolSearch is the provider's tool search used for Request.Deferred:
	// ToolSearchBM25 (also when empty: natural-language queries), ToolSearchRegex
	// (the model writes regular expressions), or ToolSearchOff, for a server or
	// model without it (an Anthropic-compatible server that has no server tools, a
	// model older than Claude Sonnet 4, Opus 4 or Haiku 4.5): NativeToolSearch then
	// reports false and the agent uses Switchboard's own search.
	ToolSearch string
}

// The values of Options.ToolSearch.
const (
	ToolSearchBM25  = "bm25"
	ToolSearchRegex = "regex"
	ToolSearchOff   = "off"
)

// The tool search tools, as the API names them in tools and in server_tool_use
// blocks. Their types are the 2025-11-19 versions, generally available (no beta
// header): tool_search_tool_bm25_20251119, tool_search_tool_regex_20251119.
const (
	searchBM25Name  = "tool_search_tool_bm25"
	searchRegexName = "tool_search_tool_regex"
)

// Model is a model behind the Anthropic Messages API. It is safe for concurrent use.
type Model struct {
	client  sdk.Client
	model   string // used when a Request names none
	opts    Options
	baseURL string
	tools   llm.Definitions
}

var (
	_ llm.Model          = (*Model)(nil)
	_ llm.NativeSearcher = (*Model)(nil)
)

// NativeToolSearch implements llm.NativeSearcher: the API's tool search finds
// Request.Deferred, unless Options.ToolSearch is ToolSearchOff.
func (m *Model) NativeToolSearch() bool { return m.opts.ToolSearch != ToolSearchOff }

// New returns a Model that asks for the model named model (a Request that names
// another overrides it), configured by opts (nil: Anthropic's API, no key, the
// SDK's retries, DefaultMaxTokens, BM25 tool search). It checks its arguments; it
// does not contact the server.
func New(model string, opts *Options) (*Model, error) {
	if model == "" {
		return nil, errors.New("anthropic: New: no model name: name the model to use")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	base, _, err := baseurl.Parse(o.BaseURL, DefaultBaseURL)
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	if o.MaxTokens < 0 {
		return nil, fmt.Errorf("anthropic: Options.MaxTokens is %d: it must be positive (0 means %d)", o.MaxTokens, DefaultMaxTokens)
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	switch o.ToolSearch {
	case "":
		o.ToolSearch = ToolSearchBM25
	case ToolSearchBM25, ToolSearchRegex, ToolSearchOff:
	default:
		return nil, fmt.Errorf("anthropic: Options.ToolSearch is %q: want %q (the default), %q or %q", o.ToolSearch, ToolSearchBM25, ToolSearchRegex, ToolSearchOff)
	}
	ro := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base),
	}
	if o.APIKey != "" {
		ro = append(ro, option.WithAPIKey(o.APIKey))
	}
	switch {
	case o.MaxRetries < 0:
		ro = append(ro, option.WithMaxRetries(0))
	case o.MaxRetries > 0:
		ro = append(ro, option.WithMaxRetries(o.MaxRetries))
	}
	client := o.HTTPClient
	if client == nil {
		// Not the SDK's http.DefaultClient, which waits for headers forever.
		client = llm.NewHTTPClient(llm.HeaderTimeout)
	}
	ro = append(ro, option.WithHTTPClient(client))
	return &Model{client: sdk.NewClient(ro...), model: model, opts: o, baseURL: base, tools: llm.Definitions{Provider: format.Anthropic}}, nil
}

// Generate implements llm.Model.
func (m *Model) Generate(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (res *llm.Response, err error) {
	ctx, end := llm.StartChat(ctx, req, "anthropic", m.model, m.baseURL)
	defer func() { end(res, err) }()
	return m.generate(ctx, req, onEvent)
}

func (m *Model) generate(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	if onEvent == nil {
		onEvent = func(llm.Event) {}
	}
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	stream := m.client.Messages.NewStreaming(ctx, params)
	defer stream.Close()

	var (
		acc     sdk.Message
		calls   = map[int64]int{}  // content block index → call index
		args    []*strings.Builder // each call's arguments as sent (blocks may interleave)
		stopped bool               // message_stop came
	)
	for stream.Next() {
		ev := stream.Current()
		if err := acc.Accumulate(ev); err != nil {
			return nil, m.fail(0, "the stream is out of order: "+err.Error(), nil)
		}
		switch ev.Type {
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				calls[ev.Index] = len(args)
				args = append(args, new(strings.Builder))
				onEvent(llm.Event{Kind: llm.CallDelta, Index: calls[ev.Index], ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name})
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				if ev.Delta.Text != "" {
					onEvent(llm.Event{Kind: llm.TextDelta, Text: ev.Delta.Text})
				}
			case "input_json_delta":
				i, ok := calls[ev.Index]
				if ok && ev.Delta.PartialJSON != "" {
					args[i].WriteString(ev.Delta.PartialJSON)
					onEvent(llm.Event{Kind: llm.CallDelta, Index: i, Arguments: ev.Delta.PartialJSON})
				}
			}
		case "message_stop":
			stopped = true
			onEvent(llm.Event{Kind: llm.StopReport, Stop: stop(acc.StopReason)})
			onEvent(llm.Event{Kind: llm.UsageReport, Usage: usage(acc.Usage)})
		}
	}
	if err := stream.Err(); err != nil {
		return nil, m.convert(ctx, err)
	}
	if !stopped {
		// A reply that came whole stands even if ctx ends now; one cut short does not.
		if ctx.Err() != nil {
			return nil, m.convert(ctx, ctx.Err())
		}
		return nil, m.fail(0, "the stream ended before message_stop", nil)
	}

	res := &llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant},
		Usage:   usage(acc.Usage),
		Stop:    stop(acc.StopReason),
		Model:   string(acc.Model),
	}
	var text strings.Builder
	for i, b := range acc.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			a := "{}"
			if n, ok := calls[int64(i)]; ok && args[n].Len() > 0 {
				a = args[n].String()
			} else if len(b.Input) > 0 {
				a = string(b.Input)
			}
			res.Message.Calls = append(res.Message.Calls, llm.Call{ID: b.ID, Name: b.Name, Arguments: a})
		}
	}
	res.Message.Text = text.String()
	native, err := nativeContent(acc.Content)
	if err != nil {
		return nil, m.fail(0, "the reply's content cannot be kept for the next request: "+err.Error(), err)
	}
	res.Message.Native = native
	return res, nil
}

// nativeContent keeps a reply's content blocks, in the form a request takes them,
// when some of them are neither text nor tool_use (the tool search's server_tool_use
// and tool_search_tool_result): the next request must send them back. A reply of
// text and tool calls alone gets nil, and its history stays Text and Calls.
func nativeContent(content []sdk.ContentBlockUnion) (*llm.Native, error) {
	keep := false
	for _, b := range content {
		keep = keep || (b.Type != "text" && b.Type != "tool_use")
	}
	if !keep {
		return nil, nil
	}
	blocks := make([]sdk.ContentBlockParamUnion, 0, len(content))
	for _, b := range content {
		if b.Type == "text" && b.Text == "" { // the API refuses empty text blocks
			continue
		}
		blocks = append(blocks, b.ToParam())
	}
	raw, err := json.Marshal(blocks)
	if err != nil {
		return nil, err
	}
	return &llm.Native{Provider: "anthropic", Content: raw}, nil
}

// usage counts every input token: Anthropic reports those read from or written to
// the prompt cache apart from input_tokens.
func usage(u sdk.Usage) llm.Usage {
	return llm.Usage{
		InputTokens:  u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
		OutputTokens: u.OutputTokens,
	}
}

// stop maps the API's stop_reason. "stop_sequence" is a finished answer (it stopped
// where it was asked to); "pause_turn", "refusal" and others are StopOther.
func stop(r sdk.StopReason) llm.StopReason {
	switch r {
	case "end_turn", "stop_sequence":
		return llm.StopEnd
	case "tool_use":
		return llm.StopToolCalls
	case "max_tokens":
		return llm.StopMaxTokens
	}
	return llm.StopOther
}

// params builds the request. Tool definitions and tool results are the format
// package's JSON, passed to the SDK as they are (param.Override).
func (m *Model) params(req *llm.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{
		Model:     sdk.Model(m.model),
		MaxTokens: int64(m.opts.MaxTokens),
	}
	if req.Model != "" {
		p.Model = sdk.Model(req.Model)
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	declared := map[string]bool{} // tool names in p.Tools
	if len(req.Tools) > 0 {
		for _, d := range m.tools.Of(req.Tools, m.opts.Logger) {
			p.Tools = append(p.Tools, param.Override[sdk.ToolUnionParam](d))
			declared[defName(d)] = true
		}
	}
	deferring := len(req.Deferred) > 0 && m.NativeToolSearch()
	if deferring {
		name := m.searchName()
		p.Tools = append(p.Tools, searchTool(name))
		declared[name] = true
		for _, d := range m.tools.Of(req.Deferred, m.opts.Logger) {
			if n := defName(d); !declared[n] { // a tool also in Tools is not sent twice
				p.Tools = append(p.Tools, param.Override[sdk.ToolUnionParam](deferLoading(d)))
				declared[n] = true
			}
		}
	}
	var err error
	if p.OutputConfig, err = outputConfig(req.Output); err != nil {
		return p, err
	}
	msgs, err := messages(req.Messages)
	if err != nil {
		return p, err
	}
	p.Messages = msgs
	found := searched(req.Messages)
	if len(req.Tools) == 0 && !deferring {
		// The API refuses a history with tool_use or tool_result blocks and no tools
		// ("Requests which include `tool_use` or `tool_result` blocks must define
		// tools."). A request without tools (the last step of a turn) declares the
		// tools the history called, each as format writes a bare tool, and forbids
		// calling them with tool_choice none.
		stubs := usedTools(req.Messages)
		for _, d := range stubs {
			if n := defName(d); found.tools[n] {
				d = deferLoading(d) // it was found by the tool search, as a deferred tool
			}
			p.Tools = append(p.Tools, param.Override[sdk.ToolUnionParam](d))
			declared[defName(d)] = true
		}
		if len(stubs) > 0 || len(found.search) > 0 {
			none := sdk.NewToolChoiceNoneParam()
			p.ToolChoice = sdk.ToolChoiceUnionParam{OfNone: &none}
		}
	}
	// A history that used the tool search needs the search tool and every tool it
	// found declared ("Tool reference 'x' has no corresponding tool definition"),
	// in any step: one without tools, one whose catalog lost a tool, one after the
	// agent left native mode.
	for _, name := range found.search {
		if !declared[name] {
			p.Tools = append(p.Tools, searchTool(name))
			declared[name] = true
		}
	}
	for _, name := range found.order {
		if !declared[name] {
			if d, err := format.Definition(format.Anthropic, tool.Tool{Name: name}, nil); err == nil {
				p.Tools = append(p.Tools, param.Override[sdk.ToolUnionParam](deferLoading(d)))
				declared[name] = true
			}
		}
	}
	return p, nil
}

// searchName is the name of the configured tool search tool.
func (m *Model) searchName() string {
	if m.opts.ToolSearch == ToolSearchRegex {
		return searchRegexName
	}
	return searchBM25Name
}

// searchTool is the definition of the tool search tool called name.
func searchTool(name string) sdk.ToolUnionParam {
	if name == searchRegexName {
		return sdk.ToolUnionParam{OfToolSearchToolRegex20251119: &sdk.ToolSearchToolRegex20251119Param{
			Type: sdk.ToolSearchToolRegex20251119TypeToolSearchToolRegex20251119,
		}}
	}
	return sdk.ToolUnionParam{OfToolSearchToolBm25_20251119: &sdk.ToolSearchToolBm25_20251119Param{
		Type: sdk.ToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119,
	}}
}

// defName is the "name" of a tool definition.
func defName(def json.RawMessage) string {
	var d struct {
		Name string `json:"name"`
	}
	json.Unmarshal(def, &d)
	return d.Name
}

// deferLoading returns a tool definition (a JSON object, as format writes it) with
// "defer_loading": true added: the model sees it only once the tool search finds it.
func deferLoading(def json.RawMessage) json.RawMessage {
	d := bytes.TrimSpace(def)
	if len(d) < 2 || d[len(d)-1] != '}' {
		return def
	}
	out := make([]byte, 0, len(d)+len(`,"defer_loading":true`))
	out = append(out, d[:len(d)-1]...)
	if len(bytes.TrimSpace(d[1:len(d)-1])) > 0 {
		out = append(out, ',')
	}
	return append(out, `"defer_loading":true}`...)
}

// search is what a history's tool search blocks name.
type search struct {
	search []string        // the search tools called (server_tool_use names), in order
	order  []string        // the tools found (tool_reference names), in order
	tools  map[string]bool // the same, as a set
}

// searched reads the tool search blocks kept in the history's Message.Native.
func searched(history []llm.Message) search {
	s := search{tools: map[string]bool{}}
	seen := map[string]bool{}
	for _, msg := range history {
		if msg.Native == nil || msg.Native.Provider != "anthropic" {
			continue
		}
		var blocks []struct {
			Type    string `json:"type"`
			Name    string `json:"name"`
			Content struct {
				ToolReferences []struct {
					ToolName string `json:"tool_name"`
				} `json:"tool_references"`
			} `json:"content"`
		}
		json.Unmarshal(msg.Native.Content, &blocks) // messages() reports content that does not parse
		for _, b := range blocks {
			switch b.Type {
			case "server_tool_use":
				if (b.Name == searchBM25Name || b.Name == searchRegexName) && !seen[b.Name] {
					seen[b.Name] = true
					s.search = append(s.search, b.Name)
				}
			case "tool_search_tool_result":
				for _, r := range b.Content.ToolReferences {
					if !s.tools[r.ToolName] {
						s.tools[r.ToolName] = true
						s.order = append(s.order, r.ToolName)
					}
				}
			}
		}
	}
	return s
}

// usedTools returns a bare definition of each tool the history called, in the order
// first called. A name the API would refuse is left out.
func usedTools(history []llm.Message) []json.RawMessage {
	seen := map[string]bool{}
	var defs []json.RawMessage
	for _, msg := range history {
		for _, c := range msg.Calls {
			if seen[c.Name] {
				continue
			}
			seen[c.Name] = true
			if d, err := format.Definition(format.Anthropic, tool.Tool{Name: c.Name}, nil); err == nil {
				defs = append(defs, d)
			}
		}
	}
	return defs
}

// messages writes the history in the API's shape. The results of one step's calls
// are consecutive tool messages; they go into one user message, in order, since the
// API wants every tool_result of an assistant message in the message after it.
func messages(history []llm.Message) ([]sdk.MessageParam, error) {
	var out []sdk.MessageParam
	results := -1 // index in out of the user message collecting tool results
	for i, msg := range history {
		if msg.Role != llm.RoleTool {
			results = -1
		}
		switch msg.Role {
		case llm.RoleUser:
			if msg.Text == "" { // the API rejects empty text blocks
				continue
			}
			out = append(out, sdk.NewUserMessage(sdk.NewTextBlock(msg.Text)))
		case llm.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			if msg.Native != nil && msg.Native.Provider == "anthropic" {
				nb, err := nativeBlocks(msg)
				if err != nil {
					return nil, fmt.Errorf("anthropic: messages[%d]: the kept content of the reply: %w", i, err)
				}
				blocks = nb
			} else {
				if msg.Text != "" {
					blocks = append(blocks, sdk.NewTextBlock(msg.Text))
				}
				for _, c := range msg.Calls {
					blocks = append(blocks, toolUse(c))
				}
			}
			if len(blocks) > 0 {
				out = append(out, sdk.NewAssistantMessage(blocks...))
			}
		case llm.RoleTool:
			res := msg.Result
			if res == nil {
				res = &tool.Result{}
			}
			raw, err := format.ResultMessage(format.Anthropic, msg.CallID, res, nil)
			if err != nil {
				return nil, fmt.Errorf("anthropic: messages[%d]: tool result for call %q: %w", i, msg.CallID, err)
			}
			block := param.Override[sdk.ContentBlockParamUnion](raw)
			if results < 0 {
				out = append(out, sdk.NewUserMessage())
				results = len(out) - 1
			}
			out[results].Content = append(out[results].Content, block)
		default:
			return nil, fmt.Errorf("anthropic: messages[%d]: unknown role %q", i, msg.Role)
		}
	}
	return out, nil
}

// nativeBlocks is an assistant message's kept content, sent back as it came, in its
// order (text, the tool search's blocks, tool calls); each tool_use is written
// from the message's Call of that id, as Calls say (a call no longer in Calls is
// left out, a call only in Calls goes last), so that tool_use and tool_result
// always pair up.
func nativeBlocks(msg llm.Message) ([]sdk.ContentBlockParamUnion, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(msg.Native.Content, &raws); err != nil {
		return nil, fmt.Errorf("not a list of content blocks: %w", err)
	}
	calls := map[string]llm.Call{}
	for _, c := range msg.Calls {
		calls[c.ID] = c
	}
	written := map[string]bool{}
	var blocks []sdk.ContentBlockParamUnion
	for _, raw := range raws {
		var b struct{ Type, ID string }
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("a content block is not an object: %w", err)
		}
		if b.Type != "tool_use" {
			blocks = append(blocks, param.Override[sdk.ContentBlockParamUnion](raw))
			continue
		}
		if c, ok := calls[b.ID]; ok && !written[b.ID] {
			written[b.ID] = true
			blocks = append(blocks, toolUse(c))
		}
	}
	for _, c := range msg.Calls {
		if !written[c.ID] {
			blocks = append(blocks, toolUse(c))
		}
	}
	return blocks, nil
}

// toolUse is a call as a tool_use block, written by format.CallItem. The API takes
// an object as input only: arguments that are not one (a model's malformed JSON,
// answered with an error result) go as {}, so that the history keeps the call and
// its result and the request stays valid.
func toolUse(c llm.Call) sdk.ContentBlockParamUnion {
	raw, _ := format.CallItem(format.Anthropic, c.Parse()) // fails only for other providers
	return param.Override[sdk.ContentBlockParamUnion](raw)
}

// convert turns what the SDK returned into an *llm.Error. The SDK's *Error is not
// kept (it holds the request, whose headers carry the key); its status, type and
// message are.
func (m *Model) convert(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return m.fail(0, "request cancelled: "+ctx.Err().Error(), ctx.Err())
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		var body struct {
			Error struct{ Type, Message string }
		}
		msg := strings.TrimSpace(apiErr.RawJSON())
		if json.Unmarshal([]byte(msg), &body) == nil && body.Error.Message != "" {
			msg = body.Error.Message
			if body.Error.Type != "" {
				msg = body.Error.Type + ": " + msg
			}
		}
		if msg == "" {
			msg = http.StatusText(apiErr.StatusCode)
		}
		if apiErr.StatusCode < 300 {
			// An "error" event in a stream that began with 200 OK.
			return m.fail(0, "error event in the stream: "+msg, nil)
		}
		return m.fail(apiErr.StatusCode, msg, nil)
	}
	return m.fail(0, err.Error(), err)
}

// fail makes the *llm.Error, with the key cut out of the message should a server
// or the network have echoed it.
func (m *Model) fail(status int, msg string, err error) error {
	if m.opts.APIKey != "" {
		msg = strings.ReplaceAll(msg, m.opts.APIKey, "[api key]")
	}
	return &llm.Error{Provider: "anthropic", BaseURL: m.baseURL, Status: status, Message: msg, Err: err}
}
