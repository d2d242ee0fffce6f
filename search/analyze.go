package search

import (
	"math"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/tool"
)

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
