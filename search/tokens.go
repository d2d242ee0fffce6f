package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopWords are left out of documents and queries: they match nearly every tool
// description, or say how a request is put ("tell me", "I'm looking for"), and
// only add noise to the ranking.
var stopWords = wordSet(`a an the and or of to in on for with by from at as is are was were be been
	it its this that these those i me my we our you your he she they them their what which who whom how
	can could would should will shall may might do does did please want need like some any all about into
	there here then than so if not no yes also just given specific
	tell let know looking something anything much many more most very really give provide`)

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
// http, status; "s3Bucket" gives s3, bucket) but not between letters and digits
// ("ipv4" stays whole). That covers snake_case, kebab-case, dotted and camelCase
// names alike. emit gets a buffer it must not keep.
func words(s string, emit func([]byte)) { splitWords(s, nil, emit) }

// splitWords is words lower-casing into buf, which it returns grown for the next
// call.
func splitWords(s string, buf []byte, emit func([]byte)) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return splitWordsUnicode(s, buf, emit)
		}
	}
	// ASCII, the common case, byte by byte with the rules of splitWordsUnicode.
	const (
		other = iota
		lower
		upper
		digit
	)
	class := func(c byte) int {
		switch {
		case 'a' <= c && c <= 'z':
			return lower
		case 'A' <= c && c <= 'Z':
			return upper
		case '0' <= c && c <= '9':
			return digit
		}
		return other
	}
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			buf = buf[:0]
			for _, c := range []byte(s[start:end]) {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf = append(buf, c)
			}
			emit(buf)
		}
		start = -1
	}
	prev := other
	for i := 0; i < len(s); i++ {
		c := class(s[i])
		switch {
		case c == other:
			flush(i)
		case start < 0:
			start = i
		case c == upper && (prev == lower || prev == digit):
			flush(i) // getWeather, s3Bucket: hump
			start = i
		case c == upper && prev == upper && i+1 < len(s) && class(s[i+1]) == lower:
			flush(i) // HTTPStatus: the last capital starts the next word.
			start = i
		}
		prev = c
	}
	flush(len(s))
	return buf
}

func splitWordsUnicode(s string, buf []byte, emit func([]byte)) []byte {
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			buf = buf[:0]
			for _, r := range s[start:end] {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			}
			emit(buf)
		}
		start = -1
	}
	var prev rune
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			prev = r
			continue
		}
		if start < 0 {
			start = i
			prev = r
			continue
		}
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush(i) // getWeather, s3Bucket: hump
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(prev):
			// HTTPStatus: the last capital starts the next word.
			if next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):]); unicode.IsLower(next) {
				flush(i)
				start = i
			}
		}
		prev = r
	}
	flush(len(s))
	return buf
}
