// Package logging sets up Switchboard's log/slog output (text or JSON, stderr or a
// size-rotated file) and guarantees that secrets never reach a log line: every message
// and attribute passes through a [redact.Redactor] before it is written.
//
// Attribute keys used across the project: "server", "tool", "session", "call_id".
package logging

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/redact"
	"gopkg.in/natefinch/lumberjack.v2"
)

// Attribute keys shared by every package, so logs can be filtered the same way everywhere.
const (
	KeyServer  = "server"
	KeyTool    = "tool"
	KeySession = "session"
	KeyCallID  = "call_id"
)

// Options configures [New]. The zero value logs text at info level to stderr.
type Options struct {
	Level  string // debug, info, warn, error; "" = info
	Format string // text or json; "" = text
	// File, when set, sends logs to this path instead of stderr, rotated by size.
	File string
	// MaxSizeMB is the size at which File is rotated (default 10); MaxBackups how many
	// rotated files are kept (default 3).
	MaxSizeMB  int
	MaxBackups int
	// Writer overrides the destination (tests); ignored when File is set.
	Writer io.Writer
	// Redactor masks secrets in every record; nil masks only values shaped like
	// credentials (a program gives the one it registers its config's secrets with).
	Redactor *redact.Redactor
}

// ParseLevel turns a level name into a slog.Level.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "info":
		return slog.LevelInfo, nil
	case "debug":
		return slog.LevelDebug, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown log level %q (want debug, info, warn or error)", s)
}

// New builds a logger from opts. The returned closer releases the log file, if any.
func New(opts Options) (*slog.Logger, io.Closer, error) {
	level, err := ParseLevel(opts.Level)
	if err != nil {
		return nil, nil, err
	}
	var w io.Writer = os.Stderr
	var closer io.Closer = io.NopCloser(nil)
	switch {
	case opts.File != "":
		if err := checkFile(opts.File); err != nil {
			return nil, nil, err
		}
		lj := &lumberjack.Logger{
			Filename:   opts.File,
			MaxSize:    orDefault(opts.MaxSizeMB, 10),
			MaxBackups: orDefault(opts.MaxBackups, 3),
		}
		w, closer = lj, lj
	case opts.Writer != nil:
		w = opts.Writer
	}
	hopts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	switch strings.ToLower(opts.Format) {
	case "", "text":
		h = slog.NewTextHandler(w, hopts)
	case "json":
		h = slog.NewJSONHandler(w, hopts)
	default:
		return nil, nil, fmt.Errorf("unknown log format %q (want text or json)", opts.Format)
	}
	return slog.New(opts.Redactor.Handler(h)), closer, nil
}

// checkFile makes sure path can take a log before lumberjack sees it: lumberjack opens
// lazily, creates missing directories, and renames whatever it cannot open (a user's
// directory became "dir-<time>") before writing a new file in its place. So a directory,
// a special file, a missing parent or an unwritable file is refused here, with nothing
// on disk moved or created but the log file itself in an existing directory.
func checkFile(path string) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("log file %s: %s", path, fmt.Sprintf(format, args...))
	}
	info, err := os.Stat(path)
	switch {
	case err == nil:
		if err := regular(info); err != nil {
			return fail("%v", err)
		}
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(path)
		di, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return fail("directory %s does not exist", dir)
		}
		if err != nil {
			return fail("%v", unwrapPath(err))
		}
		if !di.IsDir() {
			return fail("%s is not a directory", dir)
		}
	default:
		return fail("%v", unwrapPath(err))
	}
	// 0600 is the mode lumberjack gives the files it creates.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fail("cannot open for writing: %v", unwrapPath(err))
	}
	defer f.Close()
	// Checked again on the open file, in case path changed since the Stat above.
	if info, err = f.Stat(); err != nil {
		return fail("%v", unwrapPath(err))
	}
	if err := regular(info); err != nil {
		return fail("%v", err)
	}
	if pseudoFS(f) {
		return fail("is a kernel file (proc, sysfs and the like), not a log file")
	}
	// Some kernel files open for writing and then fail every write (/proc/version:
	// input/output error); an empty write finds that out without changing anything.
	if _, err := f.Write(nil); err != nil {
		return fail("cannot write: %v", unwrapPath(err))
	}
	return nil
}

// regular refuses anything but a plain file: a directory, a FIFO (which blocks the
// writer), a device, a socket; lumberjack would rename any of them on rotation.
func regular(info fs.FileInfo) error {
	m := info.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("is a directory, not a file")
	case m&fs.ModeNamedPipe != 0:
		return errors.New("is a named pipe, not a regular file")
	case m&fs.ModeDevice != 0:
		return errors.New("is a device, not a regular file (omit --log-file to log to stderr)")
	case m&fs.ModeSocket != 0:
		return errors.New("is a socket, not a regular file")
	}
	return errors.New("is not a regular file")
}

// unwrapPath drops the operation and path from a *fs.PathError: the message names the
// log file already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}
