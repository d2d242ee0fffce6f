package gateway_test

//lint:file-ignore SA1019 roots, sampling and logging are deprecated in the 2026-07-28 protocol but live in the versions clients use today; a proxy forwards them.

// The gateway as a full proxy, against real upstreams: the Go SDK's conformance
// everything-server ("conf") and the npm server-everything ("ev"), each a child
// process of a hub, with an SDK client on the gateway's Streamable HTTP endpoint.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// proxyClient is a client of the gateway that records what the servers send it and
// answers their requests: sampling with "sampled: PROMPT", elicitation by accepting
// {"name": "Ada"} (or what the schema's properties need), and roots with one root.
type proxyClient struct {
	client *mcp.Client
	cs     *mcp.ClientSession

	mu             sync.Mutex
	logs           []*mcp.LoggingMessageParams
	progress       []*mcp.ProgressNotificationParams
	updated        []string
	promptsChanged int
	sampled        []string      // prompts seen by the sampling handler
	elicited       []string      // messages seen by the elicitation handler
	elicitGate     chan struct{} // if set, elicitation answers wait for it to close
}

const testRoot = "file:///tmp/switchboard-proxy-test"

func (c *proxyClient) snapshot(read func(*proxyClient)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	read(c)
}

// awaitLogs waits up to 5 s for c to have received n log messages.
func (c *proxyClient) awaitLogs(t *testing.T, what string, n int) {
	t.Helper()
	testenv.WaitFor(t, what, 5*time.Second, func() bool {
		got := 0
		c.snapshot(func(c *proxyClient) { got = len(c.logs) })
		return got >= n
	})
}

// proxy starts a hub on servers (told every forwardable capability, as `switchboard
// mcp --listen` does), a gateway in front of it on loopback HTTP, and a client of
// the 2025-11-25 protocol (the one that has server-to-client requests).
func proxy(t *testing.T, servers ...config.Server) (*hub.Hub, *proxyClient) {
	t.Helper()
	h, url := proxyURL(t, servers...)
	return h, connectProxyClient(t, url)
}

// proxyURL is proxy without the client: the hub and the gateway's URL.
func proxyURL(t *testing.T, servers ...config.Server) (*hub.Hub, string) {
	t.Helper()
	return proxyURLWith(t, proxyOpts{}, servers...)
}

// sessionEra is the upstream protocol of the tests of requests a server sends in the
// middle of a call (the conformance server's test_sampling and test_elicitation):
// only 2025-11-25 and before allow them; on a 2026-07-28 connection the server's
// own SDK refuses to send them.
const sessionEra = "2025-11-25"

// proxyOpts vary proxyURLWith's setup.
type proxyOpts struct {
	http      *gateway.HTTPOptions // how the gateway serves
	protocol  string               // the upstream connections' (upstream.Options.ProtocolVersion)
	inputWait time.Duration        // gateway.Options.InputWait
}

// proxyURLWith is proxyURL with o.
func proxyURLWith(t *testing.T, o proxyOpts, servers ...config.Server) (*hub.Hub, string) {
	t.Helper()
	h, _, url := proxyGateway(t, o, servers...)
	return h, url
}

// proxyGateway is proxyURLWith that also returns the gateway.
func proxyGateway(t *testing.T, o proxyOpts, servers ...config.Server) (*hub.Hub, *gateway.Gateway, string) {
	t.Helper()
	uo := testserver.Fast()
	uo.StopGrace, uo.ProtocolVersion = time.Second, o.protocol
	h := hub.New(&config.Config{Servers: servers}, &hub.Options{Logger: quiet, Upstream: uo})
	t.Cleanup(func() { h.Close() })
	h.SetCapabilities(gateway.AllForwardable())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, st := range h.Status() {
		if st.State != upstream.Ready {
			t.Fatalf("server %s: %s (%s)\n%s", st.Name, st.State, st.LastError, strings.Join(st.Stderr, "\n"))
		}
	}
	g := gateway.New(h, &gateway.Options{Logger: quiet, InputWait: o.inputWait})
	t.Cleanup(func() { g.Close() })
	b, err := g.Listen("127.0.0.1:0", o.http)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return h, g, b.URL()
}

func connectProxyClient(t *testing.T, url string) *proxyClient {
	t.Helper()
	return connectProxyClientVersion(t, url, "2025-11-25")
}

// connectProxyClientVersion is connectProxyClient asking for protocol version ("":
// the SDK's newest, 2026-07-28).
func connectProxyClientVersion(t *testing.T, url, version string) *proxyClient {
	t.Helper()
	pc := &proxyClient{}
	c := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			prompt := ""
			if len(req.Params.Messages) > 0 {
				if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
					prompt = tc.Text
				}
			}
			pc.mu.Lock()
			pc.sampled = append(pc.sampled, prompt)
			pc.mu.Unlock()
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "sampled: " + prompt}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			pc.mu.Lock()
			pc.elicited = append(pc.elicited, req.Params.Message)
			gate := pc.elicitGate
			pc.mu.Unlock()
			if gate != nil {
				<-gate
			}
			return &mcp.ElicitResult{Action: "accept", Content: elicitAnswer(req.Params.RequestedSchema)}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			pc.mu.Lock()
			pc.logs = append(pc.logs, req.Params)
			pc.mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			pc.mu.Lock()
			pc.progress = append(pc.progress, req.Params)
			pc.mu.Unlock()
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			pc.mu.Lock()
			pc.updated = append(pc.updated, req.Params.URI)
			pc.mu.Unlock()
		},
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
			pc.mu.Lock()
			pc.promptsChanged++
			pc.mu.Unlock()
		},
	})
	c.AddRoots(&mcp.Root{URI: testRoot, Name: "project"})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	pc.cs, pc.client = cs, c
	return pc
}

