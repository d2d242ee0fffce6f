package hub

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
)

// MaxAuditArguments bounds the arguments an audit line quotes (SetAudit with
// arguments on), in bytes, after masking: a call may carry megabytes, a log line
// should not.
const MaxAuditArguments = 2048

// Outcomes of a call, as its audit line names them.
const (
	OutcomeOK        = "ok"        // the tool answered
	OutcomeError     = "error"     // the tool answered with isError
	OutcomeFailed    = "failed"    // no answer: the server dead or unreachable, a timeout, a protocol error, the hub closed
	OutcomeRefused   = "refused"   // never sent: an unknown tool, arguments nested too deep
	OutcomeCancelled = "cancelled" // the caller's context ended first
)

// auditor is what SetAudit set: where the lines go, and whether they quote the
// arguments.
type auditor struct {
	log       *slog.Logger
	arguments bool
}

// SetAudit has the hub log one line per call from now on, whoever makes it (an
// agent's turn, the HTTP API, a gateway's client): message "tool call" at info on
// log, with the caller's subject (identity.FromContext: absent without a person, ""
// for an admin without one, "admin" true for an admin), server, tool (the exposed
// name) and original_name (the server's own), duration_ms, outcome (OutcomeOK …
// OutcomeCancelled), the attributes of WithAuditAttrs (the request id, the session),
// and, only when arguments is true, the call's arguments masked by the hub's
// redactor and cut at MaxAuditArguments bytes. The hub's redactor masks the whole
// line too. A nil log stops the audit. It is serve's audit log
// ("switchboard.serve.audit"); the CLI's own calls are not audited.
func (h *Hub) SetAudit(log *slog.Logger, arguments bool) {
	if log == nil {
		h.audit.Store(nil)
		return
	}
	h.audit.Store(&auditor{log: slog.New(h.red.Handler(log.Handler())), arguments: arguments})
}

type auditAttrsKey struct{}

// WithAuditAttrs returns ctx whose calls' audit lines carry attrs too (after those
// ctx carries already): the HTTP API gives its request id and session id so.
func WithAuditAttrs(ctx context.Context, attrs ...slog.Attr) context.Context {
	prev, _ := ctx.Value(auditAttrsKey{}).([]slog.Attr)
	all := make([]slog.Attr, 0, len(prev)+len(attrs))
	return context.WithValue(ctx, auditAttrsKey{}, append(append(all, prev...), attrs...))
}

// UsageRecorder takes each call's record (package usage's Recorder): Record must
// not wait, since the call's caller waits for it.
type UsageRecorder interface {
	Record(ctx context.Context, c session.Call)
}

// usageSink holds what SetUsage set.
type usageSink struct{ r UsageRecorder }

// SetUsage has the hub give r a record of every call from now on, whoever makes it,
// as SetAudit logs them (its Person and Source left to r, which reads them from the
// call's context). A nil r stops it.
func (h *Hub) SetUsage(r UsageRecorder) {
	if r == nil {
		h.usage.Store(nil)
		return
	}
	h.usage.Store(&usageSink{r})
}

// auditCall logs one call's line when SetAudit asked for it, and gives its record
// to SetUsage's recorder. server and original are "" for a call that found no tool.
func (h *Hub) auditCall(ctx context.Context, name, server, original string, args json.RawMessage, start time.Time, outcome string) {
	if u := h.usage.Load(); u != nil {
		u.r.Record(ctx, session.Call{Time: start, Tool: clip(name, 256), Server: server, Duration: time.Since(start), Outcome: outcome})
	}
	a := h.audit.Load()
	if a == nil || !a.log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	attrs := make([]slog.Attr, 0, 12)
	if p, ok := identity.FromContext(ctx); ok {
		attrs = append(attrs, slog.String("subject", p.Subject))
		if p.Admin {
			attrs = append(attrs, slog.Bool("admin", true))
		}
	}
	if server != "" {
		attrs = append(attrs, slog.String("server", server))
	}
	attrs = append(attrs, slog.String("tool", clip(name, 256)))
	if original != "" {
		attrs = append(attrs, slog.String("original_name", original))
	}
	attrs = append(attrs,
		slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
		slog.String("outcome", outcome))
	if extra, ok := ctx.Value(auditAttrsKey{}).([]slog.Attr); ok {
		attrs = append(attrs, extra...)
	}
	if a.arguments {
		// Masked before it is cut, so that no cut leaves the start of a secret unmasked.
		attrs = append(attrs, slog.String("arguments", clip(h.red.String(string(args)), MaxAuditArguments)))
	}
	a.log.LogAttrs(ctx, slog.LevelInfo, "tool call", attrs...)
}

// AuditRefused logs the audit line of a call refused before it reached the hub's
// Call (OutcomeRefused): a caller that checks the arguments or the tool itself, as
// the HTTP API does to answer 400 or 404, still leaves the line Call would have.
func (h *Hub) AuditRefused(ctx context.Context, name string, args json.RawMessage) {
	h.auditCall(ctx, name, "", "", args, time.Now(), OutcomeRefused)
}

// outcomeOf is the outcome of a call that reached its server.
func outcomeOf(ctx context.Context, isError bool, err error) string {
	switch {
	case err != nil && ctx.Err() != nil:
		return OutcomeCancelled
	case err != nil:
		return OutcomeFailed
	case isError:
		return OutcomeError
	}
	return OutcomeOK
}

// clip cuts s to at most n bytes on a character boundary, saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(cut)"
}
