package main

//lint:file-ignore SA1019 logging is deprecated in the 2026-07-28 protocol but lives in the versions servers use today; the log tool sends it.

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type textArgs struct {
	Text string `json:"text" jsonschema:"the text"`
}

type failArgs struct {
	Text string `json:"text,omitempty" jsonschema:"the error's text; $VARIABLES of the server's environment are expanded"`
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"first addend"`
	B float64 `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type sleepArgs struct {
	Ms int `json:"ms" jsonschema:"milliseconds to sleep"`
}

type bigArgs struct {
	Bytes int `json:"bytes" jsonschema:"number of 'x' characters to return"`
}

type nameArgs struct {
	Name string `json:"name" jsonschema:"tool name"`
}

type noArgs struct{}

// text returns a result with a single text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func formatNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// addEchoTool registers an echo tool under the given name.
func addEchoTool(s *mcp.Server, name string) {
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: "echo the text back"},
		func(_ context.Context, _ *mcp.CallToolRequest, in textArgs) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
}

// registerTools adds the fixed tool set plus one echo tool per extra name.
func registerTools(s *mcp.Server, extra []string) {
	addEchoTool(s, "echo")

	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "add two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, addOut, error) {
			sum := in.A + in.B
			msg := formatNum(in.A) + "+" + formatNum(in.B) + "=" + formatNum(sum)
			return text(msg), addOut{Sum: sum}, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "sleep ms milliseconds (stops early on cancellation); says \"testserver: sleep started\" on stderr first"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepArgs) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "testserver: sleep started")
			start := time.Now()
			t := time.NewTimer(time.Duration(in.Ms) * time.Millisecond)
			defer t.Stop()
			select {
			case <-t.C:
				return text("slept"), nil, nil
			case <-ctx.Done():
				msg := fmt.Sprintf("sleep cancelled after %dms: %v", time.Since(start).Milliseconds(), ctx.Err())
				fmt.Fprintln(os.Stderr, "testserver:", msg)
				return text(msg), nil, nil
			}
		})

	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "return a tool error: text, with $VARIABLES of the server's environment expanded (a server quoting its own configuration), or \"failure requested\""},
		func(_ context.Context, _ *mcp.CallToolRequest, in failArgs) (*mcp.CallToolResult, any, error) {
			msg := "failure requested"
			if in.Text != "" {
				msg = os.ExpandEnv(in.Text)
			}
			res := text(msg)
			res.IsError = true
			return res, nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "return one text block of `bytes` 'x' characters"},
		func(_ context.Context, _ *mcp.CallToolRequest, in bigArgs) (*mcp.CallToolResult, any, error) {
			if in.Bytes < 0 {
				return nil, nil, fmt.Errorf("bytes must not be negative, got %d", in.Bytes)
			}
			return text(strings.Repeat("x", in.Bytes)), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "log", Description: "send one info log message of `bytes` 'l' characters (to a client that set a level), then answer"},
		func(ctx context.Context, req *mcp.CallToolRequest, in bigArgs) (*mcp.CallToolResult, any, error) {
			if in.Bytes < 0 {
				return nil, nil, fmt.Errorf("bytes must not be negative, got %d", in.Bytes)
			}
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "testserver", Data: strings.Repeat("l", in.Bytes)}); err != nil {
				return nil, nil, err
			}
			return text("logged"), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "return the server's process id"},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "register a new echo tool at run time"},
		func(_ context.Context, _ *mcp.CallToolRequest, in nameArgs) (*mcp.CallToolResult, any, error) {
			if in.Name == "" {
				return nil, nil, fmt.Errorf("name is required")
			}
			addEchoTool(s, in.Name)
			return text("added " + in.Name), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "add_tool_later", Description: "register a new echo tool 100ms after answering, so that the list change relates to no request"},
		func(_ context.Context, _ *mcp.CallToolRequest, in nameArgs) (*mcp.CallToolResult, any, error) {
			if in.Name == "" {
				return nil, nil, fmt.Errorf("name is required")
			}
			time.AfterFunc(100*time.Millisecond, func() { addEchoTool(s, in.Name) })
			return text("will add " + in.Name), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "remove_tool", Description: "remove a tool at run time"},
		func(_ context.Context, _ *mcp.CallToolRequest, in nameArgs) (*mcp.CallToolResult, any, error) {
			s.RemoveTools(in.Name)
			return text("removed " + in.Name), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "exit the process with status 3 without answering"},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "testserver: crash requested")
			os.Exit(exitCrashTool)
			return nil, nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "stderr", Description: "write text to stderr as a line"},
		func(_ context.Context, _ *mcp.CallToolRequest, in textArgs) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, in.Text)
			return text("ok"), nil, nil
		})

	for _, name := range extra {
		addEchoTool(s, name)
	}
}

// linkedURI is the resource of --resource-link.
const linkedURI = "test://testserver/readme"

// registerLinkTool lists linkedURI (its text names the server) and registers link,
// whose result carries a resource link to it, the same resource embedded, and a
// link to a web page that is no resource of the server's.
func registerLinkTool(s *mcp.Server) {
	s.AddResource(&mcp.Resource{URI: linkedURI, Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: req.Params.URI, MIMEType: "text/plain", Text: "readme of pid " + strconv.Itoa(os.Getpid())},
			}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "link", Description: "link to and embed " + linkedURI},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.ResourceLink{URI: linkedURI, Name: "readme"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: linkedURI, MIMEType: "text/plain", Text: "embedded"}},
				&mcp.ResourceLink{URI: "https://example.com/page", Name: "page"},
			}}, nil, nil
		})
}