// elicitAnswer fills every property of a requested schema with a plausible value.
func elicitAnswer(schema any) map[string]any {
	out := map[string]any{}
	raw, _ := json.Marshal(schema)
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
			Enum []any  `json:"enum"`
		} `json:"properties"`
	}
	json.Unmarshal(raw, &s)
	for name, p := range s.Properties {
		switch {
		case len(p.Enum) > 0:
			out[name] = p.Enum[0]
		case p.Type == "boolean":
			out[name] = true
		case p.Type == "number" || p.Type == "integer":
			out[name] = 7
		default:
			out[name] = "Ada"
		}
	}
	return out
}

func conf(t *testing.T, name string) config.Server {
	return config.Server{Name: name, Transport: config.Stdio, Command: testenv.EverythingServer(t), InitTimeout: 30 * time.Second, ToolTimeout: 30 * time.Second}
}

// confHTTP is the conformance server over Streamable HTTP with sessions (so that it
// may send its client requests), in a child process stopped at cleanup.
func confHTTP(t *testing.T, name string) config.Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // the server takes the port over (a race with other tests' ports is unlikely)
	cmd := exec.Command(testenv.EverythingServer(t), "--http", addr, "--stateless=false")
	cmd.Stderr = &testenv.Buffer{}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	testenv.WaitFor(t, "the conformance server to listen", 10*time.Second, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return config.Server{Name: name, Transport: config.HTTP, URL: "http://" + addr + "/mcp", InitTimeout: 30 * time.Second, ToolTimeout: 30 * time.Second}
}

func everything(t *testing.T) config.Server {
	return config.Server{Name: "ev", Transport: config.Stdio, Command: testenv.NPMBin(t, testenv.ServerEverything), InheritEnv: true, InitTimeout: 30 * time.Second, ToolTimeout: 30 * time.Second}
}

func ctx15(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func promptNames(t *testing.T, cs *mcp.ClientSession) []string {
	return listed(t, cs.Prompts(ctx15(t), nil), func(p *mcp.Prompt) string { return p.Name })
}

func resourceURIs(t *testing.T, cs *mcp.ClientSession) []string {
	return listed(t, cs.Resources(ctx15(t), nil), func(r *mcp.Resource) string { return r.URI })
}

func templateURIs(t *testing.T, cs *mcp.ClientSession) []string {
	return listed(t, cs.ResourceTemplates(ctx15(t), nil), func(rt *mcp.ResourceTemplate) string { return rt.URITemplate })
}

// listed is the key of every entry of a list the client pages through.
func listed[T any](t *testing.T, list iter.Seq2[T, error], key func(T) string) []string {
	t.Helper()
	var keys []string
	for v, err := range list {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key(v))
	}
	return keys
}

func readText(t *testing.T, cs *mcp.ClientSession, uri string) *mcp.ResourceContents {
	t.Helper()
	res, err := cs.ReadResource(ctx15(t), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0]
}

