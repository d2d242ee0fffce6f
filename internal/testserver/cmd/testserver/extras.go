package main

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The resources, template and prompts of --extras, under extrasURI. Their text names
// the server (--name), so that a test of several servers tells whose it read.
const (
	extrasURI    = "test://extras/"
	extrasPixel  = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==" // a 1×1 PNG
	extrasMarkup = `<img src=x onerror="window.extrasPwned=1"><b>bold?</b>`
)

// registerExtras lists resources of every kind a client shows differently, a
// template, and two prompts:
//
//   - notes.txt (text/plain): "notes of NAME"
//   - markup.html (text/html): markup that must stay text (extrasMarkup)
//   - pixel.png (image/png): a 1×1 PNG, as a blob
//   - data.bin (application/octet-stream): the bytes 0 to 255, as a blob
//   - broken (text/plain): its read fails with a JSON-RPC internal error
//   - slow (text/plain): its read waits until the client gives up
//   - the template items/{id}: "item ID of NAME"
//   - the prompt greet (who, required; mood, optional): a user and an assistant message
//   - the prompt plain (no arguments): one user message
//   - the tool add_extra (name): a text resource added/NAME, added at run time (the
//     server then says its resource list changed)
func registerExtras(s *mcp.Server, name string) {
	textOf := func(mime, text string) mcp.ResourceHandler {
		return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: text}}}, nil
		}
	}
	blobOf := func(mime string, data []byte) mcp.ResourceHandler {
		return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Blob: data}}}, nil
		}
	}
	pixel, _ := base64.StdEncoding.DecodeString(extrasPixel)
	bytes := make([]byte, 256)
	for i := range bytes {
		bytes[i] = byte(i)
	}
	s.AddResource(&mcp.Resource{URI: extrasURI + "notes.txt", Name: "notes", Title: "Notes of " + name, Description: "a text resource", MIMEType: "text/plain"},
		textOf("text/plain", "notes of "+name))
	s.AddResource(&mcp.Resource{URI: extrasURI + "markup.html", Name: "markup", Description: "markup that is text", MIMEType: "text/html"},
		textOf("text/html", extrasMarkup))
	s.AddResource(&mcp.Resource{URI: extrasURI + "pixel.png", Name: "pixel", Description: "a one-pixel image", MIMEType: "image/png", Size: int64(len(pixel))},
		blobOf("image/png", pixel))
	s.AddResource(&mcp.Resource{URI: extrasURI + "data.bin", Name: "data", Description: "256 bytes", MIMEType: "application/octet-stream", Size: 256},
		blobOf("application/octet-stream", bytes))
	s.AddResource(&mcp.Resource{URI: extrasURI + "broken", Name: "broken", Description: "its read fails", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the disk of " + name + " is on fire"}
		})
	s.AddResource(&mcp.Resource{URI: extrasURI + "slow", Name: "slow", Description: "its read never ends", MIMEType: "text/plain"},
		func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: extrasURI + "items/{id}", Name: "item", Description: "an item by id", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id, _ := strings.CutPrefix(req.Params.URI, extrasURI+"items/")
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "item " + id + " of " + name}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Title: "Greeting", Description: "greet someone",
		Arguments: []*mcp.PromptArgument{
			{Name: "who", Description: "whom to greet", Required: true},
			{Name: "mood", Description: "how"},
		}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			who, mood := req.Params.Arguments["who"], req.Params.Arguments["mood"]
			if mood == "" {
				mood = "kindly"
			}
			return &mcp.GetPromptResult{Description: "a greeting from " + name, Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Greet " + who + " " + mood + "."}},
				{Role: "assistant", Content: &mcp.TextContent{Text: "Hello, " + who + ", from " + name + "!"}},
			}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "plain", Description: "a prompt without arguments"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "plain prompt of " + name}}}}, nil
		})
	type addIn struct {
		Name string `json:"name" jsonschema:"the new resource's name"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add_extra", Description: "add the text resource " + extrasURI + "added/NAME at run time"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
			s.AddResource(&mcp.Resource{URI: extrasURI + "added/" + in.Name, Name: in.Name, MIMEType: "text/plain"}, textOf("text/plain", "added "+in.Name))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added " + in.Name}}}, nil, nil
		})
}
