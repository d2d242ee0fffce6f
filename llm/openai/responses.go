package openai

// The Responses API mode (Options.API "responses"): POST /v1/responses, streamed,
// as the API reference documents it. The conversation goes as "input" items (user
// and assistant messages, function_call and function_call_output items) with the
// system prompt as "instructions" and "store": false, so that OpenAI keeps nothing
// and every request carries the whole history, as on Chat Completions.
//
// Tool search (developers.openai.com/api/docs/guides/tools-tool-search): given
// Request.Deferred, those functions go with "defer_loading": true next to a
// {"type": "tool_search"} tool, which OpenAI runs (execution "server"). A reply that
// used it holds tool_search_call and tool_search_output items before the
// function_call of the tool it found: the call becomes an ordinary llm.Call, and the
// search items ride in Message.Native (Provider "openai-responses"), which the next
// request sends back in their place, as a request without stored state must.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/tool"
)

// NativeProvider is the Message.Native.Provider of this package's kept items.
const NativeProvider = "openai-responses"

// compatibleErrors makes an error body that is not OpenAI's {"error": {…}} one, as
// compatible does for Chat Completions.
func compatibleErrors(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode < 400 {
		return res, err
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxJSONReply))
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	replaceBody(res, "", errorBody(body))
	return res, nil
}

// generateResponses is Generate on the Responses API.
func (m *Model) generateResponses(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	params, err := m.responsesParams(req)
	if err != nil {
		return nil, err
	}
	stream := m.responses.NewStreaming(ctx, params)
	defer stream.Close()

	var (
		final  *responses.Response
		done   []responses.ResponseOutputItemUnion // output_item.done items, in order
		byItem = map[string]int{}                  // function_call item id → call index
		calls  int
		events int
		model  = params.Model
	)
	for stream.Next() {
		events++
		ev := stream.Current()
		switch ev.Type {
		case "response.created", "response.in_progress":
			if ev.Response.Model != "" {
				model = ev.Response.Model
			}
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				byItem[ev.Item.ID] = calls
				onEvent(llm.Event{Kind: llm.CallDelta, Index: calls, ID: ev.Item.CallID, Name: ev.Item.Name, Arguments: ev.Item.Arguments.OfString})
				calls++
			}
		case "response.output_text.delta", "response.refusal.delta": // a refusal is the model's words all the same
			if ev.Delta != "" {
				onEvent(llm.Event{Kind: llm.TextDelta, Text: ev.Delta})
			}
		case "response.function_call_arguments.delta":
			if i, ok := byItem[ev.ItemID]; ok && ev.Delta != "" {
				onEvent(llm.Event{Kind: llm.CallDelta, Index: i, Arguments: ev.Delta})
			}
		case "response.output_item.done":
			done = append(done, ev.Item)
		case "response.completed", "response.incomplete":
			r := ev.Response
			final = &r
		case "response.failed":
			msg := ev.Response.Error.Message
			if msg == "" {
				msg = "the response failed"
			}
			return nil, &llm.Error{Provider: "openai", BaseURL: m.baseURL, Message: "the server sent response.failed: " + msg}
		case "error":
			return nil, &llm.Error{Provider: "openai", BaseURL: m.baseURL, Message: "the server sent an error in the stream: " + ev.Message}
		}
	}
	if err := stream.Err(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, m.wrap(err)
	}
	if final == nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if events == 0 {
			return nil, &llm.Error{Provider: "openai", BaseURL: m.baseURL,
				Message: "the answer held no Responses API events: is the base URL OpenAI's API (ending in /v1), with the Responses API?"}
		}
		return nil, &llm.Error{Provider: "openai", BaseURL: m.baseURL, Message: "the stream ended before response.completed"}
	}
	items := final.Output
	if len(items) == 0 {
		items = done
	}
	res := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}, Model: final.Model}
	if res.Model == "" {
		res.Model = model
	}
	var text strings.Builder
	var kept []json.RawMessage
	keep := false
	for _, it := range items {
		switch it.Type {
		case "message":
			t := messageText(it)
			text.WriteString(t)
			if t != "" {
				b, _ := json.Marshal(map[string]string{"role": "assistant", "content": t})
				kept = append(kept, b)
			}
		case "function_call":
			c := llm.Call{ID: it.CallID, Name: it.Name, Arguments: it.Arguments.OfString}
			if c.ID == "" {
				c.ID = newCallID()
			}
			res.Message.Calls = append(res.Message.Calls, c)
			b, _ := json.Marshal(map[string]string{"type": "function_call", "call_id": c.ID})
			kept = append(kept, b) // its place: written from Calls when sent back
		case "reasoning":
			// Not kept: without "include": ["reasoning.encrypted_content"], a reasoning
			// item cannot go back in a request that is not stored.
		default: // tool_search_call, tool_search_output and whatever else the API adds
			keep = true
			kept = append(kept, withoutID(json.RawMessage(it.RawJSON())))
		}
	}
	res.Message.Text = text.String()
	if keep {
		raw, _ := json.Marshal(kept)
		res.Message.Native = &llm.Native{Provider: NativeProvider, Content: raw}
	}
	switch {
	case final.Status == "incomplete" && final.IncompleteDetails.Reason == "max_output_tokens":
		res.Stop = llm.StopMaxTokens
	case final.Status == "completed" && len(res.Message.Calls) > 0:
		res.Stop = llm.StopToolCalls
	case final.Status == "completed" || final.Status == "":
		res.Stop = llm.StopEnd
	default: // incomplete for content_filter, and anything else
		res.Stop = llm.StopOther
	}
	onEvent(llm.Event{Kind: llm.StopReport, Stop: res.Stop})
	if final.JSON.Usage.Valid() {
		res.Usage = llm.Usage{InputTokens: final.Usage.InputTokens, OutputTokens: final.Usage.OutputTokens}
		onEvent(llm.Event{Kind: llm.UsageReport, Usage: res.Usage})
	}
	return res, nil
}

