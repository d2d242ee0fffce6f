package prom_test

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/switchboard-mcp/switchboard/prom"
)

// parse reads the registry's output with Prometheus' own text parser: what a
// scraper would take.
func parse(t *testing.T, reg *prom.Registry) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	var b bytes.Buffer
	if err := reg.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("Prometheus' parser refuses the output: %v\n%s", err, b.String())
	}
	return fams, b.String()
}

// custom is a collector of the program's own, read at scrape time.
type custom struct{ help, value string }

func (c custom) Names() []string { return []string{"app_info"} }
func (c custom) Collect(report func(prom.Family)) {
	report(prom.Family{Name: "app_info", Help: c.help, Type: prom.GaugeType,
		Samples: []prom.Sample{{Labels: []string{"version", c.value}, Value: 1}}})
}

// TestWriteText: counters, histograms and a collector of the program's own come
// out as Prometheus' parser reads them: values, cumulative buckets, labels sorted
// by name, help and label values escaped.
func TestWriteText(t *testing.T) {
	reg := prom.NewRegistry()
	calls := prom.NewCounterVec("app_calls_total", "Calls, by tool and outcome.", "tool", "outcome")
	lat := prom.NewHistogramVec("app_call_seconds", "How long calls took.", []float64{0.1, 1, 10}, "tool")
	idle := prom.NewCounterVec("app_idle_total", "Nothing yet.", "tool")
	reg.MustRegister(calls, lat, idle, custom{help: "Line one\nback\\slash", value: "v\"1\"\n\\"})

	calls.With("search", "ok").Inc()
	calls.With("search", "ok").Add(2.5)
	calls.With("fetch", "error").Inc()
	for _, v := range []float64{0.05, 0.1, 0.5, 5, 50} {
		lat.With("search").Observe(v)
	}

	fams, text := parse(t, reg)
	if _, ok := fams["app_idle_total"]; ok {
		t.Errorf("a family with no series is written:\n%s", text)
	}
	if !strings.Contains(text, `app_calls_total{outcome="ok",tool="search"} 3.5`) {
		t.Errorf("labels not sorted by name, or the value wrong:\n%s", text)
	}
	if got := fams["app_calls_total"].GetType(); got != dto.MetricType_COUNTER {
		t.Errorf("app_calls_total type %v", got)
	}
	h := fams["app_call_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 5 || h.GetSampleSum() != 55.65 {
		t.Errorf("histogram count %d sum %v, want 5 and 55.65", h.GetSampleCount(), h.GetSampleSum())
	}
	var cum []uint64
	for _, b := range h.GetBucket() {
		cum = append(cum, b.GetCumulativeCount())
	}
	if fmt.Sprint(cum) != "[2 3 4 5]" { // le 0.1 takes 0.1 itself; +Inf is the count
		t.Errorf("cumulative buckets %v, want [2 3 4 5]\n%s", cum, text)
	}
	info := fams["app_info"]
	if info.GetHelp() != "Line one\nback\\slash" || info.GetMetric()[0].GetLabel()[0].GetValue() != "v\"1\"\n\\" {
		t.Errorf("escaping lost: help %q, label %q", info.GetHelp(), info.GetMetric()[0].GetLabel()[0].GetValue())
	}
	if i, j := strings.Index(text, "app_call_seconds"), strings.Index(text, "app_calls_total"); i > j {
		t.Errorf("families not sorted by name:\n%s", text)
	}
}

// TestRegister: a name is in a registry once; Register takes all or none; a
// collector removed frees its names; a vec without labels shows its 0.
func TestRegister(t *testing.T) {
	reg := prom.NewRegistry()
	a := prom.NewCounterVec("a_total", "A.")
	if err := reg.Register(a); err != nil {
		t.Fatal(err)
	}
	b := prom.NewCounterVec("b_total", "B.")
	if err := reg.Register(b, prom.NewCounterVec("a_total", "A again.")); err == nil || !strings.Contains(err.Error(), "a_total") {
		t.Errorf("a second a_total: %v", err)
	}
	if err := reg.Register(b); err != nil {
		t.Errorf("b_total after a refused batch: %v", err)
	}
	if !reg.Unregister(a) || reg.Unregister(a) {
		t.Error("Unregister does not tell whether the collector was there")
	}
	if err := reg.Register(prom.NewCounterVec("a_total", "A anew.")); err != nil {
		t.Errorf("a_total once removed: %v", err)
	}
	_, text := parse(t, reg)
	if !strings.Contains(text, "\nb_total 0\n") || !strings.Contains(text, "# HELP a_total A anew.") {
		t.Errorf("output:\n%s", text)
	}
}

