package telemetry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ScopeName is the instrumentation scope of Switchboard's spans.
const ScopeName = "github.com/switchboard-mcp/switchboard"

// DefaultServiceName is service.name when OTEL_SERVICE_NAME does not say.
const DefaultServiceName = "switchboard"

// current is the tracer of the provider Setup installed; nil: tracing is off.
// A process has one set of OTEL_* variables, so one provider: this is the same
// process-wide seam as otel's own global, kept here so that the path with
// tracing off stays one atomic load.
var current atomic.Pointer[tracerBox]

type tracerBox struct{ t trace.Tracer }

var noopTracer trace.Tracer = noop.NewTracerProvider().Tracer(ScopeName)

// Tracer is the tracer to start Switchboard's spans with: the provider's that
// Setup installed, or a no-op one.
func Tracer() trace.Tracer {
	if b := current.Load(); b != nil {
		return b.t
	}
	return noopTracer
}

// Enabled reports whether Setup installed a provider: whether spans are recorded
// and trace context propagated.
func Enabled() bool { return current.Load() != nil }

// Requested reports whether the environment asks for traces.
func Requested() bool {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	if e := os.Getenv("OTEL_TRACES_EXPORTER"); e != "" {
		return strings.TrimSpace(e) != "none"
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup installs the tracer provider the OTEL_* variables ask for (see the
// package comment) and returns its shutdown, which flushes the spans, stops the
// exporter and puts the no-op tracer back. With no such variable it does
// nothing: the shutdown it returns does nothing either. log (nil: discarded) gets
// the exporter's errors. A second Setup before the first's shutdown is an error.
func Setup(ctx context.Context, log *slog.Logger) (shutdown func(context.Context) error, err error) {
	none := func(context.Context) error { return nil }
	if !Requested() {
		return none, nil
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The exporter's own connections, closed at shutdown: their reader and writer
	// goroutines would outlive it in the pool of a shared transport.
	conns := http.DefaultTransport.(*http.Transport).Clone()
	client, err := exportClient(conns)
	if err != nil {
		return none, fmt.Errorf("traces: %w", err)
	}
	exp, err := exporter(ctx, client)
	if err != nil {
		return none, fmt.Errorf("traces: %w", err)
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", DefaultServiceName)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && res == nil {
		_ = exp.Shutdown(ctx)
		return none, fmt.Errorf("traces: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	if !current.CompareAndSwap(nil, &tracerBox{t: tp.Tracer(ScopeName)}) {
		_ = tp.Shutdown(ctx)
		return none, errors.New("traces: already set up")
	}
	// Libraries that trace through otel's globals join the same traces.
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("traces", "error", err) }))
	return func(ctx context.Context) error {
		current.Store(nil)
		otel.SetTracerProvider(noop.NewTracerProvider())
		err := tp.Shutdown(ctx)
		conns.CloseIdleConnections()
		return err
	}, nil
}

// exporter is the span exporter OTEL_TRACES_EXPORTER names ("otlp" by default).
func exporter(ctx context.Context, client *http.Client) (sdktrace.SpanExporter, error) {
	switch name := strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")); name {
	case "", "otlp":
		proto := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
		if proto == "" {
			proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
		}
		if proto != "" && proto != "http/protobuf" {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q: only http/protobuf is supported (port 4318 of a collector)", proto)
		}
		return otlptracehttp.New(ctx, otlptracehttp.WithHTTPClient(client))
	case "console":
		return stdouttrace.New(stdouttrace.WithWriter(os.Stderr))
	default:
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER %q: want otlp, console or none", name)
	}
}

// exportClient is the exporter's HTTP client over conns. Given a client, the SDK
// leaves its timeout and TLS to it, so the variables it would read for them are
// read here: OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT (milliseconds, default 10 s) and
// OTEL_EXPORTER_OTLP_[TRACES_]CERTIFICATE (a PEM file of the CAs to trust).
func exportClient(conns *http.Transport) (*http.Client, error) {
	client := &http.Client{Transport: conns, Timeout: 10 * time.Second}
	if v := otlpEnv("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT %q: want milliseconds", v)
		}
		client.Timeout = time.Duration(ms) * time.Millisecond
	}
	if path := otlpEnv("CERTIFICATE"); path != "" {
		pem, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE %s: no PEM certificate in it", path)
		}
		conns.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return client, nil
}

// otlpEnv is OTEL_EXPORTER_OTLP_TRACES_{name}, else OTEL_EXPORTER_OTLP_{name}.
func otlpEnv(name string) string {
	if v := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_" + name); v != "" {
		return v
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_" + name)
}

var traceContext propagation.TraceContext

// Extract is ctx with the remote span context of h's traceparent, when tracing
// is on and h has a valid one: the spans started from it continue the caller's
// trace.
func Extract(ctx context.Context, h http.Header) context.Context {
	if !Enabled() || h.Get("traceparent") == "" {
		return ctx
	}
	return traceContext.Extract(ctx, propagation.HeaderCarrier(h))
}

// Inject sets h's traceparent (and tracestate) to ctx's span, when tracing is on
// and ctx has one.
func Inject(ctx context.Context, h http.Header) {
	if !Enabled() || !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	traceContext.Inject(ctx, propagation.HeaderCarrier(h))
}

// InjectMeta is meta (an MCP request's params._meta; nil makes a new map) with
// ctx's span as its "traceparent" (and "tracestate") keys, when tracing is on
// and ctx has a span; else meta as it is.
func InjectMeta(ctx context.Context, meta map[string]any) map[string]any {
	if !Enabled() || !trace.SpanContextFromContext(ctx).IsValid() {
		return meta
	}
	if meta == nil {
		meta = map[string]any{}
	}
	traceContext.Inject(ctx, metaCarrier(meta))
	return meta
}

// ExtractMeta is ctx with the remote span context of meta's "traceparent" (an MCP
// request's params._meta), when tracing is on and meta has a valid one: an MCP
// client's trace continues into the calls it makes through the gateway.
func ExtractMeta(ctx context.Context, meta map[string]any) context.Context {
	if !Enabled() {
		return ctx
	}
	if _, ok := meta["traceparent"].(string); !ok {
		return ctx
	}
	return traceContext.Extract(ctx, metaCarrier(meta))
}

// metaCarrier is an MCP _meta map as a propagation carrier.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// Transport is base (nil: http.DefaultTransport) sending the traceparent of each
// request's context.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &injector{base: base}
}

type injector struct{ base http.RoundTripper }

func (t *injector) RoundTrip(r *http.Request) (*http.Response, error) {
	if Enabled() && trace.SpanContextFromContext(r.Context()).IsValid() && r.Header.Get("traceparent") == "" {
		r = r.Clone(r.Context()) // a RoundTripper must not change the request it is given
		Inject(r.Context(), r.Header)
	}
	return t.base.RoundTrip(r)
}

// End ends span, recording err (nil: success) as its status and error.type.
func End(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		span.SetStatus(codes.Error, err.Error())
		span.SetAttributes(attribute.String("error.type", ErrorType(err)))
	}
	span.End()
}

// ErrorType is the low-cardinality error.type of err: "timeout" and "canceled"
// for a context's, else the Go type of the innermost error it wraps ("*llm.Error",
// not the "*fmt.wrapError" around it).
func ErrorType(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return fmt.Sprintf("%T", err)
		}
		err = inner
	}
}