func messagesText(res *mcp.GetPromptResult) string {
	var parts []string
	for _, m := range res.Messages {
		if tc, ok := m.Content.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Prompts, resources, templates and completions of two different servers pass
// through under their own names.
func TestProxyPromptsResourcesCompletions(t *testing.T) {
	t.Parallel()
	_, c := proxy(t, conf(t, "conf"), everything(t))
	cs := c.cs

	names := promptNames(t, cs)
	for _, want := range []string{"test_simple_prompt", "test_prompt_with_arguments", "simple-prompt", "completable-prompt"} {
		if !slices.Contains(names, want) {
			t.Errorf("prompt %q missing from %v", want, names)
		}
	}
	res, err := cs.GetPrompt(ctx15(t), &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "alpha", "arg2": "beta"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := messagesText(res); !strings.Contains(text, "alpha") || !strings.Contains(text, "beta") {
		t.Errorf("prompt with arguments: %q", text)
	}
	if _, err := cs.GetPrompt(ctx15(t), &mcp.GetPromptParams{Name: "no_such_prompt"}); err == nil {
		t.Error("unknown prompt: no error")
	}

	if got := readText(t, cs, "test://static-text"); !strings.Contains(got.Text, "static text resource") || got.URI != "test://static-text" {
		t.Errorf("static text: %+v", got)
	}
	if got := readText(t, cs, "test://static-binary"); len(got.Blob) == 0 || got.MIMEType != "image/png" {
		t.Errorf("static binary: %d bytes, %q", len(got.Blob), got.MIMEType)
	}
	// Not listed, but the conformance server's template matches it.
	if got := readText(t, cs, "test://template/42/data"); !strings.Contains(got.Text, `"id": "42"`) {
		t.Errorf("template read: %q", got.Text)
	}
	// A resource of server-everything, listed by it.
	uris := resourceURIs(t, cs)
	i := slices.IndexFunc(uris, func(uri string) bool { return strings.HasPrefix(uri, "demo://") })
	if i < 0 {
		t.Fatal("no demo:// resource of server-everything listed")
	}
	evURI := uris[i]
	if got := readText(t, cs, evURI); got.URI != evURI || (got.Text == "" && len(got.Blob) == 0) {
		t.Errorf("read %s: %+v", evURI, got)
	}
	_, err = cs.ReadResource(ctx15(t), &mcp.ReadResourceParams{URI: "nowhere://nothing"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeResourceNotFound {
		t.Errorf("unknown resource: err = %v, want code %d", err, mcp.CodeResourceNotFound)
	}

	templates := templateURIs(t, cs)
	if !slices.Contains(templates, "test://template/{id}/data") {
		t.Errorf("templates = %v", templates)
	}

	comp, err := cs.Complete(ctx15(t), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "completable-prompt"},
		Argument: mcp.CompleteParamsArgument{Name: "department", Value: "Eng"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(comp.Completion.Values, "Engineering") {
		t.Errorf("completion of department %q = %v", "Eng", comp.Completion.Values)
	}
}

// Two copies of one server: the second's prompt names get its prefix (the first in
// the config keeps them, as with tools), resource URIs and templates the
// reversible switchboard:// form, and every request finds its way.
func TestProxyCollidingServers(t *testing.T) {
	t.Parallel()
	_, c := proxy(t, conf(t, "a"), conf(t, "b"))
	cs := c.cs

	names := promptNames(t, cs)
	for _, want := range []string{"test_simple_prompt", "b__test_simple_prompt"} {
		if !slices.Contains(names, want) {
			t.Errorf("prompt %q missing from %v", want, names)
		}
	}
	if _, err := cs.GetPrompt(ctx15(t), &mcp.GetPromptParams{Name: "b__test_simple_prompt"}); err != nil {
		t.Errorf("get b__test_simple_prompt: %v", err)
	}

	uris := resourceURIs(t, cs)
	for _, want := range []string{"switchboard://a/test://static-text", "switchboard://b/test://static-text"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resource %q missing from %v", want, uris)
		}
	}
	if slices.Contains(uris, "test://static-text") {
		t.Errorf("colliding URI listed unprefixed: %v", uris)
	}
	got := readText(t, cs, "switchboard://b/test://static-text")
	if got.URI != "switchboard://b/test://static-text" || !strings.Contains(got.Text, "static text resource") {
		t.Errorf("prefixed read: %+v", got)
	}
	// Templates too: the client expands the listed template and reads the result.
	templates := templateURIs(t, cs)
	if !slices.Contains(templates, "switchboard://a/test://template/{id}/data") {
		t.Errorf("templates = %v", templates)
	}
	if got := readText(t, cs, "switchboard://a/test://template/7/data"); !strings.Contains(got.Text, `"id": "7"`) {
		t.Errorf("prefixed template read: %q", got.Text)
	}
	if _, err := cs.Complete(ctx15(t), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "switchboard://a/test://template/{id}/data"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: "1"},
	}); err != nil {
		t.Errorf("completion on a prefixed template: %v", err)
	}

	// URIs inside what a server returns lead back to it too: a resource it lists or
	// one of its templates matches gets the prefix; any other URI passes through.
	for uri, want := range map[string]string{
		"test://static-text":       "switchboard://b/test://static-text",
		"test://template/7/data":   "switchboard://b/test://template/7/data",
		"https://example.com/page": "https://example.com/page",
	} {
		res, err := cs.GetPrompt(ctx15(t), &mcp.GetPromptParams{Name: "b__test_prompt_with_embedded_resource", Arguments: map[string]string{"resourceUri": uri}})
		if err != nil {
			t.Fatalf("prompt embedding %s: %v", uri, err)
		}
		var got []string
		for _, m := range res.Messages {
			if e, ok := m.Content.(*mcp.EmbeddedResource); ok {
				got = append(got, e.Resource.URI)
			}
		}
		if !slices.Equal(got, []string{want}) {
			t.Errorf("prompt embedding %s: embedded URIs %v, want [%s]", uri, got, want)
		}
	}
	res, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "b__test_embedded_resource"})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("b__test_embedded_resource: %v %+v", err, res)
	}
	if e, ok := res.Content[0].(*mcp.EmbeddedResource); !ok || e.Resource.URI != "test://embedded-resource" {
		t.Errorf("embedded resource the server does not list: %+v, want its URI unchanged", res.Content[0])
	}
}

