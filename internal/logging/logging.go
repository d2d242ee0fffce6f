// Package logging sets up Switchboard's log/slog output (text or JSON, stderr or a
// size-rotated file) and guarantees that secrets never reach a log line: every message
// and attribute passes through a [Redactor] before it is written.
//
// Attribute keys used across the project: "server", "tool", "session", "call_id".
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

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
	// Redactor masks secrets; nil = the process-wide one ([Default]).
	Redactor *Redactor
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
	r := opts.Redactor
	if r == nil {
		r = Default()
	}
	return slog.New(NewHandler(h, r)), closer, nil
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// Handler is a slog.Handler that masks secrets in the message and in every attribute
// (nested groups and LogValuers included) before passing the record on.
type Handler struct {
	inner slog.Handler
	r     *Redactor
}

// NewHandler wraps inner so that nothing it writes carries a secret known to r.
func NewHandler(inner slog.Handler, r *Redactor) *Handler {
	return &Handler{inner: inner, r: r}
}

func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h *Handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return &Handler{inner: h.inner.WithAttrs(clean), r: h.r}
}

func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{inner: h.inner.WithGroup(name), r: h.r}
}

func (h *Handler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		group := v.Group()
		clean := make([]slog.Attr, len(group))
		for i, g := range group {
			clean[i] = h.attr(g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(clean...)}
	}
	if sensitiveKey(a.Key) {
		return slog.String(a.Key, Mask)
	}
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.String(v.String()))
	case slog.KindAny:
		// Errors, Stringers and other values are rendered to text so they can be masked.
		if v.Any() == nil {
			return slog.Attr{Key: a.Key, Value: v}
		}
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, h.r.String(err.Error()))
		}
		return slog.String(a.Key, h.r.String(fmt.Sprint(v.Any())))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
