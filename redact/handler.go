package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// handler is a slog.Handler that masks secrets in the message and in every attribute
// (nested groups and LogValuers included) before passing the record on.
type handler struct {
	inner slog.Handler
	r     *Redactor
}

// Handler wraps inner so that nothing it writes carries a secret known to r, nor a
// value shaped like a credential, nor the value of an attribute whose key names a
// secret ("token", "password", "authorization", ...).
func (r *Redactor) Handler(inner slog.Handler) slog.Handler {
	return &handler{inner: inner, r: r}
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return &handler{inner: h.inner.WithAttrs(clean), r: h.r}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{inner: h.inner.WithGroup(name), r: h.r}
}

func (h *handler) attr(a slog.Attr) slog.Attr {
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
