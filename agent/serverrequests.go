package agent

//lint:file-ignore SA1019 sampling, elicitation and roots are deprecated in the 2026-07-28 protocol but live in the versions servers use today (upstream connections speak 2025-11-25).

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/relay"
)

// ServerRequests answers what MCP servers ask their client while a tool runs: it is a
// relay.Peer, added to a hub with AddPeer (the gateway is another, for its clients).
//
//   - sampling/createMessage is answered by Model, with the request's own messages,
//     system prompt and token limit, for the servers AllowSampling names — off by
//     default, since a server would spend the user's tokens. The spec asks that "the
//     user SHOULD be able to … approve or deny" such requests: the config's per-server
//     "sampling": true is that approval, given ahead.
//   - elicitation/create asked during an agent's turn goes to that turn's Elicit
//     (TurnOptions.Elicit, Options.Elicit: a session's stream in serve), else to
//     Elicit, which asks a person (chat asks on the terminal); without one, it is
//     declined. One that came during no agent's call, with no Elicit here, is left
//     to the hub's other peers (a gateway's client may have caused it).
//   - roots/list is refused, and roots are not claimed: an agent has no workspace to
//     offer, and a server told of no roots may take them for "nothing allowed"
//     (server-filesystem replaces its directories by the client's roots).
//
// Tell the hub the matching capabilities (Capabilities), so that servers know what
// they may ask.
type ServerRequests struct {
	Model llm.Model
	// AllowSampling says whether server's sampling requests may be answered by
	// Model; nil allows none.
	AllowSampling func(server string) bool
	// MaxTokens caps a sampling reply, on top of the request's own maxTokens; 0 means
	// the request's.
	MaxTokens int
	// Elicit answers an elicitation request that no turn's own Elicit takes (form
	// or URL mode: p.Mode is set); nil declines those of agents' calls and leaves
	// the others to the hub's other peers.
	Elicit func(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Logger gets a line for each request answered or refused; nil discards.
	Logger *slog.Logger
}

var _ relay.Peer = (*ServerRequests)(nil)

// Capabilities are the client capabilities that r can honour, for
// hub.SetCapabilities: sampling when some server may sample, elicitation (form and
// URL mode) when a person can be asked. A program whose turns answer with their own
// Elicit declares elicitation itself (serve's gateway.AllForwardable does).
func (r *ServerRequests) Capabilities(anySampling bool) *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{}
	if anySampling && r.Model != nil {
		caps.Sampling = &mcp.SamplingCapabilities{}
	}
	if r.Elicit != nil {
		caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	}
	return caps
}

// Request implements relay.Peer.
func (r *ServerRequests) Request(ctx context.Context, server, method string, params mcp.Params) (mcp.Result, error) {
	switch method {
	case relay.MethodCreateMessage:
		p, ok := params.(*mcp.CreateMessageWithToolsParams)
		if !ok {
			return nil, fmt.Errorf("sampling: unexpected params %T", params)
		}
		return r.sample(ctx, server, p)
	case relay.MethodElicit:
		p, ok := params.(*mcp.ElicitParams)
		if !ok {
			return nil, fmt.Errorf("elicitation: unexpected params %T", params)
		}
		return r.elicit(ctx, server, p)
	}
	// Another peer of the hub (a gateway's client) may answer it.
	return nil, relay.NotMine(fmt.Errorf("%s: not answered by the agent", method))
}

// Notify implements relay.Peer: servers' log messages and progress have no person to
// reach in an agent's turn; they are logged at debug.
func (r *ServerRequests) Notify(_ context.Context, server, method string, _ mcp.Params) {
	r.logger().Debug("server notification", "server", server, "method", method)
}

func (r *ServerRequests) sample(ctx context.Context, server string, p *mcp.CreateMessageWithToolsParams) (mcp.Result, error) {
	if turns, foreign := turnCalls(ctx); len(turns) == 0 && foreign {
		// Only calls no agent made were under way (a gateway's client's, a program's
		// own): their caller samples with its own model, not this agent's.
		return nil, relay.NotMine(fmt.Errorf("sampling/createMessage from server %q: it came during calls of another caller", server))
	}
	if r.Model == nil || r.AllowSampling == nil || !r.AllowSampling(server) {
		r.logger().Info("sampling refused", "server", server)
		return nil, fmt.Errorf(`sampling refused: the user has not allowed server %q to use the model (set "sampling": true on it)`, server)
	}
	req := &llm.Request{System: p.SystemPrompt, MaxTokens: int(p.MaxTokens)}
	if r.MaxTokens > 0 && (req.MaxTokens == 0 || req.MaxTokens > r.MaxTokens) {
		req.MaxTokens = r.MaxTokens
	}
	if p.Temperature != 0 {
		t := p.Temperature
		req.Temperature = &t
	}
	for _, m := range p.Messages {
		role := llm.RoleUser
		if m.Role == "assistant" {
			role = llm.RoleAssistant
		}
		req.Messages = append(req.Messages, llm.Message{Role: role, Text: samplingText(m.Content)})
	}
	res, err := r.Model.Generate(ctx, req, nil)
	if err != nil {
		return nil, fmt.Errorf("sampling: %w", err)
	}
	r.logger().Info("sampling answered", "server", server, "model", res.Model, "inputTokens", res.Usage.InputTokens, "outputTokens", res.Usage.OutputTokens)
	stop := "endTurn"
	if res.Stop == llm.StopMaxTokens {
		stop = "maxTokens"
	}
	return &mcp.CreateMessageWithToolsResult{
		Role:       "assistant",
		Content:    []mcp.Content{&mcp.TextContent{Text: res.Message.Text}},
		Model:      res.Model,
		StopReason: stop,
	}, nil
}

// samplingText is a sampling message's content as text: text blocks as they are,
// anything else (images, audio, tool blocks) as a placeholder, since the model is
// asked through the provider-neutral text of llm.Message.
func samplingText(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, "[Image: "+c.MIMEType+"]")
		case *mcp.AudioContent:
			parts = append(parts, "[Audio: "+c.MIMEType+"]")
		default:
			parts = append(parts, fmt.Sprintf("[%T]", c))
		}
	}
	return strings.Join(parts, "\n")
}

func (r *ServerRequests) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Logger
}
