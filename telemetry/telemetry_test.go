package telemetry_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/internal/otlptest"
	"github.com/switchboard-mcp/switchboard/telemetry"
)

// unsetOTEL clears the variables that ask for traces, for this test.
func unsetOTEL(t *testing.T) {
	t.Helper()
	for _, v := range []string{"OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
		"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_CERTIFICATE", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE"} {
		t.Setenv(v, "")
	}
}

// TestOffWithoutVariables: with no OTEL_* variable, Setup installs nothing: spans
// are not recorded, nothing is propagated, no goroutine runs, nothing is sent.
func TestOffWithoutVariables(t *testing.T) {
	unsetOTEL(t)
	rcv := otlptest.Start(t)
	before := goleak.IgnoreCurrent()
	shutdown, err := telemetry.Setup(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if telemetry.Enabled() {
		t.Error("Enabled with no OTEL_* variable")
	}
	ctx, span := telemetry.Tracer().Start(context.Background(), "off")
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Error("a span is recorded with tracing off")
	}
	h := http.Header{}
	telemetry.Inject(ctx, h)
	if meta := telemetry.InjectMeta(ctx, nil); meta != nil || h.Get("traceparent") != "" {
		t.Errorf("propagated with tracing off: _meta %v, header %q", meta, h.Get("traceparent"))
	}
	span.End()
	goleak.VerifyNone(t, before)
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := rcv.Posts(); n != 0 {
		t.Errorf("%d exports with tracing off", n)
	}
}

// TestExportsToEndpoint: OTEL_EXPORTER_OTLP_ENDPOINT alone turns tracing on; a
// span continues the trace of an incoming traceparent, goes out in the header and
// the _meta of what it sends, and reaches the endpoint (OTLP/HTTP protobuf) with
// OTEL_SERVICE_NAME by the time shutdown returns, which leaves no goroutine behind.
func TestExportsToEndpoint(t *testing.T) {
	unsetOTEL(t)
	rcv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "telemetry-test")
	before := goleak.IgnoreCurrent()
	shutdown, err := telemetry.Setup(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	if !telemetry.Enabled() {
		t.Fatal("not Enabled with OTEL_EXPORTER_OTLP_ENDPOINT set")
	}
	const tid, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	in := http.Header{"Traceparent": {"00-" + tid + "-" + parent + "-01"}}
	ctx, span := telemetry.Tracer().Start(telemetry.Extract(context.Background(), in), "work")
	out := http.Header{}
	telemetry.Inject(ctx, out)
	meta := telemetry.InjectMeta(ctx, map[string]any{"progressToken": 1})
	want := "00-" + tid + "-" + span.SpanContext().SpanID().String() + "-01"
	if out.Get("traceparent") != want || meta["traceparent"] != want || meta["progressToken"] != 1 {
		t.Errorf("propagated header %q, _meta %v; want traceparent %s", out.Get("traceparent"), meta, want)
	}
	span.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	goleak.VerifyNone(t, before)
	got := otlptest.Trace(rcv.Spans(), tid)["work"]
	if got.ParentID != parent || got.Service != "telemetry-test" {
		t.Errorf("exported %+v; want the span work, child of %s, of service telemetry-test (all: %+v)", got, parent, rcv.Spans())
	}
	if telemetry.Enabled() {
		t.Error("still Enabled after shutdown")
	}
}

// TestUnsupportedProtocol: OTLP over gRPC is not built in; Setup says so rather
// than sending nothing.
func TestUnsupportedProtocol(t *testing.T) {
	unsetOTEL(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	if _, err := telemetry.Setup(context.Background(), nil); err == nil || telemetry.Enabled() {
		t.Errorf("Setup with protocol grpc: %v, Enabled %v; want an error, tracing off", err, telemetry.Enabled())
	}
}

// TestBadExporterSettings: the timeout and the CA file, which the SDK leaves to the
// client Setup gives it, are read by Setup: wrong ones are errors, tracing off.
func TestBadExporterSettings(t *testing.T) {
	for _, tt := range []struct{ name, value string }{
		{"OTEL_EXPORTER_OTLP_TIMEOUT", "ten"},
		{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", filepath.Join(t.TempDir(), "missing.pem")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			unsetOTEL(t)
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
			t.Setenv(tt.name, tt.value)
			if _, err := telemetry.Setup(context.Background(), nil); err == nil || !strings.Contains(err.Error(), tt.name[:len("OTEL_EXPORTER_OTLP_")]) || telemetry.Enabled() {
				t.Errorf("Setup with %s=%s: %v, Enabled %v; want an error naming it, tracing off", tt.name, tt.value, err, telemetry.Enabled())
			}
		})
	}
}
