package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/switchboard-mcp/switchboard/host"
)

// A VS Code config's ${input:ID} values come from $SWITCHBOARD_INPUT_<ID> (read by the
// config package) or, when stdin is a terminal, from a prompt on it. The answers are
// kept for the life of the process, so that a reload of the same file does not ask
// again (and can't: a gateway's stdin is its client's pipe by then).
var (
	answersMu sync.Mutex
	answers   = map[string]string{}
)

var errNotTerminal = errors.New("stdin is not a terminal to ask on")

// promptInput asks for one input on the terminal, on stderr so that stdout stays the
// command's (or an MCP client's) own. Typed text is echoed, password inputs included:
// hiding it needs golang.org/x/term, which the module does not use; the prompt says so.
func (a *app) promptInput(in host.ConfigInput) (string, error) {
	answersMu.Lock()
	defer answersMu.Unlock()
	if v, ok := answers[in.ID]; ok {
		return v, nil
	}
	if !stdinIsTerminal() {
		return "", errNotTerminal
	}
	var b strings.Builder
	fmt.Fprintf(&b, "input %q", in.ID)
	if in.Description != "" {
		fmt.Fprintf(&b, " (%s)", in.Description)
	}
	if len(in.Options) > 0 {
		fmt.Fprintf(&b, ", one of %s", strings.Join(in.Options, ", "))
	}
	if in.Default != "" && !in.Password {
		fmt.Fprintf(&b, " [%s]", in.Default)
	}
	if in.Password {
		fmt.Fprintf(&b, " (shown as you type; $%s avoids typing it)", in.Env)
	}
	fmt.Fprintf(a.stderr, "%s: ", b.String())
	line, err := readLine(os.Stdin)
	if err != nil {
		return "", fmt.Errorf("reading stdin: %w", err)
	}
	a.red.Add(line)
	answers[in.ID] = line
	return line, nil
}

// stdinIsTerminal reports whether stdin is a character device other than the null
// device (what a test or a service gets), without golang.org/x/term.
func stdinIsTerminal() bool {
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// readLine reads up to a newline one byte at a time, so nothing after it is consumed.
func readLine(f *os.File) (string, error) {
	var b []byte
	buf := make([]byte, 1)
	for {
		n, err := f.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				break
			}
			b = append(b, buf[0])
		}
		if err != nil {
			if len(b) > 0 {
				break
			}
			return "", err
		}
	}
	return strings.TrimSuffix(string(b), "\r"), nil
}

// readLineCtx is readLine that returns when ctx ends, with ctx's error. A read of
// stdin cannot be cancelled: the reader is left to the process, which is ending (a
// signal ended ctx), and only one is started per line asked for, so no two read at
// once while the process lives on.
func readLineCtx(ctx context.Context, f *os.File) (string, error) {
	type lineErr struct {
		s   string
		err error
	}
	got := make(chan lineErr, 1)
	go func() {
		s, err := readLine(f)
		got <- lineErr{s, err}
	}()
	select {
	case r := <-got:
		return r.s, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
