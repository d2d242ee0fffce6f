// Package prom keeps a program's metrics and serves them in Prometheus' text
// exposition format (version 0.0.4), with nothing else: no text parser, no
// protobuf, no dependency that links the testing package into the binary (the Go
// client's expfmt does, through its OpenMetrics parser).
//
// A [Registry] holds [Collector]s and is an http.Handler for GET /metrics. A
// [CounterVec] or [HistogramVec] counts as things happen; a Collector of the
// program's own reads a value when scraped; [GoCollector] and [ProcessCollector]
// report the runtime's and the process's figures under the names that Prometheus'
// Go client gives them (go_*, process_*), so that the usual dashboards read them:
//
//	reg := prom.NewRegistry()
//	calls := prom.NewCounterVec("app_calls_total", "Calls, by outcome.", "outcome")
//	reg.MustRegister(calls, prom.GoCollector(), prom.ProcessCollector())
//	calls.With("ok").Inc()
//	http.Handle("GET /metrics", reg)
//
// The output is what the Go client writes: families sorted by name, each with its
// # HELP and # TYPE lines, a sample's labels sorted by name, a histogram's
// cumulative _bucket lines up to le="+Inf" then _sum and _count. The api package
// serves the service's metrics with it (docs/api.md lists them).
package prom