// messageText is an output message's text: its output_text and refusal parts.
func messageText(it responses.ResponseOutputItemUnion) string {
	var b strings.Builder
	for _, c := range it.Content {
		switch c.Type {
		case "output_text":
			b.WriteString(c.Text)
		case "refusal":
			b.WriteString(c.Refusal)
		}
	}
	return b.String()
}

// withoutID is an output item without its "id": the item was not stored (store is
// false), so the id would name nothing; the call_id ties a search to its output.
func withoutID(raw json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	delete(obj, "id")
	b, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return b
}

// responsesParams builds the request body; items and tools are raw JSON (format's
// for definitions and tool results).
func (m *Model) responsesParams(req *llm.Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{Model: m.model, Store: param.NewOpt(false)}
	if req.Model != "" {
		p.Model = req.Model
	}
	if req.System != "" {
		p.Instructions = param.NewOpt(req.System)
	}
	items, err := inputItems(req.Messages)
	if err != nil {
		return p, err
	}
	list := make([]responses.ResponseInputItemUnionParam, len(items))
	for i, raw := range items {
		list[i] = param.Override[responses.ResponseInputItemUnionParam](raw)
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: list}

	declared := map[string]bool{}
	add := func(def json.RawMessage) {
		p.Tools = append(p.Tools, param.Override[responses.ToolUnionParam](def))
	}
	for _, d := range m.rtools.Of(req.Tools, m.opts.Logger) {
		add(d)
		declared[defName(d)] = true
	}
	search := false
	if len(req.Deferred) > 0 && m.NativeToolSearch() {
		for _, d := range m.rtools.Of(req.Deferred, m.opts.Logger) {
			if n := defName(d); !declared[n] { // a tool also in Tools is not sent twice
				add(deferLoading(d))
				declared[n] = true
			}
		}
		add(json.RawMessage(`{"type":"tool_search"}`))
		search = true
	}
	// A history that used the tool search keeps the search tool and the tools it
	// found declared, in any step: one without tools (which may call none of them),
	// one whose catalog lost a tool.
	if found, used := searchedTools(req.Messages); used {
		for _, d := range found {
			if n := defName(d); n != "" && !declared[n] {
				add(deferLoading(d))
				declared[n] = true
			}
		}
		if !search {
			add(json.RawMessage(`{"type":"tool_search"}`))
			if len(req.Tools) == 0 {
				p.ToolChoice = responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptionsNone)}
			}
		}
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = m.opts.MaxTokens
	}
	if maxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(maxTokens))
	}
	if req.Output != nil {
		p.Text.Format = responsesTextFormat(req.Output)
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	return p, nil
}

