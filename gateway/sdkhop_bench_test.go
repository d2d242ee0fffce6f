package gateway_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// BenchmarkSDKHopHTTP is the cost of one hop of the official SDK over Streamable HTTP,
// the unit every gateway built from it pays once more than the direct path: an SDK
// client calls an SDK server's echo tool, both in this process, over real HTTP on
// loopback. The reference path makes the same exchange (the call's request, the result
// as one flushed event) with net/http alone, with no JSON-RPC or MCP processing. Both run in
// interleaved batches of benchBatch calls (benchRun); times are medians over rounds,
// bytes those of one more batch each. Reports:
//
//	sdk-µs/call, http-µs/call   wall time per call of each path
//	ratio                      SDK ÷ net/http
//	sdk-B/call, http-B/call    bytes allocated per call, client and server together
//
// scripts/bench-sdk-patched runs it (and the gateway benchmarks) again against a copy
// of the SDK whose internal/json.Unmarshal does not copy each message into a fresh
// 32 KiB buffer first, to show what that one change is worth.
func BenchmarkSDKHopHTTP(b *testing.B) {
	server := mcp.NewServer(&mcp.Implementation{Name: "hop", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, nil
		})
	sdkServer := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	b.Cleanup(sdkServer.Close)
	client := benchHTTPClient(b)
	sess := benchConnect(b, "SDK server (http)", &mcp.StreamableClientTransport{Endpoint: sdkServer.URL, HTTPClient: client})
	sdkCall := benchEcho(sess)

	// What the SDK sends and answers for one call, as the reference path replays it.
	request := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	response := []byte("event: message\nid: 0\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}}\n\n")
	rawServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(response)
		_ = http.NewResponseController(w).Flush() // as the SDK does after each event
	}))
	b.Cleanup(rawServer.Close)
	rawCall := func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawServer.URL, bytes.NewReader(request))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if !bytes.Equal(body, response) {
			return fmt.Errorf("reference server answered %q", body)
		}
		return nil
	}

	// The SDK's path in the place of the gateway's, net/http's in the place of the direct.
	seq := benchRun(b, 0, []benchMode{{"seq", []benchCall{rawCall}, []benchCall{sdkCall}, nil}})[0]
	b.ReportMetric(testenv.Median(seq.ratio), "ratio")
	b.ReportMetric(benchMicros(seq.gatewayNs), "sdk-µs/call")
	b.ReportMetric(benchMicros(seq.directNs), "http-µs/call")
	b.ReportMetric(benchAllocated(b, sdkCall), "sdk-B/call")
	b.ReportMetric(benchAllocated(b, rawCall), "http-B/call")
}

// benchAllocated is the bytes this process allocates per call over one batch of
// calls.
func benchAllocated(b *testing.B, call benchCall) float64 {
	b.Helper()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	if err := testenv.RunCalls(context.Background(), benchBatch, []benchCall{call}); err != nil {
		b.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.TotalAlloc-m0.TotalAlloc) / benchBatch
}