// Progress comes back under the client's own token; log messages reach the client
// that called, at the level it set; cancelling a call cancels it at the server.
func TestProxyProgressLoggingCancellation(t *testing.T) {
	t.Parallel()
	ts := testserver.Stdio(t, "ts")
	ts.ToolTimeout = time.Minute // else its end could pass for the cancellation below
	h, c := proxy(t, conf(t, "conf"), ts)
	cs := c.cs

	if err := cs.SetLoggingLevel(ctx15(t), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Meta: mcp.Meta{"progressToken": "client-token-1"}, Name: "test_tool_with_progress"})
	if err != nil || res.IsError {
		t.Fatalf("progress tool: %v %+v", err, res)
	}
	// The server saw the gateway's token, not the client's.
	if text := tool.Text(res); text == "client-token-1" || !strings.HasPrefix(text, "switchboard-") {
		t.Errorf("token at the server = %q, want a gateway token", text)
	}
	testenv.WaitFor(t, "three progress notifications", 5*time.Second, func() bool {
		n := 0
		c.snapshot(func(c *proxyClient) { n = len(c.progress) })
		return n >= 3
	})
	c.snapshot(func(c *proxyClient) {
		for _, p := range c.progress {
			if p.ProgressToken != "client-token-1" || p.Total != 100 {
				t.Errorf("progress %+v: want the client's token and total 100", p)
			}
		}
		if last := c.progress[len(c.progress)-1]; last.Progress != 100 {
			t.Errorf("last progress = %v, want 100", last.Progress)
		}
	})

	if res, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_tool_with_logging"}); err != nil || res.IsError {
		t.Fatalf("logging tool: %v %+v", err, res)
	}
	c.awaitLogs(t, "three log messages", 3)
	c.snapshot(func(c *proxyClient) {
		var data []string
		for _, l := range c.logs {
			data = append(data, fmt.Sprint(l.Data))
			if l.Logger != "conf" || l.Level != "info" {
				t.Errorf("log %+v: want logger conf (the server), level info", l)
			}
		}
		if !slices.Contains(data, "Tool execution completed") {
			t.Errorf("log data = %v", data)
		}
	})

	// Cancellation: the test server's sleep reports on stderr when it starts and
	// when it is cancelled; the call is cancelled once the server runs it.
	callCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	called := startSleep(t, callCtx, h, cs, 1)
	cancel()
	if err := <-called; err == nil {
		t.Fatal("cancelled call returned no error")
	}
	awaitSleepCancelled(t, h, 1)
}

// Over Streamable HTTP without sessions a client cancels a call by ending its POST
// (a notifications/cancelled would come on a session of its own): the server's call
// is cancelled then, not when its tool timeout ends it, for clients of either
// protocol (one of 2026-07-28 with sampling runs its call as an exchange).
func TestStatelessCancellation(t *testing.T) {
	t.Parallel()
	ts := testserver.Stdio(t, "ts")
	ts.ToolTimeout = time.Minute
	h, url := proxyURLWith(t, proxyOpts{http: &gateway.HTTPOptions{Stateless: true}}, ts)
	for i, version := range []string{"2025-11-25", ""} {
		c := connectProxyClientVersion(t, url, version)
		callCtx, cancel := context.WithCancel(context.Background())
		called := startSleep(t, callCtx, h, c.cs, i+1)
		cancel()
		if err := <-called; err == nil {
			t.Fatalf("%q: cancelled call returned no error", version)
		}
		awaitSleepCancelled(t, h, i+1)
	}
}

// startSleep calls the sleep (30 s) of the hub's test server "ts" on cs with ctx and
// waits until the server runs it, its nth since it started; the call's error comes on
// the channel, an error result as an error (a call the gateway ends may still get
// its result out before the client's session closes). Give "ts" a tool timeout
// longer than the test's waits, so that the timeout's cancellation cannot pass for
// another.
func startSleep(t *testing.T, ctx context.Context, h *hub.Hub, cs *mcp.ClientSession, nth int) <-chan error {
	t.Helper()
	called := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 30000}})
		if err == nil && res.IsError {
			err = fmt.Errorf("error result: %s", tool.Text(res))
		}
		called <- err
	}()
	testenv.WaitFor(t, "the server to start the sleep", 10*time.Second, func() bool { return serverSaidTimes(h, "ts", "sleep started") >= nth })
	return called
}

// awaitSleepCancelled waits up to 10 s for "ts" to say that a sleep was cancelled,
// the nth time.
func awaitSleepCancelled(t *testing.T, h *hub.Hub, nth int) {
	t.Helper()
	testenv.WaitFor(t, "the server to see the cancellation", 10*time.Second, func() bool { return serverSaidTimes(h, "ts", "sleep cancelled after") >= nth })
}

// serverSaidTimes counts the lines of server's stderr, as the hub keeps it, that
// have text.
func serverSaidTimes(h *hub.Hub, server, text string) int {
	n := 0
	for _, st := range h.Status() {
		if st.Name == server {
			for _, line := range st.Stderr {
				if strings.Contains(line, text) {
					n++
				}
			}
		}
	}
	return n
}

// Requests a server sends its client — sampling, elicitation, roots — reach the
// gateway's client and its answers go back, from both SDKs' servers: to a client of
// the 2025-11-25 protocol as requests, to one of 2026-07-28 (the Go SDK's default)
// as the input requests of a multi-round-trip call.
func TestProxyServerToClientRequests(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			// The SDK's client negotiates 2026-07-28 only with a server without
			// sessions (server/discover); with sessions it falls back to 2025-11-25.
			// The servers send their requests on their own: the upstream connections
			// speak 2025-11-25 (TestProxyInputRequiredServers covers 2026-07-28's).
			h, url := proxyURLWith(t, proxyOpts{http: &gateway.HTTPOptions{Stateless: version >= "2026-07-28"}, protocol: sessionEra}, conf(t, "conf"), everything(t))
			c := connectProxyClientVersion(t, url, version)
			if got := c.cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s, want %s", got, version)
			}
			serverToClientRequests(t, h, c)
		})
	}
}

