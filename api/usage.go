package api

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/usage"
)

// UsageReader makes the figures of GET /v1/usage (package usage's Recorder).
type UsageReader interface {
	Report(ctx context.Context, q usage.Query) (*apiwire.UsageReport, error)
}

// defaultUsageRange is the range of GET /v1/usage without "since".
const defaultUsageRange = 24 * time.Hour

// getUsage answers GET /v1/usage?since=&until=&by=&bucket=&person=: the tool calls'
// figures over time (apiwire.UsageReport). since and until are RFC 3339 times, or a
// duration before now ("24h", "7d"); by default the last 24 hours, by tool, per hour. A
// person sees their own calls; an admin everyone's, or one person's with ?person=.
func (s *Server) getUsage(w http.ResponseWriter, r *http.Request) {
	if s.opts.Usage == nil {
		writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, "this service keeps no usage (its session store keeps none, or \"serve\": {\"usage\": {\"retention\": \"0\"}})")
		return
	}
	qv, now := r.URL.Query(), time.Now()
	until, err := usageTime(qv.Get("until"), now, now)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, "until: "+err.Error())
		return
	}
	since, err := usageTime(qv.Get("since"), now, until.Add(-defaultUsageRange))
	if err != nil {
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, "since: "+err.Error())
		return
	}
	q := usage.Query{CallQuery: session.CallQuery{Since: since, Until: until},
		By: cmp.Or(qv.Get("by"), "tool"), Bucket: cmp.Or(qv.Get("bucket"), "1h")}
	p, ok := identity.FromContext(r.Context())
	switch who, asked := qv.Get("person"), qv.Has("person"); {
	case ok && !p.Admin:
		if asked && who != usage.PersonOf(r.Context()) {
			writeError(w, r, http.StatusForbidden, apiwire.CodeForbidden, "a person sees their own usage only; an admin sees anyone's")
			return
		}
		q.Person, q.PersonOnly = usage.PersonOf(r.Context()), true
	case asked:
		q.Person, q.PersonOnly = who, true
	}
	if err := q.Check(); err != nil {
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, err.Error())
		return
	}
	rep, err := s.opts.Usage.Report(r.Context(), q)
	if err != nil {
		s.logOf(r.Context()).Error("usage report failed", "err", err)
		writeError(w, r, http.StatusInternalServerError, apiwire.CodeStoreFailed, "the usage could not be read from the session store")
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// usageTime reads a time of GET /v1/usage: RFC 3339, or a duration before now;
// empty is def.
func usageTime(v string, now, def time.Time) (time.Time, error) {
	if v == "" {
		return def, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	v = strings.TrimPrefix(v, "-")
	d, err := time.ParseDuration(v)
	if days, derr := strconv.Atoi(strings.TrimSuffix(v, "d")); err != nil && derr == nil && strings.HasSuffix(v, "d") {
		d, err = time.Duration(days)*24*time.Hour, nil
	}
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time (2026-11-29T10:00:00Z) nor a duration before now (24h, 7d)", v)
	}
	return now.Add(-d), nil
}
