package upstream

import (
	"context"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/telemetry"
)

// startCall starts the CLIENT span of a tools/call to this server, as the MCP
// semantic conventions name it: "{mcp.method.name} {gen_ai.tool.name}". The
// server has no attribute of the conventions' for its name: mcp.server.name is
// ours (the config's name), beside server.address for a remote server.
func (s *Supervisor) startCall(ctx context.Context, name string) (context.Context, trace.Span) {
	if !telemetry.Enabled() {
		return telemetry.Tracer().Start(ctx, "tools/call "+name)
	}
	attrs := []attribute.KeyValue{
		attribute.String("mcp.method.name", "tools/call"),
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", name),
		attribute.String("mcp.server.name", s.cfg.Name),
	}
	if s.cfg.Transport == config.Stdio {
		attrs = append(attrs, attribute.String("network.transport", "pipe"))
	} else if u, err := url.Parse(s.cfg.URL); err == nil {
		attrs = append(attrs, attribute.String("network.transport", "tcp"), attribute.String("server.address", u.Hostname()))
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		if p, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, attribute.Int("server.port", p))
		}
	}
	return telemetry.Tracer().Start(ctx, "tools/call "+name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// callAttributes are the span attributes that the connection a call goes over
// knows: its MCP session id (Streamable HTTP's; a stdio connection has none) and
// the protocol version agreed on.
func callAttributes(c *conn) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if id := c.sess.ID(); id != "" {
		attrs = append(attrs, attribute.String("mcp.session.id", id))
	}
	if ir := c.sess.InitializeResult(); ir != nil && ir.ProtocolVersion != "" {
		attrs = append(attrs, attribute.String("mcp.protocol.version", ir.ProtocolVersion))
	}
	return attrs
}
