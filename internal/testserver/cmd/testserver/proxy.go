package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// proxy is the server of --proxy: the plainest proxy the official SDK makes, an SDK
// client whose server's tools an SDK server re-serves, each call forwarded unchanged.
// The gateway benchmarks measure it as the floor of any SDK-built gateway.
type proxy struct {
	session *mcp.ClientSession
	tools   []*mcp.Tool
}

// connectProxy connects to target (a Streamable HTTP URL, or else a command run as a
// stdio child), asking for protocol version protocol ("": the SDK's default), and
// lists its tools.
func connectProxy(target, protocol string) (*proxy, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var transport mcp.Transport
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		// As many idle connections as switchboard keeps per HTTP server.
		tr := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64}
		transport = &mcp.StreamableClientTransport{Endpoint: target, HTTPClient: &http.Client{Transport: tr}}
	} else {
		transport = &mcp.CommandTransport{Command: exec.Command(target)}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "testserver-proxy", Version: "v0.0.1"}, nil)
	session, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		return nil, fmt.Errorf("--proxy %s: %w", target, err)
	}
	p := &proxy{session: session}
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			session.Close()
			return nil, fmt.Errorf("--proxy %s: tools/list: %w", target, err)
		}
		p.tools = append(p.tools, t)
	}
	return p, nil
}

// register serves every upstream tool on s, forwarding calls unchanged.
func (p *proxy) register(s *mcp.Server) {
	for _, t := range p.tools {
		s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return p.session.CallTool(ctx, &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments})
		})
	}
}
