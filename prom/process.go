package prom

// processCollector reports the process's CPU, memory and file descriptors under
// the names that Prometheus' Go client gives them (process_*).
type processCollector struct{}

// ProcessCollector reports the process's figures that the platform gives:
// process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_open_fds, process_max_fds and
// process_start_time_seconds (all of them on Linux and Windows; the CPU time and
// the limit of file descriptors on the other Unix systems).
func ProcessCollector() Collector { return processCollector{} }

func (processCollector) Names() []string {
	return []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
		"process_open_fds", "process_max_fds", "process_start_time_seconds"}
}

// processStats are the figures one platform reads; a nil one is not reported.
type processStats struct {
	cpuSeconds, rss, vsize, openFDs, maxFDs, startTime *float64
}

func (processCollector) Collect(report func(Family)) {
	st := readProcess()
	for _, f := range []struct {
		name, help string
		typ        Type
		v          *float64
	}{
		{"process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", CounterType, st.cpuSeconds},
		{"process_resident_memory_bytes", "Resident memory size in bytes.", GaugeType, st.rss},
		{"process_virtual_memory_bytes", "Virtual memory size in bytes.", GaugeType, st.vsize},
		{"process_open_fds", "Number of open file descriptors.", GaugeType, st.openFDs},
		{"process_max_fds", "Maximum number of open file descriptors.", GaugeType, st.maxFDs},
		{"process_start_time_seconds", "Start time of the process since unix epoch in seconds.", GaugeType, st.startTime},
	} {
		if f.v != nil {
			report(Family{Name: f.name, Help: f.help, Type: f.typ, Samples: []Sample{{Value: *f.v}}})
		}
	}
}

func ptr(v float64) *float64 { return &v }
