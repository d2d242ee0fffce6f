//go:build unix

package testserver

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectHTTP connects the SDK client over transport. The SSE client ties
// its event stream to Connect's context, so that context must outlive the
// session: it is cancelled in cleanup, not when Connect returns.
func connectHTTP(t *testing.T, transport mcp.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(10*time.Second, cancel) // bound the handshake
	client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0.0.1"}, opts)
	s, err := client.Connect(ctx, transport, nil)
	if !timer.Stop() || err != nil {
		cancel()
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		_ = s.Close()
		cancel()
	})
	return s
}

func TestHTTP(t *testing.T) {
	base := StartHTTP(t, "--name", "http-peer")
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("base URL = %q", base)
	}

	t.Run("streamable", func(t *testing.T) {
		changed := make(chan struct{}, 10)
		s := connectHTTP(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		})
		if got := s.InitializeResult().ServerInfo; got == nil || got.Name != "http-peer" {
			t.Errorf("server info = %+v", got)
		}
		if got := resultText(t, callTool(t, s, "echo", map[string]any{"text": "over http"})); got != "over http" {
			t.Errorf("echo = %q", got)
		}
		callTool(t, s, "add_tool", map[string]any{"name": "via_http"})
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Error("ToolListChangedHandler did not fire over streamable HTTP")
		}
		callTool(t, s, "remove_tool", map[string]any{"name": "via_http"})
	})

	t.Run("sse", func(t *testing.T) {
		s := connectHTTP(t, &mcp.SSEClientTransport{Endpoint: base + "/sse"}, nil)
		if got := resultText(t, callTool(t, s, "echo", map[string]any{"text": "over sse"})); got != "over sse" {
			t.Errorf("echo = %q", got)
		}
	})
}

// headerTransport adds a header to every request.
type headerTransport struct {
	name, value string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPRequireHeader(t *testing.T) {
	base := StartHTTP(t, "--require-header", "X-Token=s3cret")

	for _, path := range []string{"/mcp", "/sse"} {
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(initializeRequest))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-Token", "wrong")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST %s with wrong header: status %d, want 401", path, resp.StatusCode)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "no-header"}, nil)
	if s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil); err == nil {
		s.Close()
		t.Error("connect without the header succeeded")
	}

	hc := &http.Client{Transport: headerTransport{"X-Token", "s3cret"}}
	s := connectHTTP(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if got := resultText(t, callTool(t, s, "echo", map[string]any{"text": "authorized"})); got != "authorized" {
		t.Errorf("echo = %q", got)
	}
	sse := connectHTTP(t, &mcp.SSEClientTransport{Endpoint: base + "/sse", HTTPClient: hc}, nil)
	if got := resultText(t, callTool(t, sse, "echo", map[string]any{"text": "authorized sse"})); got != "authorized sse" {
		t.Errorf("sse echo = %q", got)
	}
}

func TestHTTPDieAfter(t *testing.T) {
	base := StartHTTP(t, "--die-after", "1")
	s := connectHTTP(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
	pid, err := strconv.Atoi(resultText(t, callTool(t, s, "pid", nil)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for ProcessAlive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if ProcessAlive(pid) {
		t.Error("HTTP server still alive after --die-after 1")
	}
}
