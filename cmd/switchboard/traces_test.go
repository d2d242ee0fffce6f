package main

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/otlptest"
)

// TestCallTraces: switchboard call with OTEL_EXPORTER_OTLP_ENDPOINT exports its
// tools/call span (the service named by OTEL_SERVICE_NAME) before it exits.
func TestCallTraces(t *testing.T) {
	t.Parallel()
	rcv := otlptest.Start(t)
	s := newSandbox(t)
	s.env["OTEL_EXPORTER_OTLP_ENDPOINT"] = rcv.URL
	s.env["OTEL_SERVICE_NAME"] = "cli-test"
	r := s.run("call", "current_time", `{"zone":"Asia/Tokyo"}`)
	r.wantCode(t, exitOK)
	var found bool
	for _, sp := range rcv.Spans() {
		if sp.Name == "tools/call current_time" && sp.Service == "cli-test" && sp.Attributes["mcp.server.name"] == "clock" && sp.Kind == "SPAN_KIND_CLIENT" {
			found = true
		}
	}
	if !found {
		t.Errorf("no tools/call current_time span of cli-test received: %+v\n%s", rcv.Spans(), r)
	}

}
