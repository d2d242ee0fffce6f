package search

import (
	"bytes"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/switchboard-mcp/switchboard/tool"
)

// Result is one tool found, with its score (higher is better; comparable only
// within one search).
type Result struct {
	Tool  tool.Tool
	Score float64
}

// The fields of a tool that search looks at, each weighted on its own (BM25F).
const (
	fieldName = iota
	fieldServer
	fieldDescription
	fieldParamName
	fieldParamDescription
	fieldDetail // the description after its first paragraph: usage notes, argument lists
	fieldPhrase // pairs of adjacent words of the name and the description's first paragraph
	numFields
)

type posting struct {
	doc int32
	w   float32 // saturated term frequency: tf/(k1+tf), tf already length-normalized
}

type term struct {
	idf  float32
	ctx  int32 // documents that have the term outside their name: a word, not an identifier
	id   int32 // its place in Index.byID
	post []posting
}

// Index is a ranked, read-only index of a tool catalog; Update derives the next
// one when the catalog changes. An Index is safe for concurrent use.
type Index struct {
	cfg   recipe
	tools []tool.Tool
	docs  []docTerms
	terms map[string]*term
	vocab []string // the terms, sorted, for prefix matching
	// For Update: the terms by id, and each document's terms' ids, in the
	// order of its docTerms, from refOff[i] to refOff[i+1].
	byID   []*term
	refs   []int32
	refOff []int32
}

// New indexes tools. The slice is copied; results are in terms of its elements.
func New(tools []tool.Tool) *Index { return newIndex(tools, defaultConfig) }

type termFreq struct {
	term string
	tf   [numFields]uint16 // saturating: a word said 65,535 times in a field is said enough
}

// docTerms is one tool analyzed: its terms with their counts per field, and its
// text for Regex. Update reuses it for a tool that has not changed.
type docTerms struct {
	terms []termFreq
	len   [numFields]float64
	text  string // name, server, description and parameters, for Regex
}

// Update is an index of tools that reuses this one's analysis of every tool that
// is unchanged (same name, server, title, description and schema), so a catalog
// change (a server reconnecting with one new tool) costs about the tools that
// changed plus the ranking statistics, not a whole rebuild. The receiver is not
// changed and stays usable.
func (ix *Index) Update(tools []tool.Tool) *Index { return build(tools, ix.cfg, ix) }

func newIndex(tools []tool.Tool, cfg recipe) *Index { return build(tools, cfg, nil) }

