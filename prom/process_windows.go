package prom

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	procGetProcessMemoryInfo  = syscall.NewLazyDLL("psapi.dll").NewProc("GetProcessMemoryInfo")
	procGetProcessHandleCount = syscall.NewLazyDLL("kernel32.dll").NewProc("GetProcessHandleCount")
)

// processMemoryCounters is PROCESS_MEMORY_COUNTERS_EX
// (https://learn.microsoft.com/windows/win32/api/psapi/ns-psapi-process_memory_counters_ex).
type processMemoryCounters struct {
	cb                         uint32
	PageFaultCount             uint32
	PeakWorkingSetSize         uintptr
	WorkingSetSize             uintptr
	QuotaPeakPagedPoolUsage    uintptr
	QuotaPagedPoolUsage        uintptr
	QuotaPeakNonPagedPoolUsage uintptr
	QuotaNonPagedPoolUsage     uintptr
	PagefileUsage              uintptr
	PeakPagefileUsage          uintptr
	PrivateUsage               uintptr
}

// readProcess on Windows: the times of GetProcessTimes, the working set and the
// private bytes of GetProcessMemoryInfo, and the handles as the descriptors, as
// Prometheus' Go client reports them (with its fixed limit of 16M handles).
func readProcess() processStats {
	st := processStats{maxFDs: ptr(16 * 1024 * 1024)}
	h := windows.CurrentProcess()
	var start, exit, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &start, &exit, &kernel, &user) == nil {
		st.startTime = ptr(float64(start.Nanoseconds()) / 1e9)
		st.cpuSeconds = ptr(fileTimeSeconds(kernel) + fileTimeSeconds(user))
	}
	mem := processMemoryCounters{}
	mem.cb = uint32(unsafe.Sizeof(mem))
	if r, _, _ := procGetProcessMemoryInfo.Call(uintptr(h), uintptr(unsafe.Pointer(&mem)), uintptr(mem.cb)); r != 0 {
		st.rss = ptr(float64(mem.WorkingSetSize))
		st.vsize = ptr(float64(mem.PrivateUsage))
	}
	var handles uint32
	if r, _, _ := procGetProcessHandleCount.Call(uintptr(h), uintptr(unsafe.Pointer(&handles))); r != 0 {
		st.openFDs = ptr(float64(handles))
	}
	return st
}

// fileTimeSeconds is a duration in 100-ns intervals, as GetProcessTimes gives the
// CPU times, in seconds.
func fileTimeSeconds(ft windows.Filetime) float64 {
	return float64(uint64(ft.HighDateTime)<<32+uint64(ft.LowDateTime)) / 1e7
}
