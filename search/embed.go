package search

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/tool"
)

// Defaults of EmbeddingsOptions' zero values.
const (
	DefaultEmbeddingsWeight   = 0.5              // the embeddings' share of a fused score; the lexical ranking has the rest
	DefaultEmbeddingsTimeout  = 10 * time.Second // bounds one search's requests
	DefaultEmbeddingsCooldown = 30 * time.Second // lexical only for this long after a failure
	DefaultEmbeddingsBatch    = 128              // texts per request
)

// Embedder turns texts into vectors, one per text in order, of any length
// (Embeddings scales them to unit length). llm/openai's Embedder asks any
// OpenAI-compatible /embeddings endpoint. An error must not carry a secret: it is
// logged. An Embedder that also has a String method is named by it in the log.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float64, error)
}

// EmbeddingsOptions configures an Embeddings; nil, and every zero field, is a useful
// default.
type EmbeddingsOptions struct {
	// Weight is the embeddings' share of the fused score, above 0 and at most 1 (1
	// ranks by embeddings alone); 0 means DefaultEmbeddingsWeight.
	Weight float64
	// Timeout bounds the requests of one search; 0 means DefaultEmbeddingsTimeout.
	Timeout time.Duration
	// Cooldown is how long searches rank by words alone after the endpoint failed,
	// so that a dead endpoint does not slow every search; 0 means
	// DefaultEmbeddingsCooldown.
	Cooldown time.Duration
	// Batch is how many texts one request embeds; 0 means DefaultEmbeddingsBatch.
	Batch int
	// Logger gets one warning when the endpoint fails (then nothing until it has
	// answered again) and one info record when it recovers; nil discards them (a
	// library stays quiet unless given a logger).
	Logger *slog.Logger
}

// Embeddings ranks tools by the meaning of a request as well as by its words: it
// embeds each tool's text once (cached by content, so a catalog change embeds only
// the tools that changed) and each query, through any OpenAI-compatible /embeddings
// endpoint, and fuses the cosine similarity with the lexical ranking of an [Index].
// It never fails a search: when the endpoint is down, slow or answers an error, the
// search answers with the lexical ranking alone and one warning is logged.
//
// # Fusion
//
// The score is a convex combination of the two normalized scores:
//
//	score = (1-w)·lexical/lexicalMax + w·(cos-cosMin)/(cosMax-cosMin)
//
// over the catalog, where lexical is the BM25F score of the query's top candidates
// (0 for a tool the words do not reach) and w is Weight. Reciprocal-rank fusion
// was the other choice; it keeps only the ranks, so a lexical list of weak,
// accidental matches would still get full credit for its first place, while here
// a lexical miss adds nothing and meaning decides, which is the case (a request in
// other words than the tool's) that embeddings are for. Bruch et al., "An Analysis
// of Fusion Functions for Hybrid Retrieval" (2023), found this combination better
// than RRF in and out of domain, with one parameter to tune. Cosines are stretched
// over the catalog's range because real models' similarities sit in a narrow band.
//
// An Embeddings is safe for concurrent use and may serve several indexes.
type Embeddings struct {
	embedder Embedder
	opts     EmbeddingsOptions
	name     string // the Embedder's, for the log

	fill sync.Mutex // one catalog fill at a time: the second search finds the first's vectors
	mu   sync.Mutex
	vecs map[[32]byte][]float32 // by the sha256 of the text embedded
	last *catalogVecs           // the last index searched
	down time.Time              // until then, lexical only
	warn bool                   // a failure was logged and the endpoint has not answered since
}