// defName is the "name" of a tool definition.
func defName(def json.RawMessage) string {
	var d struct {
		Name string `json:"name"`
	}
	json.Unmarshal(def, &d)
	return d.Name
}

// deferLoading returns a function definition (a JSON object) with
// "defer_loading": true set.
func deferLoading(def json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(def, &obj) != nil {
		return def
	}
	obj["defer_loading"] = json.RawMessage("true")
	b, err := json.Marshal(obj)
	if err != nil {
		return def
	}
	return b
}

// searchedTools returns the definitions of the tools the history's tool searches
// loaded (their tool_search_output items), and whether it searched at all.
func searchedTools(history []llm.Message) ([]json.RawMessage, bool) {
	var defs []json.RawMessage
	used := false
	for _, msg := range history {
		if msg.Role != llm.RoleAssistant || msg.Native == nil || msg.Native.Provider != NativeProvider {
			continue
		}
		var items []struct {
			Type  string            `json:"type"`
			Tools []json.RawMessage `json:"tools"`
		}
		json.Unmarshal(msg.Native.Content, &items) // inputItems reports content that does not parse
		for _, it := range items {
			switch it.Type {
			case "tool_search_call":
				used = true
			case "tool_search_output":
				used = true
				defs = append(defs, it.Tools...)
			}
		}
	}
	return defs, used
}

// inputItems writes the history as input items: user and assistant messages in
// the short form ({"role", "content": text}), each call a function_call item
// (format.CallItem), each
// tool message a function_call_output (format.ResultMessage), and an assistant
// message with this package's Native as its kept items.
func inputItems(history []llm.Message) ([]json.RawMessage, error) {
	var out []json.RawMessage
	msg := func(role, text string) {
		b, _ := json.Marshal(map[string]string{"role": role, "content": text})
		out = append(out, b)
	}
	call := func(c llm.Call) {
		b, _ := format.CallItem(format.OpenAIResponses, c.Parse()) // fails only for other providers
		out = append(out, b)
	}
	for i, m := range history {
		switch m.Role {
		case llm.RoleUser:
			msg("user", m.Text)
		case llm.RoleAssistant:
			if m.Native != nil && m.Native.Provider == NativeProvider {
				if err := nativeItems(m, &out, call); err != nil {
					return nil, fmt.Errorf("openai: messages[%d]: the kept items of the reply: %w", i, err)
				}
				continue
			}
			if m.Text != "" {
				msg("assistant", m.Text)
			}
			for _, c := range m.Calls {
				call(c)
			}
		case llm.RoleTool:
			res := m.Result
			if res == nil {
				res = &tool.Result{}
			}
			raw, err := format.ResultMessage(format.OpenAIResponses, m.CallID, res, nil)
			if err != nil {
				return nil, fmt.Errorf("openai: messages[%d]: %w", i, err)
			}
			out = append(out, raw)
		default:
			return nil, fmt.Errorf("openai: messages[%d]: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

// nativeItems appends an assistant message's kept items in their order; each
// function_call is written from the message's Call of that call_id, as Calls say (a
// call no longer in Calls is left out, a call only in Calls goes last), so that calls
// and outputs always pair up.
func nativeItems(m llm.Message, out *[]json.RawMessage, call func(llm.Call)) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(m.Native.Content, &raws); err != nil {
		return fmt.Errorf("not a list of items: %w", err)
	}
	calls := map[string]llm.Call{}
	for _, c := range m.Calls {
		calls[c.ID] = c
	}
	written := map[string]bool{}
	for _, raw := range raws {
		var it struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
		}
		if err := json.Unmarshal(raw, &it); err != nil {
			return fmt.Errorf("an item is not an object: %w", err)
		}
		if it.Type != "function_call" {
			*out = append(*out, bytes.Clone(raw))
			continue
		}
		if c, ok := calls[it.CallID]; ok && !written[it.CallID] {
			written[it.CallID] = true
			call(c)
		}
	}
	for _, c := range m.Calls {
		if !written[c.ID] {
			call(c)
		}
	}
	return nil
}
