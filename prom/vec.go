package prom

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Counter is a value that only goes up.
type Counter struct{ bits atomic.Uint64 }

// Inc adds 1.
func (c *Counter) Inc() { c.Add(1) }

// Add adds v, which must not be negative.
func (c *Counter) Add(v float64) {
	if v < 0 {
		panic("prom: a counter cannot go down")
	}
	for {
		old := c.bits.Load()
		if c.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// Value is the counter's value.
func (c *Counter) Value() float64 { return math.Float64frombits(c.bits.Load()) }

// Histogram counts observations in buckets, as a Prometheus histogram does.
type Histogram struct {
	upper []float64 // the buckets' upper bounds, ascending, without +Inf

	mu     sync.Mutex // keeps the buckets, the count and the sum of one scrape consistent
	counts []uint64   // per bucket, not cumulative; the last is +Inf's
	sum    float64
}

// Observe counts v in the first bucket whose upper bound it does not pass.
func (h *Histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.upper, v) // the first bound >= v; len(upper) for +Inf
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.mu.Unlock()
}

// samples are the histogram's lines under labels: "Each bucket count of a histogram
// named x is given as a separate sample line with the name x_bucket and a label
// {le="y"} (where y is the upper bound of the bucket)", cumulative and up to
// le="+Inf", then x_sum and x_count.
func (h *Histogram) samples(labels []string) []Sample {
	h.mu.Lock()
	counts, sum := slices.Clone(h.counts), h.sum
	h.mu.Unlock()
	out := make([]Sample, 0, len(counts)+2)
	var total uint64
	for i, n := range counts {
		total += n
		le := math.Inf(1)
		if i < len(h.upper) {
			le = h.upper[i]
		}
		out = append(out, Sample{Suffix: "_bucket", Labels: append(slices.Clip(labels), "le", formatFloat(le)), Value: float64(total)})
	}
	return append(out, Sample{Suffix: "_sum", Labels: labels, Value: sum}, Sample{Suffix: "_count", Labels: labels, Value: float64(total)})
}

// DefBuckets are Prometheus' default buckets, for durations of a network request
// in seconds.
var DefBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// vec is a family of series by label values, each made on first use.
type vec[T any] struct {
	name, help string
	typ        Type
	labels     []string // as the constructor had them: With takes values in this order
	sorted     []int    // the labels' indices sorted by name: the order they are written in
	make       func() *T
	samples    func(v *T, labels []string) []Sample

	mu     sync.Mutex
	series map[string]*series[T] // by the label values joined with 0xff
}

type series[T any] struct {
	values []string // in the order of the labels' names
	v      *T
}

func newVec[T any](name, help string, typ Type, labels []string, mk func() *T, samples func(*T, []string) []Sample) *vec[T] {
	checkNames(name, labels)
	// The Go client writes a sample's labels sorted by name; so does this package,
	// so that a series reads the same as before and across programs.
	sorted := make([]int, len(labels))
	for i := range sorted {
		sorted[i] = i
	}
	slices.SortFunc(sorted, func(a, b int) int { return strings.Compare(labels[a], labels[b]) })
	return &vec[T]{name: name, help: help, typ: typ, labels: slices.Clone(labels), sorted: sorted, make: mk, samples: samples, series: map[string]*series[T]{}}
}

// with is the series of values, one per label, made on first use.
func (v *vec[T]) with(values []string) *T {
	if len(values) != len(v.labels) {
		panic(fmt.Sprintf("prom: %s has labels %v: %d values given", v.name, v.labels, len(values)))
	}
	key := strings.Join(values, "\xff")
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.series[key]
	if s == nil {
		s = &series[T]{values: make([]string, len(values)), v: v.make()}
		for i, j := range v.sorted {
			s.values[i] = values[j]
		}
		v.series[key] = s
	}
	return s.v
}

func (v *vec[T]) Names() []string { return []string{v.name} }

// Collect reports the series sorted by their label values, for a stable output.
func (v *vec[T]) Collect(report func(Family)) {
	v.mu.Lock()
	all := make([]*series[T], 0, len(v.series))
	for _, s := range v.series {
		all = append(all, s)
	}
	v.mu.Unlock()
	slices.SortFunc(all, func(a, b *series[T]) int { return slices.Compare(a.values, b.values) })
	f := Family{Name: v.name, Help: v.help, Type: v.typ}
	for _, s := range all {
		labels := make([]string, 0, 2*len(v.labels))
		for i, j := range v.sorted {
			labels = append(labels, v.labels[j], s.values[i])
		}
		f.Samples = append(f.Samples, v.samples(s.v, labels)...)
	}
	report(f)
}

// CounterVec is a counter family with labels: one Counter per set of label values.
type CounterVec struct{ *vec[Counter] }

// NewCounterVec returns a counter family; with no labels, its one series is there
// (at 0) from the start.
func NewCounterVec(name, help string, labels ...string) *CounterVec {
	v := &CounterVec{newVec(name, help, CounterType, labels, func() *Counter { return new(Counter) },
		func(c *Counter, labels []string) []Sample { return []Sample{{Labels: labels, Value: c.Value()}} })}
	if len(labels) == 0 {
		v.With()
	}
	return v
}

// With is the counter of the label values, in the order of the family's labels.
func (v *CounterVec) With(values ...string) *Counter { return v.with(values) }

// HistogramVec is a histogram family with labels.
type HistogramVec struct{ *vec[Histogram] }

// NewHistogramVec returns a histogram family with buckets' upper bounds (+Inf is
// added); nil buckets: DefBuckets.
func NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if buckets == nil {
		buckets = DefBuckets
	}
	upper := slices.Clone(buckets)
	if !slices.IsSorted(upper) || slices.ContainsFunc(upper, func(f float64) bool { return math.IsInf(f, 0) || math.IsNaN(f) }) {
		panic(fmt.Sprintf("prom: %s: buckets %v are not ascending finite bounds", name, buckets))
	}
	upper = slices.Compact(upper)
	return &HistogramVec{newVec(name, help, HistogramType, labels,
		func() *Histogram { return &Histogram{upper: upper, counts: make([]uint64, len(upper)+1)} },
		(*Histogram).samples)}
}

// With is the histogram of the label values, in the order of the family's labels.
func (v *HistogramVec) With(values ...string) *Histogram { return v.with(values) }
