//go:build unix

package prom

import "syscall"

// unixStats are what every Unix system tells through getrusage and getrlimit: the
// CPU time and the limit of file descriptors.
func unixStats() processStats {
	var st processStats
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		st.cpuSeconds = ptr(seconds(ru.Utime) + seconds(ru.Stime))
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		st.maxFDs = ptr(float64(lim.Cur))
	}
	return st
}

func seconds(tv syscall.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)/1e6
}
