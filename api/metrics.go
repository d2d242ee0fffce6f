package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/prom"
)

// metrics are what GET /metrics serves, in Prometheus' text format. What the hub and
// the session store know (server states, sessions) is read at scrape time, so it is
// never stale and needs no goroutine; calls, model requests and HTTP requests are
// counted as they happen.
type metrics struct {
	reg       *prom.Registry
	stopCalls func() // the hub's ObserveCalls registration

	toolCalls     *prom.CounterVec
	toolDuration  *prom.HistogramVec
	modelRequests *prom.CounterVec
	modelTokens   *prom.CounterVec
	httpRequests  *prom.CounterVec
	httpDuration  *prom.HistogramVec
}

// toolBuckets reach past a minute: a server's default toolTimeout is 60 s.
var toolBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}

// newMetrics registers the API's metrics with reg (a new registry with the Go and
// process collectors when nil) and starts counting the hub's calls.
func newMetrics(s *Server, reg *prom.Registry) (*metrics, error) {
	if reg == nil {
		reg = prom.NewRegistry()
		reg.MustRegister(prom.GoCollector(), prom.ProcessCollector())
	}
	m := &metrics{
		reg: reg,
		toolCalls: prom.NewCounterVec("switchboard_tool_calls_total",
			"Tool calls routed to a server (by agents, the HTTP API and the MCP gateway alike), by server, tool (its name on the server) and outcome (ok or error).",
			"server", "tool", "outcome"),
		toolDuration: prom.NewHistogramVec("switchboard_tool_call_duration_seconds",
			"How long tool calls took, by server and tool.",
			toolBuckets, "server", "tool"),
		modelRequests: prom.NewCounterVec("switchboard_model_requests_total",
			"Requests of session turns to the model, by outcome (ok, or error when the model failed the turn).",
			"outcome"),
		modelTokens: prom.NewCounterVec("switchboard_model_tokens_total",
			"Tokens of session turns' model requests as the model reported them, by direction (input or output).",
			"direction"),
		httpRequests: prom.NewCounterVec("switchboard_http_requests_total",
			`HTTP requests answered, by route (the pattern that matched, "none" for a request that no route takes or that was refused before routing) and status code.`,
			"route", "code"),
		httpDuration: prom.NewHistogramVec("switchboard_http_request_duration_seconds",
			"How long HTTP requests took until the handler returned, by route (a stream: as long as it stayed open).",
			prom.DefBuckets, "route"),
	}
	// All or nothing: a registry that has one of these already takes none.
	if err := reg.Register(m.toolCalls, m.toolDuration, m.modelRequests, m.modelTokens, m.httpRequests, m.httpDuration, stateCollector{s}); err != nil {
		return nil, errors.New("api: Options.Registry: " + err.Error())
	}
	// Both label values of the outcomes and directions exist from the start, so that a
	// rate over them is 0 rather than absent.
	for _, o := range []string{"ok", "error"} {
		m.modelRequests.With(o)
	}
	for _, d := range []string{"input", "output"} {
		m.modelTokens.With(d)
	}
	m.stopCalls = s.hub.ObserveCalls(m.call)
	return m, nil
}

func (m *metrics) call(e hub.CallEvent) {
	outcome := "ok"
	if e.IsError {
		outcome = "error"
	}
	m.toolCalls.With(e.Server, e.Tool, outcome).Inc()
	m.toolDuration.With(e.Server, e.Tool).Observe(e.Duration.Seconds())
}

// event counts a turn's model requests and tokens: a StepUsage ends each request the
// model answered.
func (m *metrics) event(e conversation.Event) {
	if e.Kind != conversation.StepUsage {
		return
	}
	m.modelRequests.With("ok").Inc()
	m.modelTokens.With("input").Add(float64(e.Usage.InputTokens))
	m.modelTokens.With("output").Add(float64(e.Usage.OutputTokens))
}

// turnEnded counts the model request that failed a turn.
func (m *metrics) turnEnded(err error) {
	if le := (*llm.Error)(nil); errors.As(err, &le) {
		m.modelRequests.With("error").Inc()
	}
}

func (m *metrics) request(pattern string, code int, d time.Duration) {
	if pattern == "" {
		pattern = "none"
	}
	m.httpRequests.With(pattern, strconv.Itoa(code)).Inc()
	m.httpDuration.With(pattern).Observe(d.Seconds())
}

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	s.metrics.reg.ServeHTTP(w, r)
}

// stateCollector reads the hub's servers, the sessions and the turns at scrape time.
type stateCollector struct{ s *Server }

// states are every hub.State, so that each server has a series per state.
var states = []hub.State{hub.Disabled, hub.Connecting, hub.Ready, hub.Reconnecting, hub.Failed, hub.NeedsSignIn, hub.Closed}

func (c stateCollector) Names() []string {
	return []string{"switchboard_server_state", "switchboard_server_tools", "switchboard_server_reconnects_total", "switchboard_sessions", "switchboard_turns_active"}
}

func (c stateCollector) Collect(report func(prom.Family)) {
	gauge := func(name, help string, v float64) prom.Family {
		return prom.Family{Name: name, Help: help, Type: prom.GaugeType, Samples: []prom.Sample{{Value: v}}}
	}
	state := prom.Family{Name: "switchboard_server_state", Help: "1 for the state each server is in, 0 for the others.", Type: prom.GaugeType}
	tools := prom.Family{Name: "switchboard_server_tools", Help: "Tools each server lists.", Type: prom.GaugeType}
	reconnects := prom.Family{Name: "switchboard_server_reconnects_total", Type: prom.CounterType,
		Help: "Connections each server lost and reconnected (as upstream.Status.Restarts counts them): since its start, or its last restart by hand or by a reload."}
	for _, st := range c.s.hub.Status() {
		for _, s := range states {
			v := 0.0
			if st.State == s {
				v = 1
			}
			state.Samples = append(state.Samples, prom.Sample{Labels: []string{"server", st.Name, "state", string(s)}, Value: v})
		}
		tools.Samples = append(tools.Samples, prom.Sample{Labels: []string{"server", st.Name}, Value: float64(st.Tools)})
		reconnects.Samples = append(reconnects.Samples, prom.Sample{Labels: []string{"server", st.Name}, Value: float64(st.Restarts)})
	}
	report(state)
	report(tools)
	report(reconnects)
	if j := c.s.opts.Sessions; j != nil {
		// A store on a database answers within the scrape's patience or not at all.
		ctx, cancel := context.WithTimeout(c.s.base, 5*time.Second)
		defer cancel()
		if list, err := j.Store().List(ctx); err != nil {
			c.s.log.Warn("metrics: sessions not counted", "error", err)
		} else {
			report(gauge("switchboard_sessions", "Sessions in the store.", float64(len(list))))
		}
	}
	report(gauge("switchboard_turns_active", "Session turns running.", float64(c.s.turnsActive())))
}
