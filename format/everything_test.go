package format

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/tool"
)

// everythingBin is the reference server installed by `make deps`.
var everythingBin = filepath.Join("..", "testdata", "npm", "node_modules", ".bin", "mcp-server-everything")

// everything connects to @modelcontextprotocol/server-everything over stdio. It skips
// when the server is not installed, except under CI=true, where that is a failure.
func everything(t *testing.T) *mcp.ClientSession {
	t.Helper()
	bin, err := filepath.Abs(everythingBin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("reference server missing (%v): run `make deps`", err)
		}
		t.Skipf("reference server not installed (%v): run `make deps` to test against it", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node not found: %v", err)
		}
		t.Skipf("node not found (%v): the reference server needs it", err)
	}
	// No roots capability: server-everything waits for roots otherwise (docs/architecture.md, "Pitfalls already found").
	client := mcp.NewClient(&mcp.Implementation{Name: "format-test", Version: "0"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "stdio")
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", bin, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callEverything(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *tool.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return res
}

// everythingTools lists the server's tools as a catalog would hold them.
func everythingTools(t *testing.T, cs *mcp.ClientSession) []tool.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tools []tool.Tool
	for _, mt := range lt.Tools {
		in, err := json.Marshal(mt.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		tl := tool.Tool{Name: mt.Name, OriginalName: mt.Name, Server: "everything", Title: mt.Title,
			Description: mt.Description, InputSchema: tool.CleanSchema(json.RawMessage(in)), Annotations: mt.Annotations}
		if mt.OutputSchema != nil {
			tl.OutputSchema, _ = json.Marshal(mt.OutputSchema)
		}
		tools = append(tools, tl)
	}
	return tools
}

