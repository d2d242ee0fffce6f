package signin

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Browser opens URLs in the person's browser: Command is the program and its first
// arguments, and the URL is given as the last argument, as $BROWSER is used by gh
// and git ("firefox", "open -a Safari", or a script).
type Browser struct {
	Command []string
}

// DefaultBrowser is the person's browser: $BROWSER when set (split at spaces), else
// the operating system's opener (xdg-open on Linux and the BSDs, open on macOS,
// rundll32's URL handler on Windows); nil when there is neither.
func DefaultBrowser() *Browser {
	if b := strings.Fields(os.Getenv("BROWSER")); len(b) > 0 {
		return &Browser{Command: b}
	}
	var cmd []string
	switch runtime.GOOS {
	case "darwin":
		cmd = []string{"open"}
	case "windows":
		cmd = []string{"rundll32", "url.dll,FileProtocolHandler"}
	default:
		cmd = []string{"xdg-open"}
	}
	if _, err := exec.LookPath(cmd[0]); err != nil {
		return nil
	}
	return &Browser{Command: cmd}
}

// start runs the browser on url; the caller waits for it (waitOrKill). Only an
// http or https URL is opened: an opener (xdg-open, open, $BROWSER) runs whatever
// a file: or javascript: URL names.
func (b *Browser) start(url string) (*exec.Cmd, error) {
	if len(b.Command) == 0 {
		return nil, errors.New("no browser command")
	}
	if err := checkAuthURL(url); err != nil {
		return nil, err
	}
	cmd := exec.Command(b.Command[0], append(b.Command[1:len(b.Command):len(b.Command)], url)...)
	// The browser's output is not the command's: a browser that prints (or a
	// script standing in for one) would mix with what the person reads.
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// waitOrKill waits for cmd up to grace, then kills it and waits: an opener returns
// at once as a rule, and one that does not (a browser run in the foreground) must
// not outlive the sign-in that started it.
func waitOrKill(cmd *exec.Cmd, grace time.Duration) {
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
		cmd.Process.Kill()
		<-done
	}
}
