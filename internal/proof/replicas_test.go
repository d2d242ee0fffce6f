//go:build unix

package proof

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// TestReplicasServe2026Clients: clients of protocol 2026-07-28 need no sessions, so
// any replica of `switchboard serve` can answer any of their requests to /mcp. Two
// replicas, each with its own everything-server, behind a proxy that sends each
// request to the next replica in turn (no stickiness at all): a 2026-07-28 client
// discovers, lists and calls tools across both, every call answered. (docs/gateway.md
// says what still needs stickiness: older clients' sessions, server-to-client streams.)
func TestReplicasServe2026Clients(t *testing.T) {
	everything := testenv.EverythingServer(t)
	switchboard := testenv.Switchboard(t)
	sb := testenv.NewSandbox(t)
	env := sb.Env()
	t.Cleanup(func() {
		noProcessesLeft(t, everything, "everything-server")
		noProcessesLeft(t, switchboard, "switchboard")
	})
	config := filepath.Join(sb.Dir, "mcp.json")
	writeJSON(t, config, map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": everything}}})
	var backends []*url.URL
	for _, name := range []string{"replica-a", "replica-b"} {
		srv := startServer(t, "switchboard serve ("+name+")", sb.Work, env, func(addr string) []string {
			// --no-token: loopback, and the test is about replicas, not tokens.
			return []string{switchboard, "serve", "--config", config, "--addr", addr, "--no-token"}
		})
		testenv.WaitFor(t, name+"'s everything-server ready", 30*time.Second, func() bool { return serverReady("http://"+srv.addr+"/v1/servers/everything", "") })
		u, err := url.Parse("http://" + srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		backends = append(backends, u)
	}

	// The round-robin proxy, counting the MCP methods each replica answered.
	var (
		mu     sync.Mutex
		next   int
		served = make([]map[string]int, len(backends))
	)
	for i := range served {
		served[i] = map[string]int{}
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		mu.Lock()
		i := next
		next = (next + 1) % len(backends)
		served[i][r.In.Header.Get("Mcp-Method")]++
		mu.Unlock()
		r.SetURL(backends[i])
		r.Out.Host = backends[i].Host // serve refuses a loopback request under another Host
	}}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "replicas-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("connect through the round-robin proxy: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28", v)
	}
	for i := range 3 {
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list #%d: %v", i+1, err)
		}
		if !strings.Contains(toolNames(tools.Tools), "test_simple_text") {
			t.Fatalf("tools/list #%d: %s, want test_simple_text among them", i+1, toolNames(tools.Tools))
		}
	}
	for i := range 6 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}})
		if err != nil || res.IsError || len(res.Content) != 1 {
			t.Fatalf("tools/call #%d: %v %+v", i+1, err, res)
		}
		if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "simple text response") {
			t.Errorf("tools/call #%d: %+v", i+1, res.Content[0])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i, m := range served {
		if m["tools/list"] == 0 || m["tools/call"] == 0 {
			t.Errorf("replica %d answered %v: want tools/list and tools/call among them (each replica answers some of each)", i, m)
		}
	}
	t.Logf("requests by replica: %v", served)
}

func toolNames(tools []*mcp.Tool) string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return strings.Join(names, " ")
}

// serverReady reports whether serve's GET /v1/servers/NAME at url, asked with the
// bearer token when there is one, says the server is ready (serve answers, /readyz
// included, while its servers still connect).
func serverReady(url, token string) bool {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var st struct {
		State string `json:"state"`
	}
	return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&st) == nil && st.State == "ready"
}