// build indexes tools, reusing prev's analysis of the tools it has unchanged
// (same name, server, title, description and schema) when prev is not nil.
func build(tools []tool.Tool, cfg recipe, prev *Index) *Index {
	ix := &Index{cfg: cfg, tools: slices.Clone(tools)}
	var old map[string]int
	if prev != nil {
		old = make(map[string]int, len(prev.tools))
		for i, t := range prev.tools {
			old[t.Name] = i
		}
	}
	// reuse is the index in prev of a tool's unchanged analysis, or -1.
	reuse := func(t tool.Tool) int {
		i, ok := old[t.Name]
		if !ok {
			return -1
		}
		o := prev.tools[i]
		if o.OriginalName == t.OriginalName && o.Server == t.Server && o.Title == t.Title &&
			o.Description == t.Description && bytes.Equal(o.InputSchema, t.InputSchema) {
			return i
		}
		return -1
	}
	nf := numFields
	if cfg.oneField {
		nf = 1
	}
	ix.docs = make([]docTerms, len(tools))
	docs := ix.docs
	// Tools are analyzed in parallel, in chunks handed out in turn, each worker
	// with its own analyzer; the rest of the build is sequential.
	const chunk = 256
	var next atomic.Int64
	fresh := make([][]*slot, len(docs)) // the slots of the tools analyzed here
	from := make([]int32, len(docs))    // or where in prev the others come from
	var mu sync.Mutex
	var analyzers []*analyzer
	work := func() {
		an := newAnalyzer(&ix.cfg)
		defer func() {
			mu.Lock()
			analyzers = append(analyzers, an)
			mu.Unlock()
		}()
		for {
			lo := int(next.Add(chunk)) - chunk
			if lo >= len(docs) {
				return
			}
			for i := lo; i < min(lo+chunk, len(docs)); i++ {
				if prev != nil {
					if j := reuse(ix.tools[i]); j >= 0 {
						docs[i], from[i] = prev.docs[j], int32(j)
						continue
					}
				}
				docs[i], fresh[i] = an.analyze(ix.tools[i])
				from[i] = -1
			}
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (len(docs)+chunk-1)/chunk) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	var total [numFields]float64
	for i := range docs {
		for f := range nf {
			total[f] += docs[i].len[f]
		}
	}
	var avg [numFields]float64
	for f := range nf {
		avg[f] = max(total[f]/float64(max(len(tools), 1)), 1)
	}
	// The index's terms: one map entry for each analyzer's term rather than a
	// look-up for each term of each tool; terms allocated in blocks.
	size := 0
	if prev != nil {
		size = len(prev.terms)
	}
	for _, an := range analyzers {
		size += len(an.terms) + len(an.pairs)
	}
	ix.terms = make(map[string]*term, size)
	var block []term
	intern := func(w string) *term { // the term of a word, added if new
		t := ix.terms[w]
		if t == nil {
			if len(block) == cap(block) {
				block = make([]term, 0, 4096)
			}
			block = append(block, term{id: int32(len(ix.byID))})
			t = &block[len(block)-1]
			ix.terms[w] = t
			ix.byID = append(ix.byID, t)
		}
		return t
	}
	for _, an := range analyzers {
		for _, sl := range an.terms {
			sl.global = intern(sl.term)
		}
		for _, sl := range an.pairs {
			sl.global = intern(sl.term)
		}
	}
	// Postings sized from document frequencies: appending would copy them over
	// and over. A reused tool's terms are found through prev's ids, each
	// looked up by its word once.
	nrefs := 0
	for i := range docs {
		nrefs += len(docs[i].terms)
	}
	ix.refs = make([]int32, 0, nrefs)
	ix.refOff = make([]int32, len(docs)+1)
	var remap []*term
	if prev != nil {
		remap = make([]*term, len(prev.byID))
	}
	for i := range docs {
		ix.refOff[i] = int32(len(ix.refs))
		for k, e := range docs[i].terms {
			var t *term
			if from[i] < 0 {
				t = fresh[i][k].global
			} else {
				id := prev.refs[prev.refOff[from[i]]+int32(k)]
				if t = remap[id]; t == nil {
					t = intern(e.term)
					remap[id] = t
				}
			}
			ix.refs = append(ix.refs, t.id)
			t.idf++
			if e.tf[fieldDescription] > 0 || e.tf[fieldParamName] > 0 || e.tf[fieldParamDescription] > 0 || e.tf[fieldDetail] > 0 {
				t.ctx++
			}
		}
	}
	ix.refOff[len(docs)] = int32(len(ix.refs))
	var extra [][]termFreq
	if cfg.split > 0 {
		extra = ix.splitNames(docs, intern)
	}
	npost := 0
	for _, t := range ix.terms {
		npost += int(t.idf)
	}
	arena := make([]posting, npost)
	for _, t := range ix.terms {
		n := int(t.idf)
		t.post, arena = arena[:0:n], arena[n:]
	}
	r := 0
	for i := range docs {
		d := &docs[i]
		terms := d.terms
		if extra != nil && extra[i] != nil {
			terms = slices.Concat(terms, extra[i])
		}
		for k, e := range terms {
			var t *term
			if k < len(d.terms) {
				t = ix.byID[ix.refs[r]]
				r++
			} else {
				t = ix.terms[e.term]
			}
			var x float64
			for f := range nf {
				if e.tf[f] == 0 {
					continue
				}
				wt := cfg.weight[f]
				if cfg.oneField {
					wt = 1
				}
				x += wt * float64(e.tf[f]) / (1 - cfg.b[f] + cfg.b[f]*d.len[f]/avg[f])
			}
			if x == 0 {
				continue
			}
			t.post = append(t.post, posting{doc: int32(i), w: float32(x / (cfg.k1 + x))})
		}
	}
	ix.vocab = make([]string, 0, len(ix.terms))
	for w := range ix.terms {
		if strings.IndexByte(w, ' ') >= 0 {
			continue // a phrase: prefix matching is for words
		}
		ix.vocab = append(ix.vocab, w)
	}
	slices.Sort(ix.vocab)
	n := float64(len(tools))
	for _, t := range ix.terms {
		df := float64(len(t.post))
		t.idf = float32(math.Log(1 + (n-df+0.5)/(df+0.5)))
	}
	return ix
}

// Len is the number of tools indexed.
func (ix *Index) Len() int { return len(ix.tools) }
