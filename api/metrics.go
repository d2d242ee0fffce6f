package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/llm"
)

// metrics are what GET /metrics serves, in Prometheus' text format. What the hub and
// the session store know (server states, sessions) is read at scrape time, so it is
// never stale and needs no goroutine; calls, model requests and HTTP requests are
// counted as they happen.
type metrics struct {
	reg       *prometheus.Registry
	handler   http.Handler
	stopCalls func() // the hub's ObserveCalls registration

	toolCalls     *prometheus.CounterVec
	toolDuration  *prometheus.HistogramVec
	modelRequests *prometheus.CounterVec
	modelTokens   *prometheus.CounterVec
	httpRequests  *prometheus.CounterVec
	httpDuration  *prometheus.HistogramVec
}

// toolBuckets reach past a minute: a server's default toolTimeout is 60 s.
var toolBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}

// newMetrics registers the API's metrics with reg (a new registry with the Go and
// process collectors when nil) and starts counting the hub's calls.
func newMetrics(s *Server, reg *prometheus.Registry) (*metrics, error) {
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	m := &metrics{
		reg: reg,
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_tool_calls_total",
			Help: "Tool calls routed to a server (by agents, the HTTP API and the MCP gateway alike), by server, tool (its name on the server) and outcome (ok or error).",
		}, []string{"server", "tool", "outcome"}),
		toolDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "switchboard_tool_call_duration_seconds",
			Help:    "How long tool calls took, by server and tool.",
			Buckets: toolBuckets,
		}, []string{"server", "tool"}),
		modelRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_model_requests_total",
			Help: "Requests of session turns to the model, by outcome (ok, or error when the model failed the turn).",
		}, []string{"outcome"}),
		modelTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_model_tokens_total",
			Help: "Tokens of session turns' model requests as the model reported them, by direction (input or output).",
		}, []string{"direction"}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "switchboard_http_requests_total",
			Help: `HTTP requests answered, by route (the pattern that matched, "none" for a request that no route takes or that was refused before routing) and status code.`,
		}, []string{"route", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "switchboard_http_request_duration_seconds",
			Help:    "How long HTTP requests took until the handler returned, by route (a stream: as long as it stayed open).",
			Buckets: prometheus.DefBuckets,
		}, []string{"route"}),
	}
	cs := []prometheus.Collector{m.toolCalls, m.toolDuration, m.modelRequests, m.modelTokens, m.httpRequests, m.httpDuration, stateCollector{s}}
	for i, c := range cs {
		if err := reg.Register(c); err != nil {
			for _, done := range cs[:i] { // all or nothing
				reg.Unregister(done)
			}
			return nil, errors.New("api: Options.Registry: " + err.Error())
		}
	}
	// Both label values of the outcomes and directions exist from the start, so that a
	// rate over them is 0 rather than absent.
	for _, o := range []string{"ok", "error"} {
		m.modelRequests.WithLabelValues(o)
	}
	for _, d := range []string{"input", "output"} {
		m.modelTokens.WithLabelValues(d)
	}
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{s}, ErrorHandling: promhttp.ContinueOnError})
	m.stopCalls = s.hub.ObserveCalls(m.call)
	return m, nil
}

func (m *metrics) call(e hub.CallEvent) {
	outcome := "ok"
	if e.IsError {
		outcome = "error"
	}
	m.toolCalls.WithLabelValues(e.Server, e.Tool, outcome).Inc()
	m.toolDuration.WithLabelValues(e.Server, e.Tool).Observe(e.Duration.Seconds())
}

// event counts a turn's model requests and tokens: a StepUsage ends each request the
// model answered.
func (m *metrics) event(e agent.Event) {
	if e.Kind != agent.StepUsage {
		return
	}
	m.modelRequests.WithLabelValues("ok").Inc()
	m.modelTokens.WithLabelValues("input").Add(float64(e.Usage.InputTokens))
	m.modelTokens.WithLabelValues("output").Add(float64(e.Usage.OutputTokens))
}

// turnEnded counts the model request that failed a turn.
func (m *metrics) turnEnded(err error) {
	if le := (*llm.Error)(nil); errors.As(err, &le) {
		m.modelRequests.WithLabelValues("error").Inc()
	}
}

func (m *metrics) request(pattern string, code int, d time.Duration) {
	if pattern == "" {
		pattern = "none"
	}
	m.httpRequests.WithLabelValues(pattern, strconv.Itoa(code)).Inc()
	m.httpDuration.WithLabelValues(pattern).Observe(d.Seconds())
}

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	s.metrics.handler.ServeHTTP(w, r)
}

// stateCollector reads the hub's servers, the sessions and the turns at scrape time.
type stateCollector struct{ s *Server }

var (
	serverStateDesc = prometheus.NewDesc("switchboard_server_state",
		"1 for the state each server is in, 0 for the others.", []string{"server", "state"}, nil)
	serverToolsDesc = prometheus.NewDesc("switchboard_server_tools",
		"Tools each server lists.", []string{"server"}, nil)
	serverReconnectsDesc = prometheus.NewDesc("switchboard_server_reconnects_total",
		"Connections each server lost and reconnected (as upstream.Status.Restarts counts them): since its start, or its last restart by hand or by a reload.", []string{"server"}, nil)
	sessionsDesc = prometheus.NewDesc("switchboard_sessions",
		"Sessions in the store.", nil, nil)
	turnsDesc = prometheus.NewDesc("switchboard_turns_active",
		"Session turns running.", nil, nil)
)

// states are every hub.State, so that each server has a series per state.
var states = []hub.State{hub.Disabled, hub.Connecting, hub.Ready, hub.Reconnecting, hub.Failed, hub.NeedsSignIn, hub.Closed}

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{serverStateDesc, serverToolsDesc, serverReconnectsDesc, sessionsDesc, turnsDesc} {
		ch <- d
	}
}

func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	for _, st := range c.s.hub.Status() {
		for _, state := range states {
			v := 0.0
			if st.State == state {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(serverStateDesc, prometheus.GaugeValue, v, st.Name, string(state))
		}
		ch <- prometheus.MustNewConstMetric(serverToolsDesc, prometheus.GaugeValue, float64(st.Tools), st.Name)
		ch <- prometheus.MustNewConstMetric(serverReconnectsDesc, prometheus.CounterValue, float64(st.Restarts), st.Name)
	}
	if j := c.s.opts.Sessions; j != nil {
		// A store on a database answers within the scrape's patience or not at all.
		ctx, cancel := context.WithTimeout(c.s.base, 5*time.Second)
		defer cancel()
		if list, err := j.Store().List(ctx); err != nil {
			c.s.log.Warn("metrics: sessions not counted", "error", err)
		} else {
			ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(len(list)))
		}
	}
	ch <- prometheus.MustNewConstMetric(turnsDesc, prometheus.GaugeValue, float64(c.s.turnsActive()))
}

// slogPrinter passes promhttp's errors to the server's log.
type slogPrinter struct{ s *Server }

func (p slogPrinter) Println(v ...any) {
	p.s.log.Warn("metrics: scrape", "error", fmt.Sprint(v...))
}