// A gateway with sessions (the default) serves a client of 2026-07-28, which has
// none, beside one of 2025-11-25 on its session: each negotiates its own version,
// and each gets its servers' requests its own way while the other is connected.
func TestProxyServesBothRevisionsAtOnce(t *testing.T) {
	t.Parallel()
	h, url := proxyURLWith(t, proxyOpts{protocol: sessionEra}, conf(t, "conf"), everything(t))
	older := connectProxyClientVersion(t, url, "2025-11-25")
	newer := connectProxyClientVersion(t, url, "") // the SDK's newest: server/discover first
	for c, want := range map[*proxyClient]string{older: "2025-11-25", newer: "2026-07-28"} {
		if got := c.cs.InitializeResult().ProtocolVersion; got != want {
			t.Fatalf("negotiated %s, want %s", got, want)
		}
	}
	if newer.cs.ID() != "" || older.cs.ID() == "" {
		t.Errorf("session ids: 2026-07-28 %q (want none), 2025-11-25 %q (want one)", newer.cs.ID(), older.cs.ID())
	}
	serverToClientRequests(t, h, newer)
	serverToClientRequests(t, h, older)
	if text, isErr := callText(t, newer.cs, "test_simple_text", map[string]any{}); isErr || text == "" {
		t.Errorf("2026-07-28 client's call after the other's: %q (error %v)", text, isErr)
	}
}

func serverToClientRequests(t *testing.T, h *hub.Hub, c *proxyClient) {
	t.Helper()
	cs := c.cs

	text, isErr := callText(t, cs, "test_sampling", map[string]any{"prompt": "capital of France?"})
	if isErr || text != "LLM response: sampled: capital of France?" {
		t.Errorf("conf sampling = %q (error %v)", text, isErr)
	}
	text, isErr = callText(t, cs, "test_elicitation", map[string]any{"message": "who are you?"})
	if isErr || !strings.Contains(text, "action=accept") || !strings.Contains(text, "Ada") {
		t.Errorf("conf elicitation = %q (error %v)", text, isErr)
	}
	text, isErr = callText(t, cs, "trigger-sampling-request", map[string]any{"prompt": "say hi", "maxTokens": 20})
	if isErr || !strings.Contains(text, "sampled: ") || !strings.Contains(text, "say hi") {
		t.Errorf("ev sampling = %q (error %v)", text, isErr)
	}
	text, isErr = callText(t, cs, "get-roots-list", map[string]any{})
	if isErr || !strings.Contains(text, testRoot) {
		t.Errorf("ev roots = %q (error %v)", text, isErr)
	}
	c.snapshot(func(c *proxyClient) {
		if !slices.Contains(c.sampled, "capital of France?") || !slices.ContainsFunc(c.sampled, func(p string) bool { return strings.Contains(p, "say hi") }) {
			t.Errorf("sampling handler saw %q", c.sampled)
		}
		if !slices.Contains(c.elicited, "who are you?") {
			t.Errorf("elicitation handler saw %q", c.elicited)
		}
	})
	if cs.InitializeResult().ProtocolVersion >= "2026-07-28" {
		return // such a client has no session to send notifications/roots/list_changed on
	}
	// The client's roots change: server-everything hears of it and asks again.
	const newRoot = "file:///tmp/switchboard-proxy-test-2"
	c.client.AddRoots(&mcp.Root{URI: newRoot, Name: "second"})
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, _ := callText(t, cs, "get-roots-list", map[string]any{})
		if strings.Contains(text, newRoot) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server does not see the new root: %q\nserver-everything's stderr:\n%s", text, strings.Join(h.Status()[1].Stderr, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A subscription reaches the server, its updates reach the client with the URI it
// subscribed to, and a prompt list change upstream reaches the client as
// notifications/prompts/list_changed with the new prompt listed.
func TestProxySubscriptionsAndListChanges(t *testing.T) {
	t.Parallel()
	_, c := proxy(t, conf(t, "conf"))
	cs := c.cs

	const watched = "test://watched-resource"
	if err := cs.Subscribe(ctx15(t), &mcp.SubscribeParams{URI: watched}); err != nil {
		t.Fatal(err)
	}
	// The conformance server updates it every 3 seconds.
	testenv.WaitFor(t, "an update of the watched resource", 10*time.Second, func() bool {
		ok := false
		c.snapshot(func(c *proxyClient) { ok = slices.Contains(c.updated, watched) })
		return ok
	})
	if err := cs.Unsubscribe(ctx15(t), &mcp.UnsubscribeParams{URI: watched}); err != nil {
		t.Fatal(err)
	}

	before := promptNames(t, cs)
	if _, isErr := callText(t, cs, "test_trigger_prompt_change", map[string]any{}); isErr {
		t.Fatal("test_trigger_prompt_change failed")
	}
	testenv.WaitFor(t, "prompts/list_changed", 10*time.Second, func() bool {
		n := 0
		c.snapshot(func(c *proxyClient) { n = c.promptsChanged })
		return n > 0
	})
	testenv.WaitFor(t, "the new prompt", 5*time.Second, func() bool {
		return len(promptNames(t, cs)) != len(before)
	})
}

// A server that a reload restarts (its config changed) is subscribed again to what
// the clients hold: the resource updates go on. A server that a reload removes ends
// the subscriptions to it.
func TestProxySubscriptionsOutliveAReload(t *testing.T) {
	t.Parallel()
	srv := conf(t, "conf")
	h, c := proxy(t, srv)
	const watched = "test://watched-resource"
	updated := func() bool {
		ok := false
		c.snapshot(func(c *proxyClient) { ok = slices.Contains(c.updated, watched) })
		return ok
	}
	if err := c.cs.Subscribe(ctx15(t), &mcp.SubscribeParams{URI: watched}); err != nil {
		t.Fatal(err)
	}
	// The conformance server updates it every 3 seconds.
	testenv.WaitFor(t, "an update of the watched resource", 10*time.Second, updated)

	srv.Env = map[string]string{"SWITCHBOARD_TEST_RELOADED": "1"}
	if err := h.Reload(&config.Config{Servers: []config.Server{srv}}); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, "the restarted server to be ready", 30*time.Second, func() bool {
		st := h.Status()
		return len(st) == 1 && st[0].State == upstream.Ready
	})
	c.snapshot(func(c *proxyClient) { c.updated = nil })
	testenv.WaitFor(t, "an update of the watched resource from the restarted server", 10*time.Second, updated)

	// A reload that removes the server: the client's subscription to it just ends.
	if err := h.Reload(&config.Config{}); err != nil {
		t.Fatal(err)
	}
	if err := c.cs.Unsubscribe(ctx15(t), &mcp.UnsubscribeParams{URI: watched}); err != nil {
		t.Errorf("unsubscribe from a server that a reload removed: %v", err)
	}
}

