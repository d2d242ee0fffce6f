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
	for _, x := range []float64{0, .1, .5} {
		v(fmt.Sprintf("pdesc%v", x), func(c *config) { c.weight[fieldParamDescription] = x })
	}
	for _, x := range []float64{.5, 2} {
		v(fmt.Sprintf("pname%v", x), func(c *config) { c.weight[fieldParamName] = x })
		v(fmt.Sprintf("desc%v", x), func(c *config) { c.weight[fieldDescription] = x })
	}
	for _, x := range []float64{4, 6} {
		v(fmt.Sprintf("name%v", x), func(c *config) { c.weight[fieldName] = x })
	}
	for _, x := range []float64{.5, .9} {
		v(fmt.Sprintf("b=%v", x), func(c *config) { c.b = [numFields]float64{x, x, x, x, x} })
		v(fmt.Sprintf("bname=%v", x), func(c *config) { c.b[fieldName] = x })
	}
	for _, x := range []float64{.9, 1.6, 2.5} {
		v(fmt.Sprintf("k1=%v", x), func(c *config) { c.k1 = x })
	}
}
