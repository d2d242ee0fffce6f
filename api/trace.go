package api

import (
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/telemetry"
)

// startServerSpan starts the SERVER span of r, named after its route as the HTTP
// semantic conventions ask ("POST /v1/sessions/{id}/messages"; a request no route
// takes: its method alone). A W3C traceparent on r continues the caller's trace:
// the turn's, the tool call's spans are its children. requestLog calls it only
// when tracing is on.
func startServerSpan(r *http.Request, rt *route) (*http.Request, trace.Span) {
	ctx := telemetry.Extract(r.Context(), r.Header)
	name := r.Method
	attrs := []attribute.KeyValue{
		attribute.String("http.request.method", r.Method),
		attribute.String("url.path", r.URL.Path),
	}
	if rt != nil {
		pattern := rt.pattern
		if _, path, ok := strings.Cut(pattern, " "); ok {
			pattern = path
		}
		name += " " + pattern
		attrs = append(attrs, attribute.String("http.route", pattern))
	}
	ctx, span := telemetry.Tracer().Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	return r.WithContext(ctx), span
}

// endServerSpan ends a request's span with its response status: a 5xx is the
// server's error, a 4xx the client's (not this span's, as the conventions say).
func endServerSpan(span trace.Span, status int) {
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
		span.SetAttributes(attribute.String("error.type", strconv.Itoa(status)))
	}
	span.End()
}
