package search

import (
	"fmt"
	"os"
	"testing"
)

// TestTuneDev prints Seal-Tools dev.jsonl figures for variations around
// defaultConfig, the only split parameters are chosen on:
//
//	SEARCH_TUNE=1 go test -run TuneDev -v ./search/
func TestTuneDev(t *testing.T) {
	if os.Getenv("SEARCH_TUNE") == "" {
		t.Skip()
	}
	dev := dataSets(t)[0] // seal-dev
	base := defaultConfig
	v := func(name string, f func(c *config)) {
		c := base
		c.b = base.b
		c.weight = base.weight
		f(&c)
		t.Logf("%-30s %v", name, measureSet(newIndex(dev.tools, c), dev.requests))
	}
	v("default", func(c *config) {})
	base.stem, base.weight[fieldName] = 0, 2
	for _, st := range []int{0, 1} {
		for _, mp := range []int{3, 4, 5} {
			v(fmt.Sprintf("stem%d name x2 minPrefix %d", st, mp), func(c *config) { c.stem, c.minPrefix = st, mp })
		}
	}
}
