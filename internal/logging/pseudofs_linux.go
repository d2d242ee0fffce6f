package logging

import (
	"os"
	"syscall"
)

// Magic numbers of kernel filesystems, from linux/magic.h.
var pseudoFSMagic = map[int64]bool{
	0x9fa0:     true, // proc
	0x62656572: true, // sysfs
	0x27e0eb:   true, // cgroup
	0x63677270: true, // cgroup2
	0x64626720: true, // debugfs
	0x74726163: true, // tracefs
	0x73636673: true, // securityfs
	0xcafe4a11: true, // bpf
}

// pseudoFS reports whether f lives on a kernel filesystem whose files look regular but
// are not storage: writes fail, vanish, or (as root, under /proc/sys) change the kernel.
func pseudoFS(f *os.File) bool {
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &st); err != nil {
		return false
	}
	return pseudoFSMagic[int64(st.Type)]
}
