package api_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/prom"
)

// scrape is one GET /metrics, parsed.
type scrape map[string]*dto.MetricFamily

func (e *env) scrape(t *testing.T) scrape {
	t.Helper()
	r := e.do("GET", "/metrics", nil)
	r.want(t, 200)
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q, want the text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(r.body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, r.body)
	}
	return fams
}

// metric is the series of family name with exactly the labels given as "k=v"; nil
// when there is none.
func (s scrape) metric(name string, labels ...string) *dto.Metric {
	f := s[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range labels {
			k, v, _ := strings.Cut(l, "=")
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == k && lp.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		return m
	}
	return nil
}

// value is a counter's or gauge's value, -1 when the series is missing.
func (s scrape) value(name string, labels ...string) float64 {
	m := s.metric(name, labels...)
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	}
	return -1
}

func (s scrape) check(t *testing.T, want float64, name string, labels ...string) {
	t.Helper()
	if got := s.value(name, labels...); got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

// TestMetrics: after tool calls through the API (one failing) and a turn against the
// fake model that calls a tool, then a turn the model fails, /metrics (behind the
// token) counts the calls by server, tool and outcome with their latency histogram,
// the model's requests and tokens, the servers' states, the sessions, and the HTTP
// requests by route pattern (never the raw path) and status.
func TestMetrics(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{Token: "sekret"}, script: fakellm.Queue(
		fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "convert_time", Arguments: `{"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}`}}, InputTokens: 10, OutputTokens: 3},
		fakellm.Reply{Text: "It is noon in Tokyo.", InputTokens: 20, OutputTokens: 5},
		fakellm.Reply{Status: 400, ErrorMessage: "context too long"},
	)})

	e.do("POST", "/v1/tools/convert_time/call", `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}`).want(t, 200, `"isError": false`)
	e.do("POST", "/v1/tools/convert_time/call", `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Mars/Olympus_Mons"}}`).want(t, 200, `"isError": true`)
	id := newSession(t, e, nil)
	e.do("POST", "/v1/sessions/"+id+"/messages", map[string]string{"content": "What time is it in Tokyo?"}).want(t, 200, "noon in Tokyo")
	e.do("POST", "/v1/sessions/"+id+"/messages", map[string]string{"content": "And now?"}).want(t, 502, "context too long")
	e.do("GET", "/v1/tools", nil, "Authorization: Bearer wrong").want(t, 401)
	e.do("GET", "/v1/nothing/here", nil).want(t, 404)
	e.do("GET", "/health", nil, "Host: rebound.example").want(t, 403)
	e.do("GET", "/metrics", nil, "Authorization: Bearer wrong").want(t, 401)

	s := e.scrape(t)
	// Two calls through the API, one by the agent; the unknown zone is the tool's error.
	s.check(t, 2, "switchboard_tool_calls_total", "server=clock", "tool=convert_time", "outcome=ok")
	s.check(t, 1, "switchboard_tool_calls_total", "server=clock", "tool=convert_time", "outcome=error")
	if m := s.metric("switchboard_tool_call_duration_seconds", "server=clock", "tool=convert_time"); m == nil || m.Histogram.GetSampleCount() != 3 || m.Histogram.GetSampleSum() <= 0 {
		t.Errorf("tool call histogram = %v", m)
	}
	s.check(t, 2, "switchboard_model_requests_total", "outcome=ok")
	s.check(t, 1, "switchboard_model_requests_total", "outcome=error")
	s.check(t, 30, "switchboard_model_tokens_total", "direction=input")
	s.check(t, 8, "switchboard_model_tokens_total", "direction=output")

	s.check(t, 1, "switchboard_server_state", "server=clock", "state=ready")
	s.check(t, 0, "switchboard_server_state", "server=clock", "state=failed")
	if n := s.value("switchboard_server_tools", "server=clock"); n < 1 {
		t.Errorf("switchboard_server_tools{server=clock} = %v", n)
	}
	s.check(t, 0, "switchboard_server_reconnects_total", "server=clock")
	s.check(t, 1, "switchboard_sessions")
	s.check(t, 0, "switchboard_turns_active")

	s.check(t, 2, "switchboard_http_requests_total", "route=POST /v1/tools/{name}/call", "code=200")
	s.check(t, 1, "switchboard_http_requests_total", "route=POST /v1/sessions/{id}/messages", "code=200")
	s.check(t, 1, "switchboard_http_requests_total", "route=POST /v1/sessions/{id}/messages", "code=502")
	s.check(t, 1, "switchboard_http_requests_total", "route=GET /v1/tools", "code=401")
	s.check(t, 1, "switchboard_http_requests_total", "route=none", "code=404") // no route takes it
	s.check(t, 1, "switchboard_http_requests_total", "route=none", "code=403")
	s.check(t, 1, "switchboard_http_requests_total", "route=GET /metrics", "code=401")
	if m := s.metric("switchboard_http_request_duration_seconds", "route=POST /v1/tools/{name}/call"); m == nil || m.Histogram.GetSampleCount() != 2 {
		t.Errorf("http request histogram = %v", m)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if s[name] == nil {
			t.Errorf("no %s: the Go and process collectors are missing", name)
		}
	}
	for name, f := range s {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "route" && strings.Contains(l.GetValue(), id) {
					t.Errorf("%s has a raw path as its route: %v", name, l.GetValue())
				}
			}
		}
	}
}

