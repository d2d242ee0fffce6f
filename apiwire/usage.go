package apiwire

import "time"

// UsageReport is the answer of GET /v1/usage: the tool calls between Since and Until
// (Until excluded), grouped By "tool", "server", "person" or "source", each group's
// figures in buckets of Bucket ("1m", "1h" or "1d") starting at Since rounded down
// to the bucket. Groups are the busiest first; Total is every call's figures.
type UsageReport struct {
	Since  time.Time    `json:"since"`
	Until  time.Time    `json:"until"`
	By     string       `json:"by"`
	Bucket string       `json:"bucket"`
	Total  UsageFigures `json:"total"`
	// Buckets are the start times of the buckets, the same for every group.
	Buckets []time.Time  `json:"buckets"`
	Groups  []UsageGroup `json:"groups"`
	// Truncated says that more calls fell in the range than one report reads
	// (500,000): the figures are those of the oldest ones; ask a shorter range.
	Truncated bool `json:"truncated,omitempty"`
}

// UsageGroup is one tool's, server's, person's or source's figures (Key names it;
// "" is the calls of no person, or of no server for an unknown tool), in all and
// per bucket (Series[i] is UsageReport.Buckets[i]'s).
type UsageGroup struct {
	Key    string         `json:"key"`
	Total  UsageFigures   `json:"total"`
	Series []UsageFigures `json:"series"`
}

// UsageFigures are a set of calls' figures: how many, how many ended in an error
// (the tool's isError, or no answer: a dead server, a timeout), how many were
// refused before they reached a server (an unknown tool, outside the caller's
// access) and the median and 95th percentile of the duration of those that
// reached one, in milliseconds (0 when none did).
type UsageFigures struct {
	Calls   int     `json:"calls"`
	Errors  int     `json:"errors"`
	Refused int     `json:"refused"`
	P50Ms   float64 `json:"p50Ms"`
	P95Ms   float64 `json:"p95Ms"`
}

// What GET /v1/usage may be asked.
var (
	UsageBy      = []string{"tool", "server", "person", "source"}
	UsageBuckets = []string{"1m", "1h", "1d"}
)