// Several clients on one gateway: a server's request and its log messages go to the
// client whose call caused them, never to another. A client that cannot answer a
// request gets an error result; so does a request made while several clients' calls
// to that server are under way (nothing says which one caused it).
func TestProxyRoutesToTheCallingClient(t *testing.T) {
	t.Parallel()
	_, url := proxyURLWith(t, proxyOpts{protocol: sessionEra}, conf(t, "conf"))
	a, b := connectProxyClient(t, url), connectProxyClient(t, url)
	plain, _ := connect(t, &mcp.StreamableClientTransport{Endpoint: url}) // no sampling, no handlers
	for _, c := range []*proxyClient{a, b} {
		if err := c.cs.SetLoggingLevel(ctx15(t), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range []*proxyClient{a, b, a} {
		prompt := fmt.Sprintf("call %d", i)
		if text, isErr := callText(t, c.cs, "test_sampling", map[string]any{"prompt": prompt}); isErr || text != "LLM response: sampled: "+prompt {
			t.Errorf("%s: %q (error %v)", prompt, text, isErr)
		}
	}
	a.snapshot(func(c *proxyClient) {
		if !slices.Equal(c.sampled, []string{"call 0", "call 2"}) {
			t.Errorf("client a's sampling handler saw %q", c.sampled)
		}
	})
	b.snapshot(func(c *proxyClient) {
		if !slices.Equal(c.sampled, []string{"call 1"}) {
			t.Errorf("client b's sampling handler saw %q", c.sampled)
		}
	})

	text, isErr := callText(t, plain, "test_sampling", map[string]any{"prompt": "nobody"})
	if !isErr || !strings.Contains(text, "does not support") {
		t.Errorf("sampling for a client without it = %q (error %v)", text, isErr)
	}

	// b's call is under way (its elicitation waits) while a calls: a's sampling
	// request cannot be attributed, and goes to nobody.
	release := make(chan struct{})
	b.snapshot(func(c *proxyClient) { c.elicitGate = release })
	bDone := make(chan error, 1)
	go func() {
		_, err := b.cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_elicitation", Arguments: map[string]any{"message": "hold on"}})
		bDone <- err
	}()
	testenv.WaitFor(t, "b's elicitation to arrive", 5*time.Second, func() bool {
		n := 0
		b.snapshot(func(c *proxyClient) { n = len(c.elicited) })
		return n == 1
	})
	text, isErr = callText(t, a.cs, "test_sampling", map[string]any{"prompt": "ambiguous"})
	if !isErr || !strings.Contains(text, "which one caused it is unknown") {
		t.Errorf("sampling with two clients' calls under way = %q (error %v)", text, isErr)
	}
	close(release)
	if err := <-bDone; err != nil {
		t.Errorf("b's call: %v", err)
	}
	for _, c := range []*proxyClient{a, b} {
		c.snapshot(func(c *proxyClient) {
			if slices.Contains(c.sampled, "ambiguous") {
				t.Errorf("a client got the unattributable request: %q", c.sampled)
			}
		})
	}

	logsGoToTheCaller(t, a, b)
}

// A call made around the gateway — a program's own call on the hub the gateway
// fronts — is no client's: the server's request during it is refused rather than
// shown to the gateway's client (the only one, and the one heard from last), and
// its log messages reach no client.
func TestProxyKeepsOutCallsAroundIt(t *testing.T) {
	t.Parallel()
	h, url := proxyURL(t, conf(t, "conf"))
	a := connectProxyClient(t, url)
	if err := a.cs.SetLoggingLevel(ctx15(t), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	res, err := h.Call(ctx15(t), "test_sampling", json.RawMessage(`{"prompt":"the program's own"}`))
	if err == nil && !res.IsError {
		t.Errorf("the program's own sampling call succeeded: %q", tool.Text(res))
	}
	if res, err := h.Call(ctx15(t), "test_tool_with_logging", json.RawMessage(`{}`)); err != nil || res.IsError {
		t.Fatalf("the program's own logging call: %v %v", err, res)
	}
	// a's own call, after: its log messages arrive; none of the program's did.
	if _, isErr := callText(t, a.cs, "test_tool_with_logging", map[string]any{}); isErr {
		t.Fatal("logging tool failed")
	}
	a.awaitLogs(t, "client a's own log messages", 3)
	time.Sleep(100 * time.Millisecond) // room for a stray message to arrive
	a.snapshot(func(c *proxyClient) {
		if len(c.sampled) > 0 {
			t.Errorf("client a was asked to sample for a call it did not make: %q", c.sampled)
		}
		if len(c.logs) != 3 {
			t.Errorf("client a got %d log messages, want its own 3", len(c.logs))
		}
	})
}

// logsGoToTheCaller: a server's last log message comes right before its result,
// and goes to the client that called (a), not to another (b). Several calls, so
// that a message handled after its call returned would show: with no call under way
// it goes to every client.
func logsGoToTheCaller(t *testing.T, a, b *proxyClient) {
	t.Helper()
	const calls = 5
	for range calls {
		if _, isErr := callText(t, a.cs, "test_tool_with_logging", map[string]any{}); isErr {
			t.Fatal("logging tool failed")
		}
	}
	a.awaitLogs(t, "client a's log messages", 3*calls)
	b.snapshot(func(c *proxyClient) {
		if len(c.logs) != 0 {
			for _, l := range c.logs {
				t.Errorf("client b got a log message: %+v", *l)
			}
		}
	})
}

// The same over a Streamable HTTP upstream, whose connection the hub cannot wrap to
// order notifications before responses (see upstream.noteCounter).
func TestProxyLogsGoToTheCallerOverHTTP(t *testing.T) {
	t.Parallel()
	_, url := proxyURL(t, confHTTP(t, "conf"))
	a, b := connectProxyClient(t, url), connectProxyClient(t, url)
	for _, c := range []*proxyClient{a, b} {
		if err := c.cs.SetLoggingLevel(ctx15(t), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
	}
	logsGoToTheCaller(t, a, b)
}

// The multi-round-trip exchange, step by step, with a 2026-07-28 client that
// handles input requests itself: the server's sampling request comes back as an
// input request with a request state; the state does nothing for another request;
// the answer, sent with it, reaches the server, whose result ends the call; the
// state is then spent. A call left waiting
// for its answer is ended when the gateway closes (the leak check sees to the rest).
func TestProxyMultiRoundTripByHand(t *testing.T) {
	t.Parallel()
	_, url := proxyURLWith(t, proxyOpts{http: &gateway.HTTPOptions{Stateless: true}, protocol: sessionEra}, conf(t, "conf"))
	cs := connectByHand(t, url)
	args := map[string]any{"prompt": "by hand"}
	first, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_sampling", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if !first.NeedsInput() || first.RequestState == "" || len(first.InputRequests) != 1 {
		t.Fatalf("first round: %+v, want one input request and a state", first)
	}
	var id string
	for k, ir := range first.InputRequests {
		id = k
		p, ok := ir.(*mcp.CreateMessageWithToolsParams)
		if !ok || len(p.Messages) != 1 || len(p.Messages[0].Content) != 1 {
			t.Fatalf("input request %T %+v, want the server's sampling request", ir, ir)
		}
		if tc, ok := p.Messages[0].Content[0].(*mcp.TextContent); !ok || tc.Text != "by hand" {
			t.Errorf("sampling message %+v, want the prompt", p.Messages[0].Content[0])
		}
	}
	answer := mcp.InputResponseMap{id: &mcp.CreateMessageResult{Role: "assistant", Model: "hand", Content: &mcp.TextContent{Text: "answered by hand"}}}
	// The state is good only for the request that got it.
	if _, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_simple_text", InputResponses: answer, RequestState: first.RequestState}); err == nil || !strings.Contains(err.Error(), "requestState is unknown or expired") {
		t.Errorf("the state with another tool: err %v, want it refused", err)
	}
	if _, err := cs.GetPrompt(ctx15(t), &mcp.GetPromptParams{Name: "test_simple_prompt", InputResponses: answer, RequestState: first.RequestState}); err == nil || !strings.Contains(err.Error(), "requestState is unknown or expired") {
		t.Errorf("the state with a prompt: err %v, want it refused", err)
	}
	second, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_sampling", Arguments: args, InputResponses: answer, RequestState: first.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if second.NeedsInput() || tool.Text(second) != "LLM response: answered by hand" {
		t.Errorf("second round: %q (needs input %v)", tool.Text(second), second.NeedsInput())
	}
	for _, state := range []string{first.RequestState, "made-up"} {
		_, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_sampling", Arguments: args, InputResponses: answer, RequestState: state})
		if err == nil || !strings.Contains(err.Error(), "requestState is unknown or expired") {
			t.Errorf("state %q: err %v, want it refused", state, err)
		}
	}
	// Left waiting: the gateway's Close (at cleanup) ends it.
	if left, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_sampling", Arguments: args}); err != nil || !left.NeedsInput() {
		t.Fatalf("call left waiting: %v %+v", err, left)
	}
}

