package llm

import (
	"context"
	"net/url"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/telemetry"
)

// StartChat starts the span of one model request, "chat {model}" with the GenAI
// semantic conventions' attributes (provider: "openai", "anthropic"; baseURL gives
// server.address). end records the reply's usage or the error and ends it.
// Backends call it in Generate with their model (req.Model, when set, is the one
// asked for); with tracing off it costs next to nothing.
func StartChat(ctx context.Context, req *Request, provider, model, baseURL string) (_ context.Context, end func(*Response, error)) {
	if req != nil && req.Model != "" {
		model = req.Model
	}
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", provider),
		attribute.String("gen_ai.request.model", model),
	}
	if telemetry.Enabled() {
		if u, err := url.Parse(baseURL); err == nil && u.Hostname() != "" {
			attrs = append(attrs, attribute.String("server.address", u.Hostname()))
		}
	}
	ctx, span := telemetry.Tracer().Start(ctx, "chat "+model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, func(res *Response, err error) {
		if res != nil && span.IsRecording() {
			span.SetAttributes(
				attribute.String("gen_ai.response.model", res.Model),
				attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(res.Stop)}),
				attribute.Int64("gen_ai.usage.input_tokens", res.Usage.InputTokens),
				attribute.Int64("gen_ai.usage.output_tokens", res.Usage.OutputTokens))
		}
		telemetry.End(span, err)
	}
}
