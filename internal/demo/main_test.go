package demo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// childEnv, when set, turns the test binary into the demo server it names, speaking
// MCP over stdin/stdout (see stdio_test.go).
const childEnv = "DEMO_SERVER_CHILD"

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(runChild(name))
	}
	os.Exit(testenv.Main(m))
}

// runChild serves the demo server name over stdio, as `switchboard demo-server name`
// does, and returns the process exit code. SIGTERM and interrupts cancel Run's context,
// which Run must treat as a clean stop.
func runChild(name string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := demo.Run(ctx, name, nil); err != nil {
		fmt.Fprintf(os.Stderr, "demo server %s: %v\n", name, err)
		return 1
	}
	return 0
}

// fixedNow is the clock of the in-process servers: Saturday 2026-11-21 08:56:31 UTC.
var fixedNow = time.Date(2026, 11, 21, 8, 56, 31, 0, time.UTC)

// connect starts the demo server name in process and returns a client session to it.
// Both ends are closed, and the server session awaited, when the test ends.
func connect(t *testing.T, name string, opts *demo.Options) *mcp.ClientSession {
	t.Helper()
	srv, err := demo.NewServer(name, opts)
	if err != nil {
		t.Fatalf("NewServer(%q): %v", name, err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		t.Fatalf("client Connect: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("closing client session: %v", err)
		}
		if err := ss.Wait(); err != nil {
			t.Errorf("server session ended with: %v", err)
		}
	})
	return cs
}

// call calls a tool, failing the test on a protocol error, and returns the result
// with its text content joined.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s, %v): protocol error: %v", tool, args, err)
	}
	return res, resultText(res)
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// callOK is call for a call that must succeed, decoding the structured content into
// a T.
func callOK[T any](t *testing.T, cs *mcp.ClientSession, tool string, args any) (T, string) {
	t.Helper()
	var out T
	res, text := call(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", tool, args, text)
	}
	if res.StructuredContent == nil {
		t.Fatalf("%s(%v): no structured content", tool, args)
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("%s(%v): structured content %s: %v", tool, args, data, err)
	}
	return out, text
}

// callErr is call for a call that must fail with a tool error whose text contains
// every one of want.
func callErr(t *testing.T, cs *mcp.ClientSession, tool string, args any, want ...string) string {
	t.Helper()
	res, text := call(t, cs, tool, args)
	if !res.IsError {
		t.Fatalf("%s(%v) = %q, want a tool error", tool, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s(%v) error = %q, want it to contain %q", tool, args, text, w)
		}
	}
	return text
}

// toolNames lists the tools of a session, checking each has a description and an
// input schema with described properties.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
		schema, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(schema, &s); err != nil {
			t.Fatalf("tool %s: input schema %s: %v", tool.Name, schema, err)
		}
		if s.Type != "object" {
			t.Errorf("tool %s: input schema type %q, want object", tool.Name, s.Type)
		}
		for p, d := range s.Properties {
			if d.Description == "" {
				t.Errorf("tool %s: property %s has no description", tool.Name, p)
			}
		}
		if tool.OutputSchema == nil {
			t.Errorf("tool %s has no output schema", tool.Name)
		}
	}
	return names
}
