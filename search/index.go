package search

import (
	"bytes"
	"encoding/json"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

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

// recipe is how the index tokenizes and weighs; defaultConfig is what New uses,
// plainBM25 the README's baseline recipe the quality test checks the harness with.
type recipe struct {
	k1        float64
	b         [numFields]float64
	weight    [numFields]float64
	stem      int     // stemLevel: 0 none, 1 plurals, 2 Porter's step 1, 3 steps 1-3
	synonyms  float64 // query weight of an expanded synonym; 0 turns expansion off
	oneField  bool    // every field is one document (plain BM25)
	stop      map[string]bool
	prefix    float64 // query weight of a catalog word sharing a long prefix with a query word; 0 turns it off
	diverse   float64 // 0 off; else what a query word already covered by a higher result still counts (MMR-like)
	minPrefix int     // the shortest shared prefix
	trim      int     // how many letters a query word may differ by at its end for prefix matching
	queryTF   bool    // a word said twice in the query counts twice
	prefixCtx bool    // prefix matching only onto words the catalog uses outside names
	phrase    bool    // adjacent words of names and descriptions are terms too ("weather forecast")
	split     int     // 0 off; else the shortest word a run-together name word is split into
}

var plainBM25 = recipe{
	k1:       1.2,
	b:        [numFields]float64{.75, .75, .75, .75, .75, .75, .75},
	weight:   [numFields]float64{1, 0, 1, 1, 1, 1, 0},
	oneField: true,
	stop:     basicStopWords,
	queryTF:  true,
}

// defaultConfig was chosen on Seal-Tools dev.jsonl only (TestTuneDev), R@5:
//
//   - plain BM25: .860
//
//   - fields weighed apart (BM25F): .890
//
//   - the name at 3, parameter names at .5 and their descriptions at .3 (every
//     tool of a domain repeats the same nouns there): .911
//
//   - plural stemming and synonyms at .3: .911 (kept for real catalogs' "fetch")
//
//   - query words matching catalog words that share all but their last four
//     letters (at least five) at .3: .914
//
//   - diversifying the top (a query word a higher result already matches counts
//     .6 in the next): .937, Comp@5 .764 -> .831
//
//   - then the name at 2: .940, Comp@5 .840
//
//   - a broader synonym table and stop words for how requests are put ("tell
//     me", "I'm looking for"): .941, Comp@5 .844
//
//   - pairs of adjacent words of the name and the description's first paragraph
//     as terms of their own at .4 ("city forecast"): .953, Comp@5 .876
//
// Dev also stands in, by TestTuneDev's variants, for catalogs unlike it (R@5):
//   - parameters left out: .867, .906 with word pairs
//   - names run together ("gethealthworkforce"): .926; .935 splitting them
//     into the catalog's words of 3 letters or more and prefix matching only
//     onto words used outside names; .951 with word pairs
//   - both: .840 before word pairs, .896 with them
//   - parameters repeated in the description as a docstring's "Args:": .924;
//     .942 weighing paragraphs after the first at .3, as parameter
//     descriptions; .956 with word pairs
//
// Without stemming dev measured .944 (before word pairs); plural stemming
// stays anyway, on the prior that real catalogs' short plurals ("repos",
// "files") need it: a difference of three requests in 700 is noise. Tried and
// dropped on dev: Porter's steps 2-3, counting repeated query words, other k1
// and b, a shorter shared prefix, pseudo-relevance feedback (RM3-like: no
// gain on any variant), BM25+'s floor, leaving out query words most tools
// have, other diversification strengths.
var defaultConfig = recipe{
	k1:        1.2,
	b:         [numFields]float64{.75, .75, .75, .75, .75, .75, .75},
	weight:    [numFields]float64{2, 1, 1, .5, .3, .3, .4},
	stem:      1,
	synonyms:  .3,
	prefix:    .3,
	trim:      4,
	minPrefix: 5,
	diverse:   .6,
	stop:      stopWords,
	split:     3,
	prefixCtx: true,
	phrase:    true,
}

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

// analyzer turns text into index terms. It remembers each word's term (nil for
// a stop word) so that a catalog's vocabulary is lower-cased and stemmed once,
// and in each term the document that counted it last and where, so a
// document's terms are gathered without a map of their own. An analyzer is
// used by one goroutine.
type analyzer struct {
	cfg     *recipe
	words   map[string]*slot
	terms   map[string]*slot
	buf     []byte
	scratch []termFreq
	slots   []*slot
	block   []slot          // see newSlot
	text    strings.Builder // see pair
	pairs   map[[2]*slot]*slot
	doc     int32 // a stamp per document analyzed, from 1
}

type slot struct {
	term   string
	doc    int32 // the stamp of the document that counted the term last
	k      int32 // the term's place in that document's list
	global *term // the index's term, once the analysis is done
}

func newAnalyzer(cfg *recipe) *analyzer {
	return &analyzer{cfg: cfg, words: map[string]*slot{}, terms: map[string]*slot{}}
}

func (a *analyzer) each(s string, emit func(*slot)) {
	a.buf = splitWords(s, a.buf, func(b []byte) {
		sl, ok := a.words[string(b)]
		if !ok {
			w := string(b)
			if !a.cfg.stop[w] {
				t := stemLevel(w, a.cfg.stem)
				if sl = a.terms[t]; sl == nil {
					sl = a.newSlot(t)
					a.terms[t] = sl
				}
			}
			a.words[w] = sl
		}
		if sl != nil {
			emit(sl)
		}
	})
}

// newSlot is a slot for term, allocated in blocks: an analyzer makes tens of
// thousands.
func (a *analyzer) newSlot(term string) *slot {
	if len(a.block) == cap(a.block) {
		a.block = make([]slot, 0, 1024)
	}
	a.block = append(a.block, slot{term: term})
	return &a.block[len(a.block)-1]
}

// pair is the slot of the phrase "a b".
func (a *analyzer) pair(x, y *slot) *slot {
	if a.pairs == nil {
		a.pairs = map[[2]*slot]*slot{}
	}
	sl := a.pairs[[2]*slot{x, y}]
	if sl == nil {
		// Pairs are many: their text goes to a shared buffer, whose written
		// bytes never change (a Builder only appends), not a string each.
		start := a.text.Len()
		a.text.WriteString(x.term)
		a.text.WriteByte(' ')
		a.text.WriteString(y.term)
		sl = a.newSlot(a.text.String()[start:])
		a.pairs[[2]*slot{x, y}] = sl
	}
	return sl
}

// analyze is one tool's analysis, and the slots of its terms.
func (a *analyzer) analyze(t tool.Tool) (docTerms, []*slot) {
	cfg := a.cfg
	a.doc++
	var d docTerms
	terms, slots := a.scratch[:0], a.slots[:0] // copied out at their final length
	field := 0
	count := func(sl *slot) {
		if sl.doc != a.doc {
			sl.doc, sl.k = a.doc, int32(len(terms))
			terms = append(terms, termFreq{term: sl.term})
			slots = append(slots, sl)
		}
		if terms[sl.k].tf[field] < math.MaxUint16 {
			terms[sl.k].tf[field]++
		}
		d.len[field]++
	}
	add := func(f int, s string) {
		if !cfg.oneField {
			field = f
		}
		if !cfg.phrase || (f != fieldName && f != fieldDescription) {
			a.each(s, count)
			return
		}
		var prev *slot
		a.each(s, func(sl *slot) {
			count(sl)
			if prev != nil {
				pf := field
				field = fieldPhrase
				count(a.pair(prev, sl))
				field = pf
			}
			prev = sl
		})
	}
	name := t.OriginalName
	if name == "" {
		name = t.Name
	}
	add(fieldName, name)
	if !cfg.oneField {
		add(fieldServer, t.Server)
	}
	add(fieldDescription, t.Title)
	lead, detail := t.Description, ""
	if i := paragraphEnd(lead); i >= 0 {
		lead, detail = lead[:i], lead[i:]
	}
	add(fieldDescription, lead)
	add(fieldDetail, detail)
	ps := params(t.InputSchema)
	// The text Regex matches: case-insensitively, so left as it is.
	n := len(t.Name) + len(name) + len(t.Server) + len(t.Title) + len(t.Description) + 4
	for _, p := range ps {
		add(fieldParamName, p.Name)
		add(fieldParamDescription, p.Description)
		n += len(p.Name) + len(p.Description) + 2
	}
	var text strings.Builder
	text.Grow(n)
	for i, s := range []string{t.Name, name, t.Server, t.Title, t.Description} {
		if i > 0 {
			text.WriteByte('\n')
		}
		text.WriteString(s)
	}
	for _, p := range ps {
		text.WriteByte('\n')
		text.WriteString(p.Name)
		text.WriteByte('\n')
		text.WriteString(p.Description)
	}
	d.text = text.String()
	d.terms = slices.Clone(terms)
	a.scratch, a.slots = terms, slots
	return d, slices.Clone(slots)
}

// param is one input schema property.
type param struct {
	Name        string
	Type        string
	Description string
	Required    bool
}

// params reads the top-level properties of a JSON Schema object, sorted by name
// with the required ones first. A schema that does not parse has none.
func params(schema json.RawMessage) []param {
	out, ok := paramsFast(schema)
	if !ok {
		return paramsJSON(schema)
	}
	sortParams(out)
	return out
}

// paramsJSON is params by encoding/json, for the schemas paramsFast leaves.
func paramsJSON(schema json.RawMessage) []param {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := make([]param, 0, len(s.Properties))
	for name, p := range s.Properties {
		typ := ""
		switch v := p.Type.(type) {
		case string:
			typ = v
		case []any:
			var parts []string
			for _, x := range v {
				if str, ok := x.(string); ok {
					parts = append(parts, str)
				}
			}
			typ = strings.Join(parts, "|")
		}
		out = append(out, param{Name: name, Type: typ, Description: p.Description, Required: slices.Contains(s.Required, name)})
	}
	sortParams(out)
	return out
}

func sortParams(ps []param) {
	slices.SortFunc(ps, func(a, b param) int {
		if a.Required != b.Required {
			if a.Required {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}

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

// paragraphEnd is where s's first paragraph ends (a blank line), or -1.
func paragraphEnd(s string) int {
	for i := strings.IndexByte(s, '\n'); i >= 0; {
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
			j++
		}
		if j < len(s) && s[j] == '\n' {
			if strings.TrimSpace(s[:i]) != "" {
				return i
			}
		}
		k := strings.IndexByte(s[j:], '\n')
		if k < 0 {
			return -1
		}
		i = j + k
	}
	return -1
}

// maxJoined bounds the name words splitNames tries, for its quadratic cost.
const maxJoined = 40

func isLowerASCII(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// splitNames splits the run-together words of names ("gethealthworkforce",
// "airquality") into the fewest words the catalog uses elsewhere, each at least
// cfg.split letters, and returns per document the pieces (and their pairs) to
// add to its name, counted into the terms' document frequencies. A word the
// catalog uses outside names stays whole. Done at every build over every
// document, reused or not, because it depends on the whole catalog's
// vocabulary.
func (ix *Index) splitNames(docs []docTerms, intern func(string) *term) [][]termFreq {
	var extra [][]termFreq
	cache := map[string][]string{}
	known := func(w string) bool {
		t := ix.terms[w]
		if t == nil {
			t = ix.terms[stemLevel(w, ix.cfg.stem)]
		}
		return t != nil && t.ctx > 0 || ix.cfg.stop[w]
	}
	var buf []byte
	for i := range docs {
		d := &docs[i]
		var add []termFreq
		name := ix.tools[i].OriginalName
		if name == "" {
			name = ix.tools[i].Name
		}
		buf = splitWords(name, buf, func(b []byte) {
			if len(b) < 2*ix.cfg.split || len(b) > maxJoined || !isLowerASCII(b) {
				return
			}
			if t := ix.terms[string(b)]; t != nil && t.ctx > 0 {
				return // a word of the catalog's, as most are: no string made
			}
			pieces, ok := cache[string(b)]
			if !ok {
				w := string(b)
				if !known(w) {
					pieces = segment(w, ix.cfg.split, known)
				}
				cache[w] = pieces
			}
			prev := ""
			for _, p := range pieces {
				if ix.cfg.stop[p] {
					continue
				}
				t := stemLevel(p, ix.cfg.stem)
				add = addTerm(d, add, t, fieldName, intern)
				if ix.cfg.phrase && prev != "" {
					add = addTerm(d, add, prev+" "+t, fieldPhrase, intern)
				}
				prev = t
			}
		})
		if add != nil {
			if extra == nil {
				extra = make([][]termFreq, len(docs))
			}
			extra[i] = add
		}
	}
	return extra
}

// addTerm adds t to add, counted once in field f, unless d or add has it.
func addTerm(d *docTerms, add []termFreq, t string, f int, intern func(string) *term) []termFreq {
	if slices.ContainsFunc(d.terms, func(e termFreq) bool { return e.term == t }) ||
		slices.ContainsFunc(add, func(e termFreq) bool { return e.term == t }) {
		return add
	}
	var tf termFreq
	tf.term = t
	tf.tf[f] = 1
	intern(t).idf++ // a document frequency until the idf is computed
	return append(add, tf)
}

// segment splits w into the fewest pieces of at least minLen letters that known
// accepts, or returns nil.
func segment(w string, minLen int, known func(string) bool) []string {
	n := len(w)
	best := make([]int, n+1) // fewest pieces for w[:i]; 0 unreachable
	from := make([]int, n+1)
	best[0] = 1
	for i := minLen; i <= n; i++ {
		for j := 0; j <= i-minLen; j++ {
			if best[j] == 0 || (best[i] != 0 && best[j]+1 >= best[i]) || !known(w[j:i]) {
				continue
			}
			best[i], from[i] = best[j]+1, j
		}
	}
	if best[n] <= 2 { // unreachable, or w itself
		return nil
	}
	var out []string
	for i := n; i > 0; i = from[i] {
		out = append(out, w[from[i]:i])
	}
	slices.Reverse(out)
	return out
}

// Len is the number of tools indexed.
func (ix *Index) Len() int { return len(ix.tools) }

// queryTerms are a query's distinct terms with their weights: 1 for the words
// the query says, less for the synonyms expansion adds.
func (ix *Index) queryTerms(query string) map[string]float64 {
	an := newAnalyzer(&ix.cfg)
	q := map[string]float64{}
	var prev *slot
	an.each(query, func(sl *slot) {
		if ix.cfg.queryTF {
			q[sl.term]++
		} else {
			q[sl.term] = 1
		}
		if ix.cfg.phrase && prev != nil {
			q[an.pair(prev, sl).term] = 1
		}
		prev = sl
	})
	said := keys(q)
	if ix.cfg.prefix > 0 {
		// "recommend" meets "recommendation", "nutrition" "nutritional": words
		// that share all but their last few letters, long enough to mean the same.
		const maxExpand = 16
		minPrefix := ix.cfg.minPrefix
		for _, w := range said {
			if len(w) < minPrefix+1 {
				continue
			}
			p := w[:max(minPrefix, len(w)-ix.cfg.trim)]
			i, _ := slices.BinarySearch(ix.vocab, p)
			for n := 0; i < len(ix.vocab) && n < maxExpand && strings.HasPrefix(ix.vocab[i], p); i = i + 1 {
				if ix.cfg.prefixCtx && ix.terms[ix.vocab[i]].ctx == 0 {
					continue
				}
				n++
				if _, ok := q[ix.vocab[i]]; !ok {
					q[ix.vocab[i]] = ix.cfg.prefix
				}
			}
		}
	}
	if ix.cfg.synonyms > 0 {
		for _, w := range said {
			for _, s := range expand(w, ix.cfg.stem) {
				if _, ok := q[s]; !ok {
					q[s] = ix.cfg.synonyms
				}
			}
		}
	}
	return q
}

func keys(q map[string]float64) []string {
	out := make([]string, 0, len(q))
	for w := range q {
		out = append(out, w)
	}
	return out
}

// Search ranks the tools against a natural-language query and returns at most
// limit of them, best first; ties are broken by name so the order is
// deterministic. Tools that share no term with the query are not returned.
func (ix *Index) Search(query string, limit int) []Result {
	if limit <= 0 || len(ix.tools) == 0 {
		return nil
	}
	q := ix.lookup(ix.queryTerms(query))
	scores, hit := ix.score(q)
	if ix.cfg.diverse > 0 && limit > 1 {
		return ix.diversify(q, ix.best(hit, scores, 4*limit), limit)
	}
	return ix.results(ix.best(hit, scores, limit), scores)
}

// queryTerm is a query's term found in the index, with its weight in the query.
type queryTerm struct {
	*term
	qw float64
}

// lookup is the terms of q the index has, in the order of their words: scores
// are sums of floats, and summing in one order keeps equal scores equal, so
// ties fall to names and the same catalog always answers the same way.
func (ix *Index) lookup(q map[string]float64) []queryTerm {
	ws := keys(q)
	slices.Sort(ws)
	out := make([]queryTerm, 0, len(ws))
	for _, w := range ws {
		if t := ix.terms[w]; t != nil && len(t.post) > 0 {
			out = append(out, queryTerm{t, q[w]})
		}
	}
	return out
}

func (ix *Index) score(q []queryTerm) ([]float32, []int32) {
	scores := make([]float32, len(ix.tools))
	hit := make([]int32, 0, 64)
	for _, t := range q {
		g := t.idf * float32(t.qw)
		for _, p := range t.post {
			if scores[p.doc] == 0 {
				hit = append(hit, p.doc)
			}
			scores[p.doc] += g * p.w
		}
	}
	return scores, hit
}

// diversify re-picks the best limit of cands greedily: a query word that a
// result already picked matches counts for less in the next, so a request that
// needs several tools gets one of each rather than five of the first kind.
func (ix *Index) diversify(q []queryTerm, cands []int32, limit int) []Result {
	contrib := make([][]float64, len(cands)) // by candidate, by query term
	for i := range contrib {
		contrib[i] = make([]float64, len(q))
	}
	for j, t := range q {
		for i, d := range cands {
			k, ok := slices.BinarySearchFunc(t.post, d, func(p posting, d int32) int { return int(p.doc - d) })
			if ok {
				contrib[i][j] = float64(t.idf) * t.qw * float64(t.post[k].w)
			}
		}
	}
	covered := make([]bool, len(q))
	used := make([]bool, len(cands))
	var out []Result
	for len(out) < limit && len(out) < len(cands) {
		best, bestScore := -1, -1.0
		for i := range cands {
			if used[i] {
				continue
			}
			var sc float64
			for j, x := range contrib[i] {
				if covered[j] {
					x *= ix.cfg.diverse
				}
				sc += x
			}
			if sc > bestScore || (sc == bestScore && ix.tools[cands[i]].Name < ix.tools[cands[best]].Name) {
				best, bestScore = i, sc
			}
		}
		used[best] = true
		for j, x := range contrib[best] {
			if x > 0 {
				covered[j] = true
			}
		}
		out = append(out, Result{Tool: ix.tools[cands[best]], Score: bestScore})
	}
	return out
}

// best is the limit documents of hit with the highest scores, best first, ties
// by name.
func (ix *Index) best(hit []int32, scores []float32, limit int) []int32 {
	better := func(a, b int32) int {
		if scores[a] != scores[b] {
			if scores[a] > scores[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(ix.tools[a].Name, ix.tools[b].Name)
	}
	// Keep a sorted window of the best limit: cheap for the small limits search uses.
	best := make([]int32, 0, limit+1)
	for _, d := range hit {
		if len(best) == limit && better(d, best[limit-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(best, d, better)
		best = slices.Insert(best, i, d)
		if len(best) > limit {
			best = best[:limit]
		}
	}
	return best
}

func (ix *Index) results(docs []int32, scores []float32) []Result {
	out := make([]Result, len(docs))
	for i, d := range docs {
		out[i] = Result{Tool: ix.tools[d], Score: float64(scores[d])}
	}
	return out
}

// paramsFast reads what params reads with a small scanner instead of
// encoding/json, which is a fifth of New's time over large catalogs. It gives
// up (ok false) on anything but the plain form (an object whose "properties"
// hold objects with string or string-list types and string descriptions, and
// whose "required" is a list of strings, strings without escapes), leaving
// params to encoding/json, so both read every schema alike.
func paramsFast(schema []byte) (out []param, ok bool) {
	s := scanner{b: schema}
	var props []param
	var required [][]byte
	seenProps := false
	var p *param
	var types [][]byte
	typeElem := func() bool {
		v, ok := s.str()
		types = append(types, v)
		return ok
	}
	propMember := func(k []byte) bool {
		switch string(k) {
		case "type":
			if v, ok := s.str(); ok {
				p.Type = typeName(v)
				return true
			}
			types = types[:0]
			if !s.array(typeElem) {
				return false
			}
			parts := make([]string, len(types))
			for i, t := range types {
				parts[i] = typeName(t)
			}
			p.Type = strings.Join(parts, "|")
			return true
		case "description":
			if s.null() {
				return true
			}
			v, ok := s.str()
			p.Description = string(v)
			return ok
		}
		if bytes.EqualFold(k, []byte("type")) || bytes.EqualFold(k, []byte("description")) {
			return false
		}
		return s.skip()
	}
	property := func(name []byte) bool {
		props = append(props, param{Name: string(name)})
		p = &props[len(props)-1]
		if !s.object(propMember) {
			return false
		}
		// A repeated name: the last wins, as in a map.
		if i := slices.IndexFunc(props[:len(props)-1], func(q param) bool { return q.Name == p.Name }); i >= 0 {
			props[i] = *p
			props = props[:len(props)-1]
		}
		return true
	}
	requiredElem := func() bool {
		v, ok := s.str()
		required = append(required, v)
		return ok
	}
	ok = s.object(func(key []byte) bool {
		switch string(key) {
		case "properties":
			if seenProps { // encoding/json merges or clears: leave it to it
				return false
			}
			seenProps = true
			if s.null() {
				return true
			}
			return s.object(property)
		case "required":
			if s.null() {
				required = nil
				return true
			}
			required = required[:0]
			return s.array(requiredElem)
		}
		if bytes.EqualFold(key, []byte("properties")) || bytes.EqualFold(key, []byte("required")) {
			return false
		}
		return s.skip()
	})
	s.space()
	if !ok || s.i != len(s.b) {
		return nil, false
	}
	for i := range props {
		props[i].Required = slices.ContainsFunc(required, func(r []byte) bool { return string(r) == props[i].Name })
	}
	return props, true
}

// typeName is string(b), without an allocation for JSON Schema's own types.
func typeName(b []byte) string {
	for _, t := range []string{"string", "integer", "number", "boolean", "object", "array", "null"} {
		if string(b) == t {
			return t
		}
	}
	return string(b)
}

// scanner reads the JSON in b from i on; every method skips leading space and
// reports false on what it does not handle.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\n' || s.b[s.i] == '\t' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) peek() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// null consumes a null.
func (s *scanner) null() bool {
	if s.peek() == 'n' && len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// str reads a string without escapes, valid UTF-8 and no control characters,
// and returns its bytes in b; on anything else it consumes nothing and reports
// false.
func (s *scanner) str() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			v := s.b[s.i+1 : j]
			if !utf8.Valid(v) {
				return nil, false
			}
			s.i = j + 1
			return v, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// object reads an object, calling member after each key and its colon to read
// the value.
func (s *scanner) object(member func(key []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		k, ok := s.str()
		if !ok || s.peek() != ':' {
			return false
		}
		s.i++
		if !member(k) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling elem to read each element.
func (s *scanner) array(elem func() bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// skip reads any value.
func (s *scanner) skip() bool {
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte) bool { return s.skip() })
	case c == '[':
		return s.array(s.skip)
	case c == '"':
		_, ok := s.str()
		return ok
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				return true
			}
		}
		return false
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return false
}

// number reads a number as JSON writes them.
func (s *scanner) number() bool {
	b, i := s.b, s.i
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if !digits() {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	s.i = i
	return true
}
