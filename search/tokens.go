package search

import (
	"strings"
	"unicode"
)

// stopWords are left out of documents and queries: they match nearly every tool
// description and only add noise to the ranking.
var stopWords = wordSet(`a an the and or of to in on for with by from at as is are was were be been
	it its this that these those i me my we our you your he she they them their what which who whom how
	can could would should will shall may might do does did please want need like some any all about into
	there here then than so if not no yes also just given specific`)

// basicStopWords is the plain BM25 baseline's list: function words only.
var basicStopWords = wordSet(`a an the and or of to in on for with by from at as is are was were be been
	it its this that i me my you your what which how can do does`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// words splits s into lower-case words: on every character that is not a letter
// or digit, and inside identifiers at camelCase humps ("getHTTPStatus" gives get,
// http, status) and letter-digit boundaries ("ipv4" stays whole, "s3Bucket" gives
// s3, bucket). That covers snake_case, kebab-case, dotted and camelCase names alike.
func words(s string, emit func(string)) {
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			emit(strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush(i) // getWeather, s3Bucket: hump
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i) // HTTPStatus: the last capital starts the next word
			start = i
		}
	}
	flush(len(rs))
}