// The conformance server's multi-round-trip tools and prompt return input requests;
// over an upstream connection of 2025-11-25 the server's SDK turns the first round
// into requests to its client (the hub) and returns the rest, over one of
// 2026-07-28 it returns them all. Either way several requests at once, two rounds
// in a row, roots and a prompt's elicitation reach a client of either protocol, and
// the answers come back.
func TestProxyInputRequiredServers(t *testing.T) {
	t.Parallel()
	for _, upstreamVersion := range []string{sessionEra, upstream.DefaultProtocolVersion} {
		for _, version := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(upstreamVersion+"/"+version, func(t *testing.T) {
				t.Parallel()
				_, url := proxyURLWith(t, proxyOpts{http: &gateway.HTTPOptions{Stateless: version >= "2026-07-28"}, protocol: upstreamVersion}, conf(t, "conf"))
				c := connectProxyClientVersion(t, url, version)
				if got := c.cs.InitializeResult().ProtocolVersion; got != version {
					t.Fatalf("negotiated %s, want %s", got, version)
				}
				for tl, want := range map[string]string{
					"test_input_required_result_multiple_inputs": "sampled: Generate a greeting Ada — 1 root(s) visible",
					"test_input_required_result_multi_round":     "Multi-round complete: Ada likes Ada",
					"test_input_required_result_list_roots":      testRoot,
				} {
					if text, isErr := callText(t, c.cs, tl, map[string]any{}); isErr || !strings.Contains(text, want) {
						t.Errorf("%s = %q (error %v), want %q in it", tl, text, isErr, want)
					}
				}
				res, err := c.cs.GetPrompt(ctx15(t), &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
				if err != nil {
					t.Fatalf("prompt: %v", err)
				}
				if len(res.Messages) != 1 || tool.Text(&mcp.CallToolResult{Content: []mcp.Content{res.Messages[0].Content}}) != "Context: Ada" {
					t.Errorf("prompt messages %+v, want the elicited context", res.Messages)
				}
			})
		}
	}
}

