package upstream

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/redact"
)

// process is one run of a stdio server: the child in its own process group, the pipes
// we own, and the goroutines that watch it. Every field is owned by one attempt.
type process struct {
	cmd    *exec.Cmd
	group  *group   // the child and its descendants, stopped as one (process_*.go)
	stdin  *os.File // our write end
	stdout *os.File // our read end
	stderr *os.File // our read end

	exited     chan struct{} // closed when the child has been reaped
	waitErr    error         // set before exited is closed
	stderrDone chan struct{} // closed when the stderr reader returns
	// recent are this process's last lines of stderr (the supervisor's tail has
	// those of every attempt), for the reason it failed.
	recent *ring
	log    *slog.Logger
	red    *redact.Redactor // masks the stderr lines
}

// startProcess starts cfg's command with the environment policy, working directory and
// process group of docs/architecture.md ("Connection lifecycle"). Lines on stderr,
// masked by red, go to log and to onLine (the supervisor's stderr tail and log).
//
// A relative cwd or command path is taken from the config's project directory, where
// a server without a cwd runs (config.Server.WorkDir); the errors name the path that
// was not found and that directory.
func startProcess(cfg *config.Server, log *slog.Logger, onLine func(string), red *redact.Redactor) (*process, error) {
	// A missing directory or program, or one that is not executable: the same at
	// every attempt.
	if err := cfg.CheckDir(); err != nil {
		return nil, permanent(err)
	}
	path, err := cfg.Program()
	if err != nil {
		return nil, permanent(err)
	}
	cmd := exec.Command(path, cfg.Args...)
	cmd.Args[0] = argv0(cfg.Command, path)
	cmd.Env = cfg.Environ(os.Environ())
	cmd.Dir = cfg.WorkDir()

	// os.Pipe rather than cmd.StdoutPipe: Wait must not close our read ends (we read
	// after the child exits), and EOF must mean "every writer is gone", grandchildren
	// included.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW

	grp, err := startGroup(cmd)
	if err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		if dirErr := cfg.CheckDir(); dirErr != nil {
			return nil, permanent(dirErr) // gone since the check above
		}
		err = fmt.Errorf("start %s: %w", cfg.Command, err)
		if permanentStart(err) {
			err = permanent(err)
		}
		return nil, err
	}
	closeAll(inR, outW, errW) // the child has its copies
	p := &process{
		cmd:        cmd,
		group:      grp,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
		recent:     newRing(recentLines),
		log:        log,
		red:        red,
	}
	go p.wait()
	go p.readStderr(onLine)
	return p, nil
}

// recentLines of a process's stderr are kept for the reason it failed: enough for a
// Node.js or Python error with its stack.
const recentLines = 40

// failure is the line of the process's stderr that says why it failed (see
// failureLine), "" when it wrote none. Complete once stderrDone is closed.
func (p *process) failure() string {
	return truncate(failureLine(p.recent.snapshot()), 300)
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

func (p *process) wait() {
	p.waitErr = p.cmd.Wait()
	close(p.exited)
}

func (p *process) readStderr(onLine func(string)) {
	defer close(p.stderrDone)
	sc := bufio.NewScanner(p.stderr)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := p.red.String(sc.Text())
		onLine(line)
		p.recent.add(line)
		p.log.Info("stderr", "line", line)
	}
}

// exitDescription says how the child ended, for status and errors.
func (p *process) exitDescription() string {
	select {
	case <-p.exited:
	default:
		return "running"
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("killed by signal %s", ws.Signal())
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	if p.waitErr != nil {
		return p.waitErr.Error()
	}
	return "exited with status 0"
}

// stop shuts the child down as docs/architecture.md and the MCP spec's stdio shutdown describe:
// "the client SHOULD initiate shutdown by first closing the input stream to the child
// process, waiting for the server to exit, or sending SIGTERM if the server does not
// exit within a reasonable time, and SIGKILL if the server does not exit within a
// reasonable time after SIGTERM." The later steps reach the whole process group (a
// Job Object on Windows) so that grandchildren (npx → node) go too; group.terminate
// has each OS's sequence. Every wait is bounded: the first, for the child to exit
// on its own, by first, the later ones by grace.
func (p *process) stop(first, grace time.Duration) {
	p.stdin.Close()
	p.group.terminate(p.waitExit, first, grace)
	p.waitExit(grace) // after SIGKILL the reap is immediate
	// Our read ends: closing them ends the stderr reader even if an escaped
	// descendant still holds the write end.
	select {
	case <-p.stderrDone:
	case <-time.After(200 * time.Millisecond):
	}
	p.stderr.Close()
	p.stdout.Close()
	<-p.stderrDone
}

func (p *process) waitExit(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// ring keeps the last lines of a server's stderr for status.
type ring struct {
	mu    sync.Mutex
	lines []string
	max   int
}

func newRing(max int) *ring { return &ring{max: max} }

func (r *ring) add(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.lines) == r.max {
		copy(r.lines, r.lines[1:])
		r.lines = r.lines[:r.max-1]
	}
	r.lines = append(r.lines, line)
}

func (r *ring) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}