// TestEverything checks definitions and results against the reference server's real
// tools and real results.
func TestEverything(t *testing.T) {
	cs := everything(t)
	tools := everythingTools(t, cs)
	byName := map[string]tool.Tool{}
	for _, tl := range tools {
		byName[tl.Name] = tl
	}
	for _, name := range []string{"get-tiny-image", "get-resource-reference", "get-resource-links", "get-structured-content", "get-annotated-message", "echo"} {
		if _, ok := byName[name]; !ok {
			t.Fatalf("server-everything has no tool %q (has %d tools)", name, len(tools))
		}
	}
	// The argument names used below come from the published schema.
	ref := byName["get-resource-reference"]
	for _, prop := range []string{"resourceType", "resourceId"} {
		if field(t, ref.InputSchema, "properties", prop) == nil {
			t.Fatalf("get-resource-reference has no %s argument: %s", prop, ref.InputSchema)
		}
	}
	enum, _ := field(t, ref.InputSchema, "properties", "resourceType", "enum").([]any)
	if len(enum) != 2 || enum[0] != "Text" || enum[1] != "Blob" {
		t.Fatalf("resourceType enum = %v, want [Text Blob]", enum)
	}

	t.Run("definitions", func(t *testing.T) {
		for _, p := range Providers {
			for _, strict := range []bool{false, true} {
				defs, err := Tools(p, tools, &Options{Strict: strict})
				if err != nil {
					t.Fatalf("%s strict=%v: %v", p, strict, err)
				}
				if err := Validate(p, defs); err != nil {
					t.Errorf("%s strict=%v: %v", p, strict, err)
				}
				for _, d := range defs {
					if p != MCP && strings.Contains(string(d), "$schema") {
						t.Errorf("%s: $schema left in %s", p, d)
					}
				}
			}
		}
	})

	t.Run("get-tiny-image", func(t *testing.T) {
		res := callEverything(t, cs, "get-tiny-image", map[string]any{})
		want := "Here's the image you requested:\n[Image: image/png]\nThe image above is the MCP logo."
		for _, p := range []Provider{OpenAI, OpenAIResponses} {
			if got := resultText(t, p, res); got != want {
				t.Errorf("%s: %q, want %q", p, got, want)
			}
		}
		blocks := anthropicBlocks(t, res)
		if len(blocks) != 3 || blocks[0]["text"] != "Here's the image you requested:" || blocks[2]["text"] != "The image above is the MCP logo." {
			t.Fatalf("anthropic blocks: %v", blocks)
		}
		checkImageBlock(t, blocks[1])
	})

	t.Run("get-resource-reference", func(t *testing.T) {
		res := callEverything(t, cs, "get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 1})
		uri := res.Content[1].(*mcp.EmbeddedResource).Resource.URI
		text := resultText(t, OpenAI, res)
		if !strings.Contains(text, "\n[Resource: "+uri+"]\nResource 1: This is a plaintext resource") {
			t.Errorf("text resource: %q", text)
		}
		res = callEverything(t, cs, "get-resource-reference", map[string]any{"resourceType": "Blob", "resourceId": 2})
		r := res.Content[1].(*mcp.EmbeddedResource).Resource
		text = resultText(t, Anthropic, res)
		wantBlob := "[Resource: " + r.URI + "]\n(binary, " + strconv.Itoa(len(r.Blob)) + " bytes, text/plain)"
		if len(r.Blob) == 0 || !strings.Contains(text, wantBlob) {
			t.Errorf("blob resource: %q, want it to contain %q", text, wantBlob)
		}
	})

	t.Run("get-resource-links", func(t *testing.T) {
		res := callEverything(t, cs, "get-resource-links", map[string]any{"count": 3})
		text := resultText(t, OpenAIResponses, res)
		var links []string
		for _, c := range res.Content {
			if l, ok := c.(*mcp.ResourceLink); ok {
				links = append(links, "[Resource link: "+l.URI+"]")
			}
		}
		if len(links) != 3 || !strings.HasSuffix(text, strings.Join(links, "\n")) {
			t.Errorf("links %v in %q", links, text)
		}
	})

	t.Run("get-structured-content", func(t *testing.T) {
		res := callEverything(t, cs, "get-structured-content", map[string]any{"location": "Chicago"})
		if res.StructuredContent == nil {
			t.Fatal("no structured content")
		}
		// With a text block, the text is used as is.
		if got := resultText(t, OpenAI, res); got != res.Content[0].(*mcp.TextContent).Text {
			t.Errorf("with text: %q", got)
		}
		// Structured content alone is rendered as JSON.
		only := &tool.Result{StructuredContent: res.StructuredContent}
		for _, p := range []Provider{OpenAI, OpenAIResponses, Anthropic} {
			jsonEqual(t, []byte(resultText(t, p, only)), `{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}`)
		}
	})

	t.Run("get-annotated-message", func(t *testing.T) {
		res := callEverything(t, cs, "get-annotated-message", map[string]any{"messageType": "error", "includeImage": true})
		if got := resultText(t, OpenAI, res); got != "Error: Operation failed\n[Image: image/png]" {
			t.Errorf("openai: %q", got)
		}
		blocks := anthropicBlocks(t, res)
		if len(blocks) != 2 || blocks[0]["text"] != "Error: Operation failed" {
			t.Fatalf("anthropic blocks: %v", blocks)
		}
		checkImageBlock(t, blocks[1])
	})

	t.Run("echo", func(t *testing.T) {
		res := callEverything(t, cs, "echo", map[string]any{"message": "héllo <wörld>"})
		for _, p := range []Provider{OpenAI, OpenAIResponses, Anthropic} {
			if got := resultText(t, p, res); got != "Echo: héllo <wörld>" {
				t.Errorf("%s: %q", p, got)
			}
		}
		// The size cap on a real result.
		msg, err := ResultMessage(OpenAI, "c", res, &ResultOptions{MaxChars: 6})
		if err != nil {
			t.Fatal(err)
		}
		if got := field(t, msg, "content"); got != "Echo: \n…[truncated 13 of 19 characters]" {
			t.Errorf("capped: %q", got)
		}
	})

	t.Run("server error", func(t *testing.T) {
		res := callEverything(t, cs, "get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": -1})
		if !res.IsError {
			t.Fatalf("want an error result, got %+v", res)
		}
		if got := resultText(t, OpenAI, res); !strings.HasPrefix(got, "Error: Invalid resourceId: -1") {
			t.Errorf("openai: %q", got)
		}
		msg, _ := ResultMessage(Anthropic, "t", res, nil)
		if field(t, msg, "is_error") != true {
			t.Errorf("anthropic: no is_error in %s", msg)
		}
	})

	// A strict-mode round trip: the model answers a strict definition with null for
	// the optional arguments; DropOptionalNulls makes that acceptable to the server.
	t.Run("strict round trip", func(t *testing.T) {
		def, err := Definition(OpenAI, ref, &Options{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		if req := field(t, def, "function", "parameters", "required"); len(req.([]any)) != 2 {
			t.Fatalf("strict required = %v", req)
		}
		calls, err := ParseCalls(OpenAI, json.RawMessage(`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function",`+
			`"function":{"name":"get-resource-reference","arguments":"{\"resourceType\":null,\"resourceId\":2}"}}]}`))
		if err != nil || len(calls) != 1 || calls[0].Err != "" {
			t.Fatalf("calls %+v, %v", calls, err)
		}
		var raw map[string]any
		if err := json.Unmarshal(calls[0].Args, &raw); err != nil {
			t.Fatal(err)
		}
		// As sent, the server refuses the null: the reason DropOptionalNulls exists.
		if res := callEverything(t, cs, calls[0].Name, raw); !res.IsError {
			t.Errorf("the server accepted null for an optional argument: %s", resultText(t, OpenAI, res))
		}
		args := DropOptionalNulls(ref.InputSchema, calls[0].Args)
		jsonEqual(t, args, `{"resourceId":2}`)
		var m map[string]any
		if err := json.Unmarshal(args, &m); err != nil {
			t.Fatal(err)
		}
		res := callEverything(t, cs, calls[0].Name, m)
		if res.IsError || !strings.Contains(resultText(t, OpenAI, res), "Resource 2: This is a plaintext resource") {
			t.Errorf("result: %q", resultText(t, OpenAI, res))
		}
	})
}

// resultText is the text the provider's result message carries (Anthropic: the text
// blocks joined).
func resultText(t *testing.T, p Provider, res *tool.Result) string {
	t.Helper()
	msg, err := ResultMessage(p, "id", res, nil)
	if err != nil {
		t.Fatal(err)
	}
	switch p {
	case OpenAI:
		return field(t, msg, "content").(string)
	case OpenAIResponses:
		return field(t, msg, "output").(string)
	}
	var texts []string
	for _, b := range toolResultBlocks(t, msg, "id") {
		if b["type"] == "text" {
			texts = append(texts, b["text"].(string))
		}
	}
	return strings.Join(texts, "\n")
}

func anthropicBlocks(t *testing.T, res *tool.Result) []map[string]any {
	t.Helper()
	msg, err := ResultMessage(Anthropic, "toolu_1", res, nil)
	if err != nil {
		t.Fatal(err)
	}
	return toolResultBlocks(t, msg, "toolu_1")
}

// toolResultBlocks decodes an Anthropic tool_result for the call id and returns its
// content blocks.
func toolResultBlocks(t *testing.T, msg json.RawMessage, id string) []map[string]any {
	t.Helper()
	var m struct {
		Type      string           `json:"type"`
		ToolUseID string           `json:"tool_use_id"`
		Content   []map[string]any `json:"content"`
	}
	if err := json.Unmarshal(msg, &m); err != nil || m.Type != "tool_result" || m.ToolUseID != id {
		t.Fatalf("bad tool_result %s: %v", msg, err)
	}
	return m.Content
}

func checkImageBlock(t *testing.T, b map[string]any) {
	t.Helper()
	src, _ := b["source"].(map[string]any)
	if b["type"] != "image" || src["type"] != "base64" || src["media_type"] != "image/png" {
		t.Fatalf("not a PNG image block: %v", b)
	}
	data, err := base64.StdEncoding.DecodeString(src["data"].(string))
	if err != nil || len(data) < 8 || string(data[:8]) != "\x89PNG\r\n\x1a\n" {
		t.Errorf("image data is not a base64 PNG (%d bytes, %v)", len(data), err)
	}
}
