package prom

import (
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"time"
)

// goCollector reports the Go runtime's figures under the names that Prometheus'
// Go client gives them (go_goroutines, go_memstats_*, ...), so that the usual
// dashboards read them.
type goCollector struct{}

// GoCollector reports the Go runtime's goroutines, threads, memory and garbage
// collection: go_goroutines, go_threads, go_info, go_gc_duration_seconds,
// go_memstats_*, go_sched_gomaxprocs_threads, go_gc_gogc_percent and
// go_gc_gomemlimit_bytes.
func GoCollector() Collector { return goCollector{} }

// memstat is one go_memstats_ gauge or counter read from runtime.MemStats.
type memstat struct {
	name, help string
	typ        Type
	value      func(*runtime.MemStats) float64
}

var memstats = []memstat{
	{"alloc_bytes", "Number of bytes allocated in heap and currently in use.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.Alloc) }},
	{"alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already.", CounterType, func(m *runtime.MemStats) float64 { return float64(m.TotalAlloc) }},
	{"sys_bytes", "Number of bytes obtained from system.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.Sys) }},
	{"mallocs_total", "Total number of heap objects allocated, both live and gc-ed.", CounterType, func(m *runtime.MemStats) float64 { return float64(m.Mallocs) }},
	{"frees_total", "Total number of heap objects frees.", CounterType, func(m *runtime.MemStats) float64 { return float64(m.Frees) }},
	{"heap_alloc_bytes", "Number of heap bytes allocated and currently in use, same as go_memstats_alloc_bytes.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.HeapAlloc) }},
	{"heap_sys_bytes", "Number of heap bytes obtained from system.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.HeapSys) }},
	{"heap_idle_bytes", "Number of heap bytes waiting to be used.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.HeapIdle) }},
	{"heap_inuse_bytes", "Number of heap bytes that are in use.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.HeapInuse) }},
	{"heap_released_bytes", "Number of heap bytes released to OS.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.HeapReleased) }},
	{"heap_objects", "Number of currently allocated objects.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.HeapObjects) }},
	{"stack_inuse_bytes", "Number of bytes in use by the stack allocator.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.StackInuse) }},
	{"stack_sys_bytes", "Number of bytes obtained from system for stack allocator.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.StackSys) }},
	{"gc_sys_bytes", "Number of bytes used for garbage collection system metadata.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.GCSys) }},
	{"other_sys_bytes", "Number of bytes used for other system allocations.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.OtherSys) }},
	{"next_gc_bytes", "Number of heap bytes when next garbage collection will take place.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.NextGC) }},
	{"last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", GaugeType, func(m *runtime.MemStats) float64 { return float64(m.LastGC) / 1e9 }},
}

func (goCollector) Names() []string {
	names := []string{"go_goroutines", "go_threads", "go_info", "go_gc_duration_seconds",
		"go_sched_gomaxprocs_threads", "go_gc_gogc_percent", "go_gc_gomemlimit_bytes"}
	for _, m := range memstats {
		names = append(names, "go_memstats_"+m.name)
	}
	return names
}

func (goCollector) Collect(report func(Family)) {
	gauge := func(name, help string, v float64, labels ...string) {
		report(Family{Name: name, Help: help, Type: GaugeType, Samples: []Sample{{Labels: labels, Value: v}}})
	}
	gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	threads, _ := runtime.ThreadCreateProfile(nil)
	gauge("go_threads", "Number of OS threads created.", float64(threads))
	gauge("go_info", "Information about the Go environment.", 1, "version", runtime.Version())
	gauge("go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously.", float64(runtime.GOMAXPROCS(0)))

	rm := []rtmetrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	rtmetrics.Read(rm)
	if rm[0].Value.Kind() == rtmetrics.KindUint64 {
		gauge("go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100.", float64(rm[0].Value.Uint64()))
	}
	if rm[1].Value.Kind() == rtmetrics.KindUint64 {
		gauge("go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64.", float64(rm[1].Value.Uint64()))
	}

	// The pauses' quantiles, as the Go client reports them: a summary whose
	// quantile 0 is the shortest pause and 1 the longest.
	var gc debug.GCStats
	gc.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&gc)
	pauses := Family{Name: "go_gc_duration_seconds", Help: "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", Type: SummaryType}
	for i, q := range []string{"0", "0.25", "0.5", "0.75", "1"} {
		pauses.Samples = append(pauses.Samples, Sample{Labels: []string{"quantile", q}, Value: gc.PauseQuantiles[i].Seconds()})
	}
	pauses.Samples = append(pauses.Samples,
		Sample{Suffix: "_sum", Value: gc.PauseTotal.Seconds()},
		Sample{Suffix: "_count", Value: float64(gc.NumGC)})
	report(pauses)

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for _, m := range memstats {
		report(Family{Name: "go_memstats_" + m.name, Help: m.help, Type: m.typ, Samples: []Sample{{Value: m.value(&ms)}}})
	}
}
