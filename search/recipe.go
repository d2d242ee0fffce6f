package search

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