// NewEmbeddings returns an Embeddings that gets its vectors from e: of each tool's
// text once, and of each query. opts, nil for the defaults, tunes the fusion and the
// requests. It checks its arguments; it does not call e.
func NewEmbeddings(e Embedder, opts *EmbeddingsOptions) (*Embeddings, error) {
	if e == nil {
		return nil, errors.New("search: NewEmbeddings: the Embedder is nil: give one (llm/openai's NewEmbedder, say)")
	}
	var o EmbeddingsOptions
	if opts != nil {
		o = *opts
	}
	switch {
	case o.Weight == 0:
		o.Weight = DefaultEmbeddingsWeight
	case o.Weight < 0 || o.Weight > 1 || math.IsNaN(o.Weight):
		return nil, fmt.Errorf("search: embeddings weight %v: want above 0 and at most 1", o.Weight)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultEmbeddingsTimeout
	}
	if o.Cooldown <= 0 {
		o.Cooldown = DefaultEmbeddingsCooldown
	}
	if o.Batch <= 0 {
		o.Batch = DefaultEmbeddingsBatch
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	name := fmt.Sprintf("%T", e)
	if s, ok := e.(fmt.Stringer); ok {
		name = s.String()
	}
	return &Embeddings{embedder: e, opts: o, name: name, vecs: map[[32]byte][]float32{}}, nil
}

// ToolSearch is Index.ToolSearch ranked with the embeddings: the same checks of
// the arguments and the same errors, worded for the model.
func (e *Embeddings) ToolSearch(ctx context.Context, ix *Index, query string, limit int) ([]Result, error) {
	limit, err := checkLimit(limit, DefaultSearchLimit)
	if err != nil {
		return nil, err
	}
	if _, err := ix.ToolSearch(query, 1); err != nil {
		return nil, err
	}
	return e.Search(ctx, ix, query, limit), nil
}

// Search ranks ix's tools against query by the fused score (see Embeddings) and
// returns at most limit, best first, ties by name. When the endpoint fails it
// returns ix.Search(query, limit).
func (e *Embeddings) Search(ctx context.Context, ix *Index, query string, limit int) []Result {
	if limit <= 0 || ix.Len() == 0 {
		return nil
	}
	if e.cooling() {
		return ix.Search(query, limit)
	}
	tctx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	docs, q, err := e.vectors(tctx, ix, query)
	cancel()
	if err != nil {
		if ctx.Err() == nil { // the caller left: not the endpoint's fault
			e.failed(err)
		}
		return ix.Search(query, limit)
	}
	e.answered()
	return e.fuse(ix, ix.Search(query, max(4*limit, 50)), docs, q, limit)
}

// fuse ranks every tool by the convex combination of its normalized lexical score
// (from lexical, the query's best candidates) and normalized cosine.
func (e *Embeddings) fuse(ix *Index, lexical []Result, docs [][]float32, q []float32, limit int) []Result {
	tools := ix.tools
	cos := make([]float64, len(tools))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, d := range docs {
		cos[i] = dot(d, q)
		lo, hi = min(lo, cos[i]), max(hi, cos[i])
	}
	lex := make(map[string]float64, len(lexical))
	var lexMax float64
	for _, r := range lexical {
		lex[r.Tool.Name] = r.Score
		lexMax = max(lexMax, r.Score)
	}
	w := e.opts.Weight
	better := func(a, b Result) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Tool.Name, b.Tool.Name)
	}
	// A sorted window of the best limit: cheaper than sorting the whole catalog.
	best := make([]Result, 0, limit+1)
	for i, t := range tools {
		var s float64
		if hi > lo {
			s = w * (cos[i] - lo) / (hi - lo)
		}
		if lexMax > 0 {
			s += (1 - w) * lex[t.Name] / lexMax
		}
		if s <= 0 { // at the bottom of both rankings: no match at all
			continue
		}
		r := Result{Tool: t, Score: s}
		if len(best) == limit && better(r, best[limit-1]) >= 0 {
			continue
		}
		k, _ := slices.BinarySearchFunc(best, r, better)
		best = slices.Insert(best, k, r)
		if len(best) > limit {
			best = best[:limit]
		}
	}
	return best
}

// dot is the dot product of two vectors, in float32 with four sums (what
// ranking needs, and the bulk of a search's time over a large catalog).
func dot(a, b []float32) float64 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0 + s1 + s2 + s3)
}

