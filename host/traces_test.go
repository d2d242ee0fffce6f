//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/otlptest"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/telemetry"
)

// TestTraces: with OTEL_EXPORTER_OTLP_ENDPOINT set to a loopback OTLP/HTTP
// receiver, a turn asked for over the API with a traceparent is exported in that
// trace: the request's span, the turn's invoke_agent, the model's chat m, the tool's
// execute_tool meta and, under it, the CLIENT span tools/call meta of the request
// to the MCP server, with their GenAI and MCP attributes. The model server gets the
// traceparent of the chat span, the MCP server the tools/call span's in _meta. A
// gateway client's call (/mcp) with a traceparent in its _meta continues its trace.
func TestTraces(t *testing.T) {
	for _, v := range []string{"OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_RESOURCE_ATTRIBUTES"} {
		t.Setenv(v, "")
	}
	rcv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "host-test")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shutdown, err := telemetry.Setup(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })

	t.Setenv("HOST_TEST_MODEL_KEY", "model-key-Tr4")
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	cfg := &config.Config{Servers: []config.Server{testserver.Stdio(t, "ts", "--meta")}}
	h := host.New(cfg, &host.Options{
		DataDir:  t.TempDir(),
		Model:    &config.ModelSettings{Name: "m", APIKeyEnv: "HOST_TEST_MODEL_KEY", BaseURL: fake.URL},
		Sessions: &config.SessionSettings{Store: "memory"},
	})
	t.Cleanup(func() { h.Close() })
	if err := h.Start(ctx, nil); err != nil {
		t.Fatal(err)
	}
	srv, err := h.API(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := serveAPI(t, srv)

	const tid, caller = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	do := func(path, body string) string {
		req, err := http.NewRequestWithContext(ctx, "POST", base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("traceparent", "00-"+tid+"-"+caller+"-01")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %d %s", path, res.StatusCode, b)
		}
		return string(b)
	}
	var sess struct{ ID string }
	if err := json.Unmarshal([]byte(do("/v1/sessions", `{}`)), &sess); err != nil || sess.ID == "" {
		t.Fatalf("session: %v", err)
	}
	answer := do("/v1/sessions/"+sess.ID+"/messages", `{"content": "call meta {}"}`)
	http.DefaultClient.CloseIdleConnections()

	// A gateway client's call (POST /mcp) with a traceparent in its _meta: the MCP
	// semantic conventions' propagation, continued through the gateway.
	const mcpTrace, mcpCaller = "5c4ab0cdd9a2f0d63cb86de1e5b3a1e4", "aa12bc34de56f789"
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: client, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "meta", Meta: mcp.Meta{"traceparent": "00-" + mcpTrace + "-" + mcpCaller + "-01"}})
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("the gateway client's call: %v %+v", err, res)
	}
	viaGateway := res.Content[0].(*mcp.TextContent).Text
	cs.Close()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := shutdown(ctx); err != nil { // flushes the spans
		t.Fatal(err)
	}

	spans := otlptest.Trace(rcv.Spans(), tid)
	req := spans["POST /v1/sessions/{id}/messages"]
	turn := spans["invoke_agent switchboard"]
	chat := spans["chat m"]
	exec := spans["execute_tool meta"]
	call := spans["tools/call meta"]
	for name, s := range map[string]otlptest.Span{"request": req, "invoke_agent": turn, "chat": chat, "execute_tool": exec, "tools/call": call} {
		if s.SpanID == "" {
			t.Fatalf("no %s span in trace %s; spans: %+v", name, tid, rcv.Spans())
		}
		if s.Service != "host-test" {
			t.Errorf("%s span of service %q, want host-test", name, s.Service)
		}
	}
	parents := []struct {
		name          string
		child, parent string
	}{
		{"request ← caller", req.ParentID, caller},
		{"invoke_agent ← request", turn.ParentID, req.SpanID},
		{"chat ← invoke_agent", chat.ParentID, turn.SpanID},
		{"execute_tool ← invoke_agent", exec.ParentID, turn.SpanID},
		{"tools/call ← execute_tool", call.ParentID, exec.SpanID},
	}
	for _, p := range parents {
		if p.child != p.parent {
			t.Errorf("%s: parent %s, want %s", p.name, p.child, p.parent)
		}
	}
	want := []struct {
		span      otlptest.Span
		key, want string
	}{
		{req, "http.route", "/v1/sessions/{id}/messages"},
		{req, "http.response.status_code", "200"},
		{turn, "gen_ai.operation.name", "invoke_agent"},
		{turn, "gen_ai.agent.name", "switchboard"},
		{turn, "gen_ai.conversation.id", sess.ID},
		{chat, "gen_ai.operation.name", "chat"},
		{chat, "gen_ai.provider.name", "openai"},
		{chat, "gen_ai.request.model", "m"},
		{exec, "gen_ai.operation.name", "execute_tool"},
		{exec, "gen_ai.tool.name", "meta"},
		{call, "mcp.method.name", "tools/call"},
		{call, "gen_ai.tool.name", "meta"},
		{call, "mcp.server.name", "ts"},
		{call, "network.transport", "pipe"},
	}
	for _, w := range want {
		if got := w.span.Attributes[w.key]; got != w.want {
			t.Errorf("span %s: %s = %q, want %q", w.span.Name, w.key, got, w.want)
		}
	}
	if chat.Kind != "SPAN_KIND_CLIENT" || call.Kind != "SPAN_KIND_CLIENT" || req.Kind != "SPAN_KIND_SERVER" {
		t.Errorf("kinds: chat %s, tools/call %s, request %s", chat.Kind, call.Kind, req.Kind)
	}
	if chat.Attributes["gen_ai.usage.input_tokens"] == "" || exec.Attributes["gen_ai.tool.call.id"] == "" {
		t.Errorf("chat without its usage or execute_tool without its call id: %v, %v", chat.Attributes, exec.Attributes)
	}

	// What the servers got: the MCP server the tools/call span in _meta (its answer
	// is the turn's), the model the chat span in the HTTP header.
	if tp := "00-" + tid + "-" + call.SpanID + "-01"; !strings.Contains(answer, `\"traceparent\":\"`+tp) {
		t.Errorf("the MCP server's _meta has no traceparent %s: %s", tp, answer)
	}
	gw := otlptest.Trace(rcv.Spans(), mcpTrace)["tools/call meta"]
	if gw.ParentID != mcpCaller || !strings.Contains(viaGateway, `"traceparent":"00-`+mcpTrace+"-"+gw.SpanID+"-01") {
		t.Errorf("the gateway client's trace: tools/call %+v, the server got %s; want the span a child of its _meta's, sent on in _meta", gw, viaGateway)
	}

	chats := map[string]bool{} // the traceparents of the turn's chat spans (two steps: the call, the answer)
	for _, s := range rcv.Spans() {
		if s.TraceID == tid && s.Name == "chat m" {
			chats["00-"+tid+"-"+s.SpanID+"-01"] = true
		}
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || len(chats) != 2 {
		t.Fatalf("%d model requests, %d chat spans; want 2 of each", len(reqs), len(chats))
	}
	for i, r := range reqs {
		if tp := r.Header.Get("traceparent"); !chats[tp] {
			t.Errorf("model request %d has traceparent %q, want a chat span's of %v", i, tp, chats)
		}
	}
}
