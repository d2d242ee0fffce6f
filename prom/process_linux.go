package prom

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// userHZ is the unit of /proc's clock ticks: 100 on every Linux that Go runs on
// (sysconf(_SC_CLK_TCK), which Prometheus' procfs assumes too).
const userHZ = 100

// readProcess reads the rest from /proc: proc(5)'s /proc/self/stat has
// "(22) starttime: The time the process started after system boot, expressed in
// clock ticks", "(23) vsize: Virtual memory size in bytes" and "(24) rss: Resident
// Set Size: number of pages the process has in real memory"; /proc/stat's btime is
// the boot time in seconds since the epoch.
func readProcess() processStats {
	st := unixStats()
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		st.openFDs = ptr(float64(len(fds)))
	}
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return st
	}
	// The command's name, field 2, is in parentheses and may hold spaces and
	// parentheses itself: the fields after it start after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return st
	}
	fields := strings.Fields(string(stat[i+1:])) // fields[0] is field 3
	field := func(n int) (float64, bool) {
		if n-3 >= len(fields) {
			return 0, false
		}
		v, err := strconv.ParseFloat(fields[n-3], 64)
		return v, err == nil
	}
	if v, ok := field(23); ok {
		st.vsize = ptr(v)
	}
	if v, ok := field(24); ok {
		st.rss = ptr(v * float64(os.Getpagesize()))
	}
	if start, ok := field(22); ok {
		if boot, ok := bootTime(); ok {
			st.startTime = ptr(boot + start/userHZ)
		}
	}
	return st
}

// bootTime is /proc/stat's "btime: boot time, in seconds since the Epoch".
func bootTime() (float64, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f, err == nil
		}
	}
	return 0, false
}