// A 2026-07-28 client that leaves a round unanswered holds no other client off the
// server: over an upstream of 2025-11-25 nothing on the wire says which call a
// server's request is for, and the call waiting for its client's answers is not the
// one that asked — another client's sampling request reaches that client (before,
// it was refused: "2 callers … which one caused it is unknown", until InputWait
// ended the left exchange). The round left waiting is still its client's: its
// answer, when it comes, ends its call.
func TestProxyRoundLeftWaitingBlocksNoOne(t *testing.T) {
	t.Parallel()
	_, url := proxyURLWith(t, proxyOpts{protocol: sessionEra}, conf(t, "conf"))
	left := connectByHand(t, url)
	args := map[string]any{"prompt": "left waiting"}
	first, err := left.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_sampling", Arguments: args})
	if err != nil || !first.NeedsInput() || len(first.InputRequests) != 1 {
		t.Fatalf("first round: %v %+v", err, first)
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		c := connectProxyClientVersion(t, url, version)
		text, isErr := callText(t, c.cs, "test_sampling", map[string]any{"prompt": "meanwhile " + version})
		if want := "LLM response: sampled: meanwhile " + version; isErr || text != want {
			t.Errorf("a %s client's call while another's round waits: %q (error %v), want %q", version, text, isErr, want)
		}
		c.snapshot(func(c *proxyClient) {
			if !slices.Equal(c.sampled, []string{"meanwhile " + version}) {
				t.Errorf("the %s client was asked %q, want only its own call's prompt", version, c.sampled)
			}
		})
	}
	answers := mcp.InputResponseMap{}
	for id := range first.InputRequests {
		answers[id] = &mcp.CreateMessageResult{Role: "assistant", Model: "hand", Content: &mcp.TextContent{Text: "at last"}}
	}
	second, err := left.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_sampling", Arguments: args, InputResponses: answers, RequestState: first.RequestState})
	if err != nil || second.NeedsInput() || tool.Text(second) != "LLM response: at last" {
		t.Errorf("the round left waiting, answered: %v %q", err, tool.Text(second))
	}
}

// connectByHand connects a 2026-07-28 client that can sample but handles input
// requests itself (the SDK's loop off), to the gateway at url without sessions.
func connectByHand(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "by-hand", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:   &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}},
	})
	cs, err := c.Connect(ctx15(t), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	return cs
}

// A client that does not come back with its answers within Options.InputWait finds
// its request state spent: the exchange has ended. (Its sleep is the point: only
// time passing ends the exchange.)
func TestProxyInputWaitExpires(t *testing.T) {
	t.Parallel()
	const wait = 200 * time.Millisecond
	_, url := proxyURLWith(t, proxyOpts{http: &gateway.HTTPOptions{Stateless: true}, inputWait: wait, protocol: sessionEra}, conf(t, "conf"))
	cs := connectByHand(t, url)
	args := map[string]any{"prompt": "too late"}
	first, err := cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_sampling", Arguments: args})
	if err != nil || !first.NeedsInput() || len(first.InputRequests) != 1 {
		t.Fatalf("first round: %v %+v", err, first)
	}
	time.Sleep(5 * wait)
	answers := mcp.InputResponseMap{}
	for id := range first.InputRequests {
		answers[id] = &mcp.CreateMessageResult{Role: "assistant", Model: "late", Content: &mcp.TextContent{Text: "late"}}
	}
	_, err = cs.CallTool(ctx15(t), &mcp.CallToolParams{Name: "test_sampling", Arguments: args, InputResponses: answers, RequestState: first.RequestState})
	if err == nil || !strings.Contains(err.Error(), "requestState is unknown or expired") {
		t.Errorf("answer after InputWait: err %v, want the state refused", err)
	}
}
