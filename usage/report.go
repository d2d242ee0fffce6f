package usage

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/session"
)

// MaxCalls bounds the calls one report reads; more make it Truncated.
const MaxCalls = 500_000

// MaxBuckets bounds a report's buckets: a range of a year in hours is refused.
const MaxBuckets = 1500

// Query is what a report covers: the calls of session.CallQuery, grouped By
// ("tool", "server", "person" or "source") in buckets of Bucket ("1m", "1h", "1d").
type Query struct {
	session.CallQuery
	By, Bucket string
}

// BucketSize is the duration a bucket name stands for; false for an unknown one.
func BucketSize(name string) (time.Duration, bool) {
	switch name {
	case "1m":
		return time.Minute, true
	case "1h":
		return time.Hour, true
	case "1d":
		return 24 * time.Hour, true
	}
	return 0, false
}

// Check says what is wrong with q, nil when nothing is.
func (q Query) Check() error {
	size, ok := BucketSize(q.Bucket)
	switch {
	case !slices.Contains(apiwire.UsageBy, q.By):
		return fmt.Errorf("by %q: want one of %v", q.By, apiwire.UsageBy)
	case !ok:
		return fmt.Errorf("bucket %q: want one of %v", q.Bucket, apiwire.UsageBuckets)
	case !q.Until.After(q.Since):
		return fmt.Errorf("until (%s) is not after since (%s)", q.Until.Format(time.RFC3339), q.Since.Format(time.RFC3339))
	case q.Until.Sub(q.Since.Truncate(size))/size >= MaxBuckets:
		return fmt.Errorf("%s to %s in buckets of %s is more than %d buckets: ask a shorter range or a larger bucket",
			q.Since.Format(time.RFC3339), q.Until.Format(time.RFC3339), q.Bucket, MaxBuckets)
	}
	return nil
}

// Report reads the calls q covers from the store (after writing those still
// buffered) and makes their figures.
func (r *Recorder) Report(ctx context.Context, q Query) (*apiwire.UsageReport, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	if err := r.Flush(ctx); err != nil {
		return nil, err
	}
	calls, more, err := r.store.Calls(ctx, q.CallQuery, MaxCalls)
	if err != nil {
		return nil, err
	}
	rep := Summarize(q, calls)
	rep.Truncated = more
	return rep, nil
}

// Summarize makes the figures of calls (those q selects) as q asks. q must pass
// Check.
func Summarize(q Query, calls []session.Call) *apiwire.UsageReport {
	size, _ := BucketSize(q.Bucket)
	start := q.Since.UTC().Truncate(size)
	n := int((q.Until.Sub(start) + size - 1) / size)
	rep := &apiwire.UsageReport{Since: q.Since.UTC(), Until: q.Until.UTC(), By: q.By, Bucket: q.Bucket,
		Buckets: make([]time.Time, n), Groups: []apiwire.UsageGroup{}}
	for i := range rep.Buckets {
		rep.Buckets[i] = start.Add(time.Duration(i) * size)
	}
	type acc struct {
		total   tally
		buckets []tally
	}
	var all tally
	groups := map[string]*acc{}
	for _, c := range calls {
		if !q.Matches(c) {
			continue
		}
		key := keyOf(q.By, c)
		g := groups[key]
		if g == nil {
			g = &acc{buckets: make([]tally, n)}
			groups[key] = g
		}
		i := int(c.Time.Sub(start) / size)
		all.add(c)
		g.total.add(c)
		g.buckets[i].add(c)
	}
	rep.Total = all.figures()
	for key, g := range groups {
		ug := apiwire.UsageGroup{Key: key, Total: g.total.figures(), Series: make([]apiwire.UsageFigures, n)}
		for i := range g.buckets {
			ug.Series[i] = g.buckets[i].figures()
		}
		rep.Groups = append(rep.Groups, ug)
	}
	slices.SortFunc(rep.Groups, func(a, b apiwire.UsageGroup) int {
		return cmp.Or(cmp.Compare(b.Total.Calls, a.Total.Calls), cmp.Compare(a.Key, b.Key))
	})
	return rep
}

func keyOf(by string, c session.Call) string {
	switch by {
	case "server":
		return c.Server
	case "person":
		return c.Person
	case "source":
		return c.Source
	}
	return c.Tool
}

// tally counts a set of calls and keeps the durations of those that reached a
// server, for the percentiles.
type tally struct {
	calls, errors, refused int
	durations              []time.Duration
}

func (t *tally) add(c session.Call) {
	t.calls++
	switch c.Outcome {
	case "refused":
		t.refused++
		return
	case "error", "failed":
		t.errors++
	}
	t.durations = append(t.durations, c.Duration)
}

func (t *tally) figures() apiwire.UsageFigures {
	f := apiwire.UsageFigures{Calls: t.calls, Errors: t.errors, Refused: t.refused}
	if len(t.durations) > 0 {
		slices.Sort(t.durations)
		f.P50Ms, f.P95Ms = percentile(t.durations, 50), percentile(t.durations, 95)
	}
	return f
}

// percentile is the p-th percentile of sorted by the nearest-rank method, in
// milliseconds rounded to the microsecond.
func percentile(sorted []time.Duration, p int) float64 {
	rank := int(math.Ceil(float64(p) / 100 * float64(len(sorted))))
	d := sorted[max(rank, 1)-1]
	return math.Round(float64(d.Microseconds())) / 1000
}
