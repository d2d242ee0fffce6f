package upstream

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// group is a Job Object that holds the child and every process it starts, from its
// first instruction on: Windows puts a process's children in its job, and this job
// allows no breakaway. The job is created with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE and
// its only handle is ours (not inheritable), so when this process ends in any way,
// TerminateProcess and crashes included, the kernel closes the handle and ends the
// whole tree: npx, the cmd.exe that runs npx.cmd, node and whatever node started.
//
// How the child gets into the job before it can start anything: os/exec can only
// start a process, so it is created with CREATE_SUSPENDED, assigned to the job, and
// its one thread resumed (Raymond Chen's CreateProcessInJob, "Destroying all child
// processes (and grandchildren) when the parent exits"; os/exec closes the thread
// handle, so the thread is found with a Toolhelp snapshot). Racy still: if this
// process is killed between CreateProcess and AssignProcessToJobObject, the child is
// left suspended, outside any job; it has run no instruction and holds only its pipes.
// Processes a server starts other than as its children (a service, a scheduled task,
// a COM server) escape the job, as setsid escapes a process group on Unix.
type group struct {
	job  windows.Handle
	done sync.Once // terminate runs once: a closed handle's value may be reused
}

// startGroup starts cmd suspended, puts it in a new kill-on-close job and resumes it.
// CREATE_NEW_PROCESS_GROUP keeps a Ctrl-C in the host's console from reaching the
// servers (the host stops them in order instead), as Setpgid does on Unix; HideWindow
// keeps a console server started by a windowless host (Claude Desktop) from showing a
// console window.
func startGroup(cmd *exec.Cmd) (*group, error) {
	job, err := newKillOnCloseJob()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP,
		HideWindow:    true,
	}
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	if err := assignAndResume(job, uint32(cmd.Process.Pid)); err != nil {
		// Not resumed, or only partly: nothing of the server has run. TerminateProcess
		// works on a suspended process.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		windows.CloseHandle(job)
		return nil, err
	}
	return &group{job: job}, nil
}

// argv0 is the first word of the child's command line: the path LookPath found. For
// a batch file (npx.cmd) Windows runs cmd.exe /c on the command line, and cmd.exe
// would look the bare name up again, in the working directory first.
func argv0(_, path string) string { return path }

func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil) // no security attributes: not inheritable
	if err != nil {
		return 0, fmt.Errorf("CreateJobObject: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("SetInformationJobObject: %w", err)
	}
	return job, nil
}

// assignAndResume puts the suspended process pid in job, then resumes its thread.
// Opening the process by pid is safe: os/exec holds a handle to it until Wait, so the
// pid cannot have been reused.
func assignAndResume(job windows.Handle, pid uint32) error {
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("OpenProcess: %w", err)
	}
	defer windows.CloseHandle(proc)
	// Since Windows 8 this works when the host itself runs in a job (a terminal's, an
	// editor's): the new job nests inside it.
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		return fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	return resumeThreads(pid)
}

// resumeThreads resumes the threads of pid: a process created suspended has exactly
// one, its initial thread.
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("CreateToolhelp32Snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("OpenThread: %w", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("ResumeThread: %w", err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("Thread32Next: %w", err)
	}
	if resumed == 0 {
		return fmt.Errorf("no thread of process %d to resume", pid)
	}
	return nil
}

// terminate ends the job once stdin is closed. Windows has no SIGTERM: the child gets
// first to exit (exited waits for it) and its descendants grace to follow it,
// then TerminateJobObject ends whatever is left, like SIGKILL to a process group.
// GenerateConsoleCtrlEvent is no substitute, as it needs a console shared with the
// server, which a host started by a GUI client does not have.
func (g *group) terminate(exited func(time.Duration) bool, first, grace time.Duration) {
	g.done.Do(func() {
		if exited(first) {
			g.waitGone(grace)
		}
		_ = windows.TerminateJobObject(g.job, 1)
		windows.CloseHandle(g.job)
	})
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION (winnt.h), which
// golang.org/x/sys/windows does not define.
type jobAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// alive reports whether any process is still in the job. A process leaves the count
// once it has exited and every handle to it is closed (os/exec closes its own in
// Wait).
func (g *group) alive() bool {
	var info jobAccounting
	err := windows.QueryInformationJobObject(g.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return err != nil || info.ActiveProcesses > 0
}

func (g *group) waitGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for g.alive() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
