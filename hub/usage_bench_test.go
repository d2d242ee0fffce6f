//go:build unix

package hub_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/sqlite"
	"github.com/switchboard-mcp/switchboard/usage"
)

// BenchmarkCallUsage is what keeping usage (hub.Hub.SetUsage with a usage.Recorder
// over the SQLite store, as serve runs it) adds to a call: the same hub and server,
// batches of benchBatch echo calls with the recorder on and off in alternating
// order, sequential and with benchCallers callers. It reports the median ratio
// on/off of wall and CPU time per mode (target ≤ 1.05: a record is a buffered
// send; the store's batched writes run beside the calls) and the time per call of
// each; the rows written are checked at the end.
//
//	go test -run=NONE -bench=CallUsage -benchtime=2000x ./hub/
func BenchmarkCallUsage(b *testing.B) {
	h := benchStartHub(b, testserver.Stdio(b, "ts"))
	st, err := sqlite.Open(filepath.Join(b.TempDir(), "sessions.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	rec := usage.NewRecorder(st, &usage.Options{Buffer: 1 << 16})
	b.Cleanup(func() { rec.Close() })
	call := benchHubCall(h, "echo")
	timed := func(on bool, callers int) (time.Duration, time.Duration) {
		if on {
			h.SetUsage(rec)
			defer h.SetUsage(nil)
		}
		return benchTimedCPU(b, benchBatch, callers, call)
	}
	timed(true, 1) // warm-up, both ways
	timed(false, 1)
	type series struct{ ratio, cpuRatio, offNs, onNs []float64 }
	var seq, par series
	recorded := 0
	measure := func(s *series, round, callers int) {
		var off, on, offCPU, onCPU time.Duration
		if round%2 == 0 {
			off, offCPU = timed(false, callers)
			on, onCPU = timed(true, callers)
		} else {
			on, onCPU = timed(true, callers)
			off, offCPU = timed(false, callers)
		}
		recorded += benchBatch
		s.ratio = append(s.ratio, float64(on)/float64(off))
		if offCPU > 0 {
			s.cpuRatio = append(s.cpuRatio, float64(onCPU)/float64(offCPU))
		}
		s.offNs = append(s.offNs, float64(off.Nanoseconds())/benchBatch)
		s.onNs = append(s.onNs, float64(on.Nanoseconds())/benchBatch)
	}
	rounds := (b.N + benchBatch - 1) / benchBatch
	b.ResetTimer()
	for i := range rounds {
		measure(&seq, i, 1)
		measure(&par, i, benchCallers)
	}
	b.StopTimer()
	if err := rec.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	calls, _, err := st.Calls(context.Background(), session.CallQuery{Since: time.Now().Add(-time.Hour), Until: time.Now().Add(time.Minute)}, 0)
	if err != nil || len(calls) != recorded+benchBatch || rec.Dropped() != 0 {
		b.Fatalf("stored %d records (%v), want %d; %d dropped", len(calls), err, recorded+benchBatch, rec.Dropped())
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(testenv.Median(seq.ratio), "median-ratio-seq")
	b.ReportMetric(testenv.Median(par.ratio), "median-ratio-par16")
	b.ReportMetric(testenv.Median(seq.cpuRatio), "median-cpu-ratio-seq")
	b.ReportMetric(testenv.Median(par.cpuRatio), "median-cpu-ratio-par16")
	b.ReportMetric(testenv.Median(seq.offNs), "off-ns/call-seq")
	b.ReportMetric(testenv.Median(seq.onNs), "on-ns/call-seq")
	b.ReportMetric(testenv.Median(par.offNs), "off-ns/call-par16")
	b.ReportMetric(testenv.Median(par.onNs), "on-ns/call-par16")
}
