package search

import "testing"

// BenchmarkQuality reports the ranking's quality per data set:
//
//	go test -run=NONE -bench=Quality ./search/
//
// Seal-Tools dev is the split methods and parameters were chosen on; the two
// Seal-Tools test splits and ToolE are reported, never tuned on. The plain BM25
// baseline of the README is reported beside ours as "plain".
func BenchmarkQuality(b *testing.B) {
	for _, ds := range dataSets(b) {
		for _, v := range []struct {
			name string
			cfg  recipe
		}{{"plain", plainBM25}, {"tuned", defaultConfig}} {
			b.Run(ds.name+"/"+v.name, func(b *testing.B) {
				ix := newIndex(ds.tools, v.cfg)
				var m metrics
				for b.Loop() {
					m = measureSet(ix, ds.requests)
				}
				b.ReportMetric(m.R1, "R@1")
				b.ReportMetric(m.R3, "R@3")
				b.ReportMetric(m.R5, "R@5")
				b.ReportMetric(m.R10, "R@10")
				b.ReportMetric(m.Comp5, "Comp@5")
			})
		}
	}
}
