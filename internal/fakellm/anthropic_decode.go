package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicRequest is the part of a Messages request the fake reads.
type anthropicRequest struct {
	Model     *string            `json:"model"`
	MaxTokens *int               `json:"max_tokens"`
	System    json.RawMessage    `json:"system"`
	Messages  []anthropicMessage `json:"messages"`
	Tools     []struct {
		Type         string          `json:"type"`
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"input_schema"`
		DeferLoading bool            `json:"defer_loading"`
	} `json:"tools"`
	ToolChoice struct {
		Type string `json:"type"`
	} `json:"tool_choice"`
	Stream       bool            `json:"stream"`
	OutputConfig json.RawMessage `json:"output_config"`
	OutputFormat json.RawMessage `json:"output_format"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or a list of blocks
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // tool_result: a string or blocks; tool_search_tool_result: an object
	IsError   bool            `json:"is_error"`
	Source    struct {
		MediaType string `json:"media_type"`
	} `json:"source"`
}

// anthropicBlocks reads content that is a string (one text block) or a list of blocks.
func anthropicBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anthropicBlock
	err := json.Unmarshal(raw, &blocks)
	return blocks, err
}

// anthropicText joins the text of text and image blocks.
func anthropicText(blocks []anthropicBlock) string {
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image":
			parts = append(parts, "[image "+b.Source.MediaType+"]")
		}
	}
	return strings.Join(parts, "\n")
}

// anthropicDecode checks and decodes a request as the API would; the error is the
// message of a 400 invalid_request_error, in the API's words, or "".
func anthropicDecode(r *http.Request, body []byte) (Request, string) {
	req := Request{Header: r.Header.Clone(), Raw: json.RawMessage(body)}
	if r.Header.Get("anthropic-version") == "" {
		return req, "anthropic-version: header is required"
	}
	var in anthropicRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return req, fmt.Sprintf("There was an error parsing the body: %v", err)
	}
	switch {
	case in.Model == nil:
		return req, "model: Field required"
	case in.MaxTokens == nil:
		return req, "max_tokens: Field required"
	case in.Messages == nil:
		return req, "messages: Field required"
	case *in.MaxTokens < 1:
		return req, "max_tokens: Input should be greater than or equal to 1"
	}
	req.Model, req.MaxTokens, req.MaxTokensParam, req.Stream = *in.Model, *in.MaxTokens, "max_tokens", in.Stream
	format, invalid := anthropicFormat(in.OutputConfig, in.OutputFormat)
	if invalid != "" {
		return req, invalid
	}
	req.Format = format
	if len(in.System) > 0 && string(in.System) != "null" {
		blocks, err := anthropicBlocks(in.System)
		if err != nil {
			return req, "system: Input should be a valid string or a list of text blocks"
		}
		req.System = anthropicText(blocks)
	}
	// Tools the model may not call (tool_choice none) are not offered: a script sees
	// none, as for a request without tools.
	defined := map[string]bool{}  // every tool name of the request
	deferred := map[string]bool{} // those with defer_loading
	var tools, deferredTools []Tool
	var search string
	for _, t := range in.Tools {
		defined[t.Name] = true
		switch {
		case anthropicSearchTool(t.Type):
			search = t.Name
		case t.DeferLoading:
			deferred[t.Name] = true
			deferredTools = append(deferredTools, Tool{Name: t.Name, Description: t.Description, Schema: t.InputSchema})
		default:
			tools = append(tools, Tool{Name: t.Name, Description: t.Description, Schema: t.InputSchema})
		}
	}
	if len(in.Tools) > 0 && len(tools) == 0 && search == "" {
		return req, "All tools have defer_loading set. At least one tool must be non-deferred."
	}
	if in.ToolChoice.Type != "none" {
		req.Tools, req.Deferred, req.ToolSearch = tools, deferredTools, search
	}
	loaded := map[string]bool{} // deferred tools a tool_reference has loaded so far
	toolBlocks := false
	var pending []string // tool_use ids of the previous assistant message
	for i, m := range in.Messages {
		blocks, err := anthropicBlocks(m.Content)
		if err != nil {
			return req, fmt.Sprintf("messages.%d.content: Input should be a valid string or a list of content blocks", i)
		}
		answered := map[string]bool{}
		for _, b := range blocks {
			toolBlocks = toolBlocks || b.Type == "tool_use" || b.Type == "tool_result"
		}
		if toolBlocks && len(in.Tools) == 0 {
			return req, "Requests which include `tool_use` or `tool_result` blocks must define tools."
		}
		switch m.Role {
		case "user":
			var rest []anthropicBlock
			for _, b := range blocks {
				if b.Type != "tool_result" {
					rest = append(rest, b)
					continue
				}
				answered[b.ToolUseID] = true
				text := ""
				if len(b.Content) > 0 {
					inner, err := anthropicBlocks(b.Content)
					if err != nil {
						return req, fmt.Sprintf("messages.%d.content: tool_result content should be a string or a list of blocks", i)
					}
					text = anthropicText(inner)
				}
				req.Messages = append(req.Messages, Message{Role: "tool", CallID: b.ToolUseID, Text: text, IsError: b.IsError})
			}
			if len(rest) > 0 {
				req.Messages = append(req.Messages, Message{Role: "user", Text: anthropicText(rest)})
			}
		case "assistant":
			msg := Message{Role: "assistant"}
			var texts []string
			for j, b := range blocks {
				switch b.Type {
				case "text":
					texts = append(texts, b.Text)
				case "tool_use":
					var args bytes.Buffer
					if err := json.Compact(&args, b.Input); err != nil || len(b.Input) == 0 || b.Input[0] != '{' {
						return req, fmt.Sprintf("messages.%d.content: tool_use.input: Input should be a valid dictionary", i)
					}
					if deferred[b.Name] && !loaded[b.Name] {
						return req, fmt.Sprintf("messages.%d.content.%d: tool_use of '%s', a tool with defer_loading set that no tool_reference before it loaded", i, j, b.Name)
					}
					msg.Calls = append(msg.Calls, Call{ID: b.ID, Name: b.Name, Arguments: args.String()})
				case "tool_search_tool_result":
					var content struct {
						ToolReferences []struct {
							ToolName string `json:"tool_name"`
						} `json:"tool_references"`
					}
					if err := json.Unmarshal(b.Content, &content); err != nil {
						return req, fmt.Sprintf("messages.%d.content.%d: tool_search_tool_result.content: Input should be an object", i, j)
					}
					for _, r := range content.ToolReferences {
						if !defined[r.ToolName] {
							return req, fmt.Sprintf("Tool reference '%s' has no corresponding tool definition", r.ToolName)
						}
						loaded[r.ToolName] = true
						msg.Found = append(msg.Found, r.ToolName)
					}
				}
			}
			msg.Text = strings.Join(texts, "")
			req.Messages = append(req.Messages, msg)
		default:
			return req, fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		// "Each tool_use block must have a corresponding tool_result block in the
		// next message" — the API's own words when a history breaks the rule.
		var missing []string
		for _, id := range pending {
			if !answered[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return req, fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, strings.Join(missing, ", "))
		}
		pending = nil
		for _, b := range blocks {
			if m.Role == "assistant" && b.Type == "tool_use" {
				pending = append(pending, b.ID)
			}
		}
	}
	return req, ""
}