// TestMetricsGatewayAndStates: a call of an MCP client through the gateway at /mcp
// counts like the others (the hub reports every call it routes), under the route
// pattern of /mcp; each server is 1 in its own state and 0 in the others.
func TestMetricsGatewayAndStates(t *testing.T) {
	t.Parallel()
	broken := config.Server{Name: "broken", Transport: config.Stdio, Command: "/nonexistent/server"}
	off := config.Server{Name: "off", Transport: config.Stdio, Command: "/nonexistent/server", Disabled: true}
	e := start(t, setup{gateway: true, servers: []config.Server{clockServer(t), broken, off}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := mcp.NewClient(&mcp.Implementation{Name: "metrics-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.url + "/mcp", HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "convert_time", Arguments: map[string]any{"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}})
	if err != nil || res.IsError {
		t.Fatalf("call through /mcp: %v %+v", err, res)
	}
	cs.Close()

	s := e.scrape(t)
	s.check(t, 1, "switchboard_tool_calls_total", "server=clock", "tool=convert_time", "outcome=ok")
	if n := s.value("switchboard_http_requests_total", "route=/mcp", "code=200"); n < 1 {
		t.Errorf("switchboard_http_requests_total{route=/mcp,code=200} = %v", n)
	}
	s.check(t, 1, "switchboard_server_state", "server=broken", "state=failed")
	s.check(t, 0, "switchboard_server_state", "server=broken", "state=ready")
	s.check(t, 1, "switchboard_server_state", "server=clock", "state=ready")
	s.check(t, 1, "switchboard_server_state", "server=off", "state=disabled")
}

// TestMetricsRegistry: two Servers in one process have registries of their own; a
// registry passed in gets the API's metrics and serves the program's too, and a
// second Server on it is refused, naming the option.
func TestMetricsRegistry(t *testing.T) {
	t.Parallel()
	h := hub.New(&config.Config{Source: "<test>", Servers: []config.Server{clockServer(t)}}, &hub.Options{Upstream: testserver.Fast()})
	defer h.Close()
	for range 2 {
		srv, err := api.New(h, nil)
		if err != nil {
			t.Fatalf("a second Server: %v", err)
		}
		srv.Shutdown(context.Background())
	}
	reg := prom.NewRegistry()
	mine := prom.NewCounterVec("my_program_total", "Mine.")
	reg.MustRegister(mine)
	srv, err := api.New(h, &api.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	if _, err := api.New(h, &api.Options{Registry: reg}); err == nil || !strings.Contains(err.Error(), "Options.Registry") {
		t.Errorf("a second Server on one registry: %v", err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	res, err := client.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(body), "my_program_total 0") || !strings.Contains(string(body), "switchboard_turns_active 0") {
		t.Errorf("/metrics on the program's registry:\n%s", body)
	}
}

// TestMetricsActiveTurns: a turn waiting for the model is counted in
// switchboard_turns_active, and not once it is over.
func TestMetricsActiveTurns(t *testing.T) {
	t.Parallel()
	e := start(t, setup{script: fakellm.Queue(fakellm.Reply{Text: "late", Delay: time.Minute})})
	id := newSession(t, e, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", e.url+"/v1/sessions/"+id+"/messages", strings.NewReader(`{"content": "hi"}`))
		res, err := client.Do(req)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	waitValue(t, e, 1, "switchboard_turns_active")
	cancel() // the client leaves: the turn is cancelled
	<-done
	waitValue(t, e, 0, "switchboard_turns_active")
}

// waitValue scrapes until the series has the value, for at most 10 s.
func waitValue(t *testing.T, e *env, want float64, name string, labels ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := e.scrape(t).value(name, labels...)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s%v = %v after 10 s, want %v", name, labels, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
