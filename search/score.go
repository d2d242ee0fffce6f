package search

import (
	"slices"
	"strings"
)

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