// cooling reports whether searches are lexical only, after a failure.
func (e *Embeddings) cooling() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return time.Now().Before(e.down)
}

// failed logs the failure (once until the endpoint answers again) and rests the
// endpoint for the cooldown.
func (e *Embeddings) failed(err error) {
	e.mu.Lock()
	e.down = time.Now().Add(e.opts.Cooldown)
	first := !e.warn
	e.warn = true
	e.mu.Unlock()
	if first {
		e.opts.Logger.Warn("tool search: the embeddings endpoint failed; ranking by words alone",
			"embedder", e.name, "error", err.Error(), "retry_in", e.opts.Cooldown.String())
		return
	}
	e.opts.Logger.Debug("tool search: the embeddings endpoint failed again", "embedder", e.name, "error", err.Error())
}

func (e *Embeddings) answered() {
	e.mu.Lock()
	was := e.warn
	e.warn = false
	e.mu.Unlock()
	if was {
		e.opts.Logger.Info("tool search: the embeddings endpoint answers again", "embedder", e.name)
	}
}

// catalogVecs is what one index's search needs of the cache: the key of each tool's
// text, and once all are embedded, their vectors in catalog order.
type catalogVecs struct {
	ix   *Index
	keys [][32]byte
	docs [][]float32 // nil until every tool has its vector
}

// catalog is ix's catalogVecs: the last one when ix is the last index searched,
// else derived from it, hashing again only the tools that changed (making the text
// of 10,000 tools takes far longer than a search).
func (e *Embeddings) catalog(ix *Index) *catalogVecs {
	e.mu.Lock()
	last := e.last
	e.mu.Unlock()
	if last != nil && last.ix == ix {
		return last
	}
	c := &catalogVecs{ix: ix, keys: make([][32]byte, len(ix.tools))}
	prev := map[string]int{}
	if last != nil {
		for i, t := range last.ix.tools {
			prev[t.Name] = i
		}
	}
	for i, t := range ix.tools {
		if j, ok := prev[t.Name]; ok && sameTool(last.ix.tools[j], t) {
			c.keys[i] = last.keys[j]
			continue
		}
		c.keys[i] = sha256.Sum256([]byte(embeddingText(t)))
	}
	e.mu.Lock()
	e.last = c
	e.mu.Unlock()
	return c
}

// sameTool reports whether a and b read the same to the index and the embeddings.
func sameTool(a, b tool.Tool) bool {
	return a.Name == b.Name && a.OriginalName == b.OriginalName && a.Server == b.Server && a.Title == b.Title &&
		a.Description == b.Description && bytes.Equal(a.InputSchema, b.InputSchema)
}

// vectors returns the unit vectors of ix's tools (from the cache, embedding those
// it lacks) and of query.
func (e *Embeddings) vectors(ctx context.Context, ix *Index, query string) ([][]float32, []float32, error) {
	c := e.catalog(ix)
	e.mu.Lock()
	docs := c.docs
	e.mu.Unlock()
	if docs != nil {
		vs, err := e.embed(ctx, []string{query})
		if err != nil {
			return nil, nil, err
		}
		if len(vs[0]) != len(docs[0]) {
			return nil, nil, e.dimensionsChanged(len(docs[0]), len(vs[0]))
		}
		return docs, vs[0], nil
	}
	missing := e.missing(c.keys)
	if len(missing) > 0 {
		e.fill.Lock()
		defer e.fill.Unlock()
		missing = e.missing(c.keys) // what another search filled meanwhile
	}
	// The query rides with the last batch of tools.
	inputs := make([]string, 0, len(missing)+1)
	for _, i := range missing {
		inputs = append(inputs, embeddingText(ix.tools[i]))
	}
	inputs = append(inputs, query)
	var q []float32
	for start := 0; start < len(inputs); start += e.opts.Batch {
		end := min(start+e.opts.Batch, len(inputs))
		vs, err := e.embed(ctx, inputs[start:end])
		if err != nil {
			return nil, nil, err
		}
		e.mu.Lock()
		for j, v := range vs {
			if k := start + j; k < len(missing) {
				e.vecs[c.keys[missing[k]]] = v
			} else {
				q = v
			}
		}
		e.mu.Unlock()
	}
	docs = make([][]float32, len(c.keys))
	bad := -1
	e.mu.Lock()
	for i, k := range c.keys {
		if docs[i] = e.vecs[k]; len(docs[i]) != len(q) {
			bad = len(docs[i])
			break
		}
	}
	if bad < 0 {
		c.docs = docs
		e.prune(c.keys)
	}
	e.mu.Unlock()
	if bad >= 0 {
		return nil, nil, e.dimensionsChanged(bad, len(q))
	}
	return docs, q, nil
}

