//lint:file-ignore SA1019 sampling and roots are deprecated in the 2026-07-28 protocol, yet a server still asks for them in input requests; the driver answers them.

// Command confclient is the client of the MCP conformance suite's client scenarios
// that are not sign-ins (those run `switchboard login` and `switchboard call`, see
// scripts/conformance-client): it makes Switchboard's own upstream connection (a
// hub with the scenario's server as its one Streamable HTTP server, its supervisor
// and the SDK client under it) do what each scenario asks, as the Go SDK's own
// conformance client does with a bare SDK session. What the server asks of its
// client (elicitation, sampling, roots, as input requests of the 2026-07-28
// protocol or as requests of older ones) goes to a relay.Peer, the seam through
// which a person, a model or a gateway's client answers them in the product; here
// the peer accepts as the SDK's conformance client does.
//
//	confclient URL
//
// The suite starts it with the scenario's server as its last argument, the
// scenario's name in MCP_CONFORMANCE_SCENARIO and, for some, a JSON object in
// MCP_CONFORMANCE_CONTEXT. It exits 0 when it did what the scenario asks (the
// suite's checks say whether that conformed), 1 otherwise, 2 on a bad invocation.
// internal/proof (TestConformanceClient2026) runs it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/relay"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// server is the scenario server's name in the hub.
const server = "conformance"

// scenario is what one scenario asks of the client once it is connected.
type scenario func(ctx context.Context, d *driver) error

