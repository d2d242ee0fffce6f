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
	for _, x := range []float64{.2, .4, .6, .8} {
		v(fmt.Sprintf("diverse%v", x), func(c *config) { c.diverse = x })
	}
}
