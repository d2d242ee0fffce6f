package gateway_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// A server held to 2025-11-25 reads its caller's capabilities in each request too
// (the key is MCP's own; the Go SDK's servers read it in every revision): the
// conformance server's test_missing_capability refuses a 2026-07-28 client that
// did not declare sampling with -32021, though the gateway's connection declares it,
// and runs for one that did.
func TestCallerCapabilitiesReachOlderServers(t *testing.T) {
	t.Parallel()
	_, url := proxyURLWith(t, proxyOpts{protocol: sessionEra}, conf(t, "conf"))
	status, msg := post2026(t, url, "tools/call", map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}}, map[string]any{})
	if status != http.StatusBadRequest || msg.Error == nil || msg.Error.Code != -32021 {
		t.Errorf("test_missing_capability without sampling: HTTP %d, %+v: want 400 and error -32021", status, msg)
	}
	status, msg = post2026(t, url, "tools/call", map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}}, map[string]any{"sampling": map[string]any{}})
	if text, _ := json.Marshal(msg.Result); status != http.StatusOK || msg.Error != nil || !strings.Contains(string(text), "tool executed") {
		t.Errorf("test_missing_capability with sampling: HTTP %d, %+v: want it run", status, msg)
	}
}

// What a client of 2026-07-28 gets through the gateway from a server of the same
// revision (the Go SDK's conformance server, over a 2026-07-28 upstream connection),
// in the default mode and without sessions, on the wire.
func TestRevision2026ThroughTheGateway(t *testing.T) {
	t.Parallel()
	for _, stateless := range []bool{false, true} {
		name := map[bool]string{false: "default", true: "stateless"}[stateless]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, url := proxyURLWith(t, proxyOpts{http: &gateway.HTTPOptions{Stateless: stateless}, protocol: upstream.DefaultProtocolVersion}, conf(t, "conf"))

			// Every 2026-07-28 result says whether it is complete; the gateway answers
			// reads itself, before the SDK's handler that sets it.
			status, msg := post2026(t, url, "resources/read", map[string]any{"uri": "test://static-text"}, map[string]any{})
			if status != http.StatusOK || msg.Result["resultType"] != "complete" {
				t.Errorf("resources/read: HTTP %d, result %v: want resultType complete", status, msg.Result)
			}

			// A call that needs a capability the client did not declare: the server
			// sees the client's capabilities, not the gateway's, and refuses it as it
			// would refuse the client, with -32021 and HTTP 400 (SEP-2575).
			status, msg = post2026(t, url, "tools/call", map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}}, map[string]any{})
			if status != http.StatusBadRequest || msg.Error == nil || msg.Error.Code != -32021 {
				t.Errorf("test_missing_capability without sampling: HTTP %d, %+v: want 400 and error -32021", status, msg)
			}

			// Input requests pass through under the server's keys, with the server's
			// own state; the answers reach it; a tampered state is the server's error.
			cs := connectByHand(t, url) // declares sampling only
			res, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_input_required_result_capabilities"})
			if err != nil {
				t.Fatal(err)
			}
			if !res.NeedsInput() || len(res.InputRequests) != 1 || res.InputRequests["greeting"] == nil {
				t.Errorf("test_input_required_result_capabilities for a client that can sample only: %+v, want its one sampling request, \"greeting\"", res.InputRequests)
			}
			first, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_input_required_result_tampered_state"})
			if err != nil || !first.NeedsInput() || first.RequestState == "" {
				t.Fatalf("test_input_required_result_tampered_state: %v %+v, want input requests and a state", err, first)
			}
			answers := mcp.InputResponseMap{}
			for id := range first.InputRequests {
				answers[id] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}
			}
			_, err = cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_input_required_result_tampered_state", InputResponses: answers, RequestState: first.RequestState + "-TAMPERED"}) // as the conformance suite tampers
			if err == nil || !strings.Contains(err.Error(), "tampered") {
				t.Errorf("a tampered state: err %v, want the server's error", err)
			}

			// A change of the server's tools reaches the client's subscriptions/listen
			// stream (the first: the conformance server's hook adds one tool, once).
			dc := connectDeferred(t, &mcp.StreamableClientTransport{Endpoint: url}, "")
			select {
			case <-dc.acked:
			case <-ctx15(t).Done():
				t.Fatal("no subscriptions/acknowledged")
			}
			if text, isErr := callText(t, dc.ClientSession, "test_trigger_tool_change", map[string]any{}); isErr {
				t.Fatalf("test_trigger_tool_change: %s", text)
			}
			dc.waitChanged(t, "the server added a tool")

			elicit, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_input_required_result_elicitation"})
			if err != nil || elicit.InputRequests["user_name"] == nil {
				t.Fatalf("test_input_required_result_elicitation: %v %+v, want the input request \"user_name\"", err, elicit)
			}
			done, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_input_required_result_elicitation", RequestState: elicit.RequestState,
				InputResponses: mcp.InputResponseMap{"user_name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}})
			if err != nil || done.NeedsInput() || tool.Text(done) != "Hello, Ada!" {
				t.Errorf("answered: %v %q (needs input %v), want Hello, Ada!", err, tool.Text(done), done.NeedsInput())
			}
		})
	}
}

// rpcMessage is a JSON-RPC response.
type rpcMessage struct {
	ID     any            `json:"id"`
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// post2026 sends one request of protocol 2026-07-28 to url from a client that
// declares caps, and returns the HTTP status and the response (from JSON or from
// the event stream).
func post2026(t *testing.T, url, method string, params, caps map[string]any) (int, rpcMessage) {
	t.Helper()
	params["_meta"] = map[string]any{
		mcp.MetaKeyProtocolVersion:    "2026-07-28",
		mcp.MetaKeyClientCapabilities: caps,
		mcp.MetaKeyClientInfo:         map[string]any{"name": "raw", "version": "1"},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx15(t), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if n, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", n)
	} else if u, ok := params["uri"].(string); ok {
		req.Header.Set("Mcp-Name", u)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg rpcMessage
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if ok && json.Unmarshal([]byte(data), &msg) == nil && msg.ID != nil {
				break
			}
		}
	} else if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatalf("%s: HTTP %d: %v", method, resp.StatusCode, err)
	}
	return resp.StatusCode, msg
}
