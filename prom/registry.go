package prom

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Type is a metric family's type, as its # TYPE line names it.
type Type string

// The types of the text format that this package writes.
const (
	CounterType   Type = "counter"
	GaugeType     Type = "gauge"
	HistogramType Type = "histogram"
	SummaryType   Type = "summary"
)

// Family is one metric family as a Collector reports it at scrape time: its name,
// help and type, and its samples.
type Family struct {
	Name    string
	Help    string
	Type    Type
	Samples []Sample
}

// Sample is one line of a family: its value under the family's name plus Suffix
// ("_bucket", "_sum" and "_count" for a histogram's lines, "" for the others) and
// Labels, given as name, value pairs.
type Sample struct {
	Suffix string
	Labels []string
	Value  float64
}

// Collector is what a Registry holds: a set of metric families it reports at
// scrape time. A counter or histogram of this package is one; so is a type of the
// program's own that reads a value when scraped.
type Collector interface {
	// Names are the names of the families Collect reports; a Registry takes no
	// second collector with one of them.
	Names() []string
	// Collect reports the families, each at most once.
	Collect(report func(Family))
}

// Registry is a set of collectors, served in Prometheus' text format. Its zero
// value is empty and ready to use.
type Registry struct {
	mu         sync.Mutex
	collectors []Collector
	names      map[string]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

// Register adds cs, all or none: it fails when a name of theirs is in the registry
// already (or twice among them).
func (r *Registry) Register(cs ...Collector) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, c := range cs {
		for _, n := range c.Names() {
			if r.names[n] || seen[n] {
				return fmt.Errorf("prom: %s is registered already", n)
			}
			seen[n] = true
		}
	}
	if r.names == nil {
		r.names = map[string]bool{}
	}
	for n := range seen {
		r.names[n] = true
	}
	r.collectors = append(r.collectors, cs...)
	return nil
}

// MustRegister is Register that panics on an error: for a program's start.
func (r *Registry) MustRegister(cs ...Collector) {
	if err := r.Register(cs...); err != nil {
		panic(err)
	}
}

// Unregister removes c (found by ==: a pointer or a comparable value), and tells
// whether it was there.
func (r *Registry) Unregister(c Collector) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.IndexFunc(r.collectors, func(x Collector) bool { return x == c })
	if i < 0 {
		return false
	}
	r.collectors = slices.Delete(r.collectors, i, i+1)
	for _, n := range c.Names() {
		delete(r.names, n)
	}
	return true
}

// ContentType is the media type of what WriteText writes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// WriteText writes every family of the registry in the text exposition format,
// sorted by name.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	cs := slices.Clone(r.collectors)
	r.mu.Unlock()
	var fams []Family
	for _, c := range cs {
		c.Collect(func(f Family) { fams = append(fams, f) })
	}
	slices.SortStableFunc(fams, func(a, b Family) int { return strings.Compare(a.Name, b.Name) })
	bw := bufio.NewWriter(w)
	for _, f := range fams {
		writeFamily(bw, f)
	}
	return bw.Flush()
}

// ServeHTTP answers a scrape with the text format. A write error is the scraper
// leaving: there is no one left to tell.
func (r *Registry) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", ContentType)
	_ = r.WriteText(w)
}

// writeFamily writes one family as the text format describes it
// (https://prometheus.io/docs/instrumenting/exposition_formats/):
//
//	# HELP metric_name help text
//	# TYPE metric_name type
//	metric_name{label="value",...} value
//
// "HELP lines may contain any sequence of UTF-8 characters (after the metric
// name), but the backslash and the line feed characters have to be escaped as \\
// and \n, respectively." A family with no samples is left out: the format needs
// none, and a scraper learns nothing from it.
func writeFamily(w *bufio.Writer, f Family) {
	if len(f.Samples) == 0 {
		return
	}
	w.WriteString("# HELP " + f.Name + " " + helpEscaper.Replace(f.Help) + "\n")
	w.WriteString("# TYPE " + f.Name + " " + string(f.Type) + "\n")
	for _, s := range f.Samples {
		w.WriteString(f.Name + s.Suffix)
		if len(s.Labels) > 0 {
			w.WriteByte('{')
			for i := 0; i+1 < len(s.Labels); i += 2 {
				if i > 0 {
					w.WriteByte(',')
				}
				// "label_value can be any sequence of UTF-8 characters, but the
				// backslash (\), double-quote ("), and line feed (\n) characters have
				// to be escaped as \\, \", and \n, respectively."
				w.WriteString(s.Labels[i] + `="` + labelEscaper.Replace(s.Labels[i+1]) + `"`)
			}
			w.WriteByte('}')
		}
		w.WriteString(" " + formatFloat(s.Value) + "\n")
	}
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// formatFloat writes a value as Go's ParseFloat reads it, "with the exception that
// +Inf, -Inf, and NaN are the valid representations of the special values".
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// checkNames panics on a metric or label name that the text format does not allow:
// names are the program's constants, so a bad one is a bug to find at start.
func checkNames(name string, labels []string) {
	if !metricName.MatchString(name) {
		panic(fmt.Sprintf("prom: %q is not a valid metric name", name))
	}
	for _, l := range labels {
		if !labelName.MatchString(l) || strings.HasPrefix(l, "__") || l == "le" || l == "quantile" {
			panic(fmt.Sprintf("prom: %q is not a valid label name for %s", l, name))
		}
	}
}
