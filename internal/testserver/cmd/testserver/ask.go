package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askArgs are the ask tool's arguments.
type askArgs struct {
	Message string `json:"message,omitempty" jsonschema:"the question (default: a request for the user's details)"`
	// Schema is the form's schema; none: AskSchema.
	Schema map[string]any `json:"schema,omitempty" jsonschema:"the form's requested schema (default: one field of every kind, with defaults)"`
	URL    string         `json:"url,omitempty" jsonschema:"ask in URL mode: the person is to open this URL"`
}

// AskSchema is the ask tool's default form: a field of every kind the 2025-11-25
// spec allows, most with a default (SEP-1034).
const AskSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "title": "Your name", "description": "what to call you", "minLength": 1},
    "color": {"type": "string", "title": "Favourite colour", "enum": ["red", "green", "blue"], "default": "green"},
    "size": {"type": "string", "title": "Size", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}], "default": "l"},
    "count": {"type": "integer", "title": "How many", "minimum": 1, "maximum": 10, "default": 3},
    "subscribe": {"type": "boolean", "title": "Subscribe", "default": true}
  },
  "required": ["name"]
}`

// rawAnswer is where the sending middleware keeps the client's answer to an
// elicitation as it came, before the SDK validates it and fills in the schema's
// defaults: what the client itself sent is what the tests check.
type rawAnswer struct {
	mu   sync.Mutex
	data []byte
}

type rawAnswerKey struct{}

// keepRawAnswer is the sending middleware that fills the rawAnswer in the context of
// an elicitation/create.
func keepRawAnswer(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if keep, ok := ctx.Value(rawAnswerKey{}).(*rawAnswer); ok && method == "elicitation/create" && err == nil {
			data, _ := json.Marshal(res)
			keep.mu.Lock()
			keep.data = data
			keep.mu.Unlock()
		}
		return res, err
	}
}

// registerAskTool adds ask, which asks the client's user a question during the call
// (elicitation/create; an input request of its result for a client of 2026-07-28)
// and answers with what came back: "action=ACTION content=JSON", the content as the
// client sent it (null when none).
func registerAskTool(s *mcp.Server) {
	s.AddSendingMiddleware(keepRawAnswer)
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "ask the client's user for a form's values (elicitation/create), or to open a URL, and answer with the action and the content the client sent"},
		func(ctx context.Context, req *mcp.CallToolRequest, in askArgs) (*mcp.CallToolResult, any, error) {
			p := &mcp.ElicitParams{Message: in.Message}
			switch {
			case in.URL != "":
				p.Mode, p.URL, p.ElicitationID = "url", in.URL, "el-1"
				if p.Message == "" {
					p.Message = "Please sign in to the example service."
				}
			case in.Schema != nil:
				p.Mode, p.RequestedSchema = "form", in.Schema
			default:
				p.Mode, p.RequestedSchema = "form", json.RawMessage(AskSchema)
			}
			if p.Message == "" {
				p.Message = "Please tell us about yourself."
			}
			if ip := req.Session.InitializeParams(); ip != nil && ip.ProtocolVersion >= "2026-07-28" {
				// A client of 2026-07-28 is asked in the result's input requests and
				// comes back with its answer (SEP-2322); it may not be sent a request.
				answer, ok := req.Params.InputResponses["ask"].(*mcp.ElicitResult)
				if !ok {
					return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"ask": p}}, nil, nil
				}
				content := "null"
				if answer.Content != nil {
					b, _ := json.Marshal(answer.Content)
					content = string(b)
				}
				return text(fmt.Sprintf("action=%s content=%s", answer.Action, content)), nil, nil
			}
			keep := &rawAnswer{}
			res, err := req.Session.Elicit(context.WithValue(ctx, rawAnswerKey{}, keep), p)
			if err != nil {
				return nil, nil, fmt.Errorf("elicitation failed: %w", err)
			}
			var sent struct {
				Content json.RawMessage `json:"content"`
			}
			keep.mu.Lock()
			_ = json.Unmarshal(keep.data, &sent)
			keep.mu.Unlock()
			content := string(sent.Content)
			if content == "" {
				content = "null"
			}
			return text(fmt.Sprintf("action=%s content=%s", res.Action, content)), nil, nil
		})
}
