package search

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/tool"
)

// devVariants are Seal-Tools dev as it is, its single-tool requests alone, and
// in two harder forms that stand in for catalogs unlike it: without parameters (the description alone, as in
// catalogs with bare schemas) and with names lower-cased and run together
// ("gethealthworkforce", as terse plugin names are), and with the parameters
// repeated in the description as a docstring's "Args:" (as Python servers'
// descriptions are); and both bare and joined ("dev-plugin", as plugin
// catalogs are).
func devVariants(dev dataSet) []dataSet {
	bare := make([]tool.Tool, len(dev.tools))
	joined := make([]tool.Tool, len(dev.tools))
	plugin := make([]tool.Tool, len(dev.tools))
	for i, t := range dev.tools {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
		bare[i] = t
		t.OriginalName = strings.ToLower(t.OriginalName)
		plugin[i] = t
		t = dev.tools[i]
		t.OriginalName = strings.ToLower(t.OriginalName)
		joined[i] = t
	}
	var single []request
	for _, r := range dev.requests {
		if len(r.gold) == 1 {
			single = append(single, r)
		}
	}
	long := make([]tool.Tool, len(dev.tools))
	for i, t := range dev.tools {
		var b strings.Builder
		b.WriteString(t.Description + "\n\nArgs:\n")
		for _, p := range params(t.InputSchema) {
			fmt.Fprintf(&b, "    %s: %s\n", p.Name, p.Description)
		}
		t.Description = b.String() + "\nReturns:\n    The result as JSON.\n"
		long[i] = t
	}
	return []dataSet{dev, {"dev-single", dev.tools, single}, {"dev-bare", bare, dev.requests},
		{"dev-bare-1", bare, single}, {"dev-joined", joined, dev.requests}, {"dev-doc", long, dev.requests},
		{"dev-plugin", plugin, dev.requests}, {"dev-plugin-1", plugin, single}}
}

// TestTuneDev prints Seal-Tools dev.jsonl figures for variations around
// defaultConfig, the only split parameters are chosen on:
//
//	SEARCH_TUNE=1 go test -run TuneDev -v ./search/
func TestTuneDev(t *testing.T) {
	if os.Getenv("SEARCH_TUNE") == "" {
		t.Skip()
	}
	sets := devVariants(dataSets(t)[0]) // seal-dev
	base := defaultConfig
	v := func(name string, f func(c *recipe)) {
		c := base
		f(&c)
		for _, ds := range sets {
			t.Logf("%-12s %-24s %v", ds.name, name, measureSet(newIndex(ds.tools, c), ds.requests))
		}
	}
	v("default", func(c *recipe) {})
	v("no word pairs", func(c *recipe) { c.phrase = false })
	for _, x := range []float64{.3, .5} {
		v(fmt.Sprintf("word pairs at %.1f", x), func(c *recipe) { c.weight[fieldPhrase] = x })
	}
	v("no name splitting", func(c *recipe) { c.split = 0 })
	v("prefix onto any word", func(c *recipe) { c.prefixCtx = false })
	v("later paragraphs at 1", func(c *recipe) { c.weight[fieldDetail] = 1 })
	v("no synonyms", func(c *recipe) { c.synonyms = 0 })
	v("diverse .5", func(c *recipe) { c.diverse = .5 })
	v("diverse .7", func(c *recipe) { c.diverse = .7 })
}