var scenarios = map[string]scenario{
	// Connecting is the scenario: the discover's headers and _meta, and a retry
	// with a version the server names when it refuses the first (SEP-2575).
	"request-metadata": func(context.Context, *driver) error { return nil },
	// The connection lists the tools; a $ref to the network is never followed.
	"json-schema-ref-no-deref": func(context.Context, *driver) error { return nil },
	"tools_call": func(ctx context.Context, d *driver) error {
		return d.call(ctx, "add_numbers", map[string]any{"a": 5, "b": 3})
	},
	// Input requests answered by the peer, the request state echoed, and a call
	// between two rounds that carries neither (SEP-2322).
	"sep-2322-client-request-state": func(ctx context.Context, d *driver) error {
		for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
			if err := d.call(ctx, name, map[string]any{}); err != nil {
				d.log.Info("call refused (some are meant to be)", "tool", name, "err", err)
			}
		}
		return nil
	},
	// Mcp-Method and Mcp-Name on a call, a read and a prompt (SEP-2243).
	"http-standard-headers": func(ctx context.Context, d *driver) error {
		if tools := d.h.Tools(); len(tools) > 0 {
			_ = d.call(ctx, tools[0].Name, map[string]any{})
		}
		if rs := d.h.Resources(); len(rs) > 0 {
			if _, err := d.h.ReadResource(ctx, &mcp.ReadResourceParams{URI: rs[0].URI}); err != nil {
				d.log.Info("read failed", "uri", rs[0].URI, "err", err)
			}
		}
		if ps := d.h.Prompts(); len(ps) > 0 {
			if _, err := d.h.GetPrompt(ctx, &mcp.GetPromptParams{Name: ps[0].Name, Arguments: map[string]string{}}); err != nil {
				d.log.Info("prompt failed", "prompt", ps[0].Name, "err", err)
			}
		}
		return nil
	},
	// Mcp-Param-* headers from the tools' x-mcp-header annotations, on the calls the
	// context names (SEP-2243).
	"http-custom-headers": func(ctx context.Context, d *driver) error {
		var c struct {
			ToolCalls []struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"toolCalls"`
		}
		_ = json.Unmarshal(d.context, &c)
		for _, tc := range c.ToolCalls {
			if tc.Arguments == nil {
				tc.Arguments = map[string]any{}
			}
			if err := d.call(ctx, tc.Name, tc.Arguments); err != nil {
				d.log.Info("call failed", "tool", tc.Name, "err", err)
			}
		}
		return nil
	},
	// Tools whose x-mcp-header annotations are invalid are left out of the list;
	// every tool listed is called.
	"http-invalid-tool-headers": func(ctx context.Context, d *driver) error {
		for _, t := range d.h.Tools() {
			if err := d.call(ctx, t.Name, map[string]any{"region": "us-west1"}); err != nil {
				d.log.Info("call refused", "tool", t.Name, "err", err)
			}
		}
		return nil
	},
	// The focal tool's input schema, as the catalog holds it, echoed back for the
	// suite to see which JSON Schema 2020-12 keywords survived.
	"json-schema-2020-12-preservation": func(ctx context.Context, d *driver) error {
		focal, ok := d.h.Lookup("json_schema_2020_12_tool")
		if !ok {
			return fmt.Errorf("tool json_schema_2020_12_tool is not in the catalog")
		}
		return d.call(ctx, "json_schema_echo", map[string]any{"schema": json.RawMessage(focal.InputSchema)})
	},
}

// driver is one run: the hub connected to the scenario's server.
type driver struct {
	h       *hub.Hub
	log     *slog.Logger
	context json.RawMessage // MCP_CONFORMANCE_CONTEXT
}

// call calls a tool through the hub; a result that is an error is an error.
func (d *driver) call(ctx context.Context, name string, args map[string]any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	res, err := d.h.Call(ctx, name, raw)
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s: %s", name, tool.Text(res))
	}
	d.log.Info("called", "tool", name, "result", tool.Text(res))
	return nil
}

// answers is the peer that answers the server's questions as the SDK's conformance
// client does: elicitations accepted with {"confirmed": true}, a sampling answered
// with a fixed text, no roots.
type answers struct{}

func (answers) Request(_ context.Context, _, method string, _ mcp.Params) (mcp.Result, error) {
	switch method {
	case relay.MethodElicit:
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirmed": true}}, nil
	case relay.MethodCreateMessage:
		return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "confclient", Content: []mcp.Content{&mcp.TextContent{Text: "sampled"}}}, nil
	case relay.MethodListRoots:
		return &mcp.ListRootsResult{Roots: []*mcp.Root{}}, nil
	}
	return nil, fmt.Errorf("confclient: no answer to %s", method)
}

func (answers) Notify(context.Context, string, string, mcp.Params) {}

func main() { os.Exit(run()) }

func run() int {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	sc, ok := scenarios[name]
	if len(os.Args) < 2 || !ok {
		names := make([]string, 0, len(scenarios))
		for n := range scenarios {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: MCP_CONFORMANCE_SCENARIO=NAME %s URL\nscenario %q unknown; known: %s\n", os.Args[0], name, strings.Join(names, ", "))
		return 2
	}
	url := os.Args[len(os.Args)-1]
	cfg := &config.Config{Servers: []config.Server{{Name: server, Transport: config.HTTP, URL: url}}}
	h := hub.New(cfg, &hub.Options{Logger: log, Upstream: &upstream.Options{
		// What the peer answers; a scenario server sees them declared in _meta.
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		Attempts:     1,
	}})
	defer h.Close()
	link := h.AddPeer(answers{})
	defer link.Remove()

	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "confclient: %v\n", err)
		return 1
	}
	if st, err := h.WaitServer(ctx, server); err != nil || st.State != upstream.Ready {
		fmt.Fprintf(os.Stderr, "confclient: server %s is %s: %v %s\n", server, st.State, err, st.LastError)
		return 1
	}
	for _, st := range h.Status() {
		log.Info("connected", "server", st.Name, "protocol", st.Protocol, "tools", st.Tools)
	}
	d := &driver{h: h, log: log, context: json.RawMessage(os.Getenv("MCP_CONFORMANCE_CONTEXT"))}
	if err := sc(ctx, d); err != nil {
		fmt.Fprintf(os.Stderr, "confclient: scenario %s: %v\n", name, err)
		return 1
	}
	return 0
}