// dimensionsChanged empties the cache, whose vectors the endpoint's model no
// longer matches, and says so.
func (e *Embeddings) dimensionsChanged(was, now int) error {
	e.mu.Lock()
	clear(e.vecs)
	if e.last != nil {
		e.last.docs = nil
	}
	e.last = nil
	e.mu.Unlock()
	return fmt.Errorf("the endpoint answered vectors of %d dimensions, then %d: the model changed", was, now)
}

// missing lists the indexes of keys the cache lacks.
func (e *Embeddings) missing(keys [][32]byte) []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []int
	for i, k := range keys {
		if _, ok := e.vecs[k]; !ok {
			out = append(out, i)
		}
	}
	return out
}

// prune forgets vectors of tools gone from the catalog once they are as many as
// the catalog, so that a catalog that keeps changing does not grow the cache for
// ever while one that flips between two versions keeps both. e.mu is held.
func (e *Embeddings) prune(keys [][32]byte) {
	if len(e.vecs) <= 2*len(keys)+DefaultEmbeddingsBatch {
		return
	}
	keep := make(map[[32]byte]bool, len(keys))
	for _, k := range keys {
		keep[k] = true
	}
	for k := range e.vecs {
		if !keep[k] {
			delete(e.vecs, k)
		}
	}
}

// embed asks the Embedder for the unit vectors of inputs, in order.
func (e *Embeddings) embed(ctx context.Context, inputs []string) ([][]float32, error) {
	vs, err := e.embedder.Embed(ctx, inputs)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(inputs) {
		return nil, fmt.Errorf("the embedder gave %d vectors for %d texts", len(vs), len(inputs))
	}
	out := make([][]float32, len(vs))
	for i, v := range vs {
		if len(v) == 0 {
			return nil, fmt.Errorf("the embedder gave an empty vector (text %d)", i)
		}
		out[i] = unit(v)
	}
	return out, nil
}

// unit is v scaled to length 1 (zeros stay zeros), so that a dot product is the
// cosine.
func unit(v []float64) []float32 {
	var n float64
	for _, x := range v {
		n += x * x
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

// maxEmbeddingText bounds the text embedded per tool, well inside the 8,192
// tokens embedding models take.
const maxEmbeddingText = 4000

// embeddingText is what is embedded of a tool: its name, server, title,
// description and parameters, the fields the lexical index reads.
func embeddingText(t tool.Tool) string {
	name := t.OriginalName
	if name == "" {
		name = t.Name
	}
	var b strings.Builder
	b.WriteString(name)
	if t.Server != "" {
		b.WriteString(" (server " + t.Server + ")")
	}
	if t.Title != "" {
		b.WriteString(": " + t.Title)
	}
	if d := strings.Join(strings.Fields(t.Description), " "); d != "" {
		b.WriteString(": " + d)
	}
	if ps := params(t.InputSchema); len(ps) > 0 {
		b.WriteString("\nparameters:")
		for _, p := range ps {
			b.WriteString(" " + p.Name)
			if d := strings.Join(strings.Fields(p.Description), " "); d != "" {
				b.WriteString(" (" + d + ")")
			}
			b.WriteString(";")
		}
	}
	return cut(b.String(), maxEmbeddingText)
}