// TestServeHTTP: a scrape gets the text format's media type.
func TestServeHTTP(t *testing.T) {
	reg := prom.NewRegistry()
	reg.MustRegister(prom.NewCounterVec("x_total", "X."))
	rec := httptest.NewRecorder()
	reg.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if !strings.Contains(rec.Body.String(), "x_total 0") {
		t.Errorf("body:\n%s", rec.Body)
	}
}

// TestConcurrentCounts: counts from many goroutines add up (under -race too).
func TestConcurrentCounts(t *testing.T) {
	c := prom.NewCounterVec("n_total", "N.", "k")
	h := prom.NewHistogramVec("d_seconds", "D.", nil, "k")
	reg := prom.NewRegistry()
	reg.MustRegister(c, h)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 1000 {
				c.With(fmt.Sprint(i % 2)).Inc()
				h.With("x").Observe(0.01)
			}
		})
		wg.Go(func() { parse(t, reg) })
	}
	wg.Wait()
	if got := c.With("0").Value() + c.With("1").Value(); got != 8000 {
		t.Errorf("counted %v, want 8000", got)
	}
	fams, _ := parse(t, reg)
	if n := fams["d_seconds"].GetMetric()[0].GetHistogram().GetSampleCount(); n != 8000 {
		t.Errorf("histogram count %d, want 8000", n)
	}
}

// TestBadNames: a name the format does not allow, a reserved label, a wrong
// number of label values or a counter going down is a bug, caught at once.
func TestBadNames(t *testing.T) {
	for name, f := range map[string]func(){
		"metric name":       func() { prom.NewCounterVec("1abc", "") },
		"label name":        func() { prom.NewCounterVec("abc", "", "a-b") },
		"reserved label":    func() { prom.NewHistogramVec("abc", "", nil, "le") },
		"label values":      func() { prom.NewCounterVec("abc", "", "a").With("x", "y") },
		"negative add":      func() { prom.NewCounterVec("abc", "").With().Add(-1) },
		"unsorted buckets":  func() { prom.NewHistogramVec("abc", "", []float64{2, 1}) },
		"double underscore": func() { prom.NewCounterVec("abc", "", "__x") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestRuntimeAndProcess: the Go and process collectors report what dashboards
// read, under the Go client's names, and their figures make sense.
func TestRuntimeAndProcess(t *testing.T) {
	reg := prom.NewRegistry()
	reg.MustRegister(prom.GoCollector(), prom.ProcessCollector())
	fams, text := parse(t, reg)
	value := func(name string) float64 {
		f := fams[name]
		if f == nil {
			t.Errorf("no %s:\n%s", name, text)
			return -1
		}
		m := f.GetMetric()[0]
		if m.Counter != nil {
			return m.Counter.GetValue()
		}
		return m.Gauge.GetValue()
	}
	if n := value("go_goroutines"); n < 1 {
		t.Errorf("go_goroutines %v", n)
	}
	if v := fams["go_info"].GetMetric()[0].GetLabel()[0].GetValue(); v != runtime.Version() {
		t.Errorf("go_info version %q", v)
	}
	if fams["go_gc_duration_seconds"].GetType() != dto.MetricType_SUMMARY {
		t.Errorf("go_gc_duration_seconds is not a summary")
	}
	if n := value("go_memstats_heap_alloc_bytes"); n <= 0 {
		t.Errorf("go_memstats_heap_alloc_bytes %v", n)
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "windows" {
		return
	}
	if n := value("process_cpu_seconds_total"); n <= 0 {
		t.Errorf("process_cpu_seconds_total %v", n)
	}
	if n := value("process_resident_memory_bytes"); n < 1<<20 {
		t.Errorf("process_resident_memory_bytes %v: less than 1 MiB", n)
	}
	if n := value("process_open_fds"); n < 1 || n > value("process_max_fds") {
		t.Errorf("process_open_fds %v of %v", n, value("process_max_fds"))
	}
	start := time.Unix(int64(value("process_start_time_seconds")), 0)
	if since := time.Since(start); since < -time.Second || since > time.Hour {
		t.Errorf("process_start_time_seconds %v: %v ago", start, since)
	}
}
