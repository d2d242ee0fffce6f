package search

import "strings"

// stem reduces an English word to a stem with the first steps of Porter's
// algorithm (plurals, -ed, -ing, -y) and the common derivational suffixes of
// steps 2 and 3, so "creates", "creating" and "creation" meet. Words that are not
// plain lower-case ASCII letters, or shorter than four letters, are kept whole:
// identifiers such as "ipv4" or "s3" must not be mangled.
func stem(w string) string { return stemLevel(w, 3) }

// stemLevel stems with the first level steps: 1 plurals only, 2 all of step 1
// (-ed, -ing, -y), 3 steps 2 and 3 too.
func stemLevel(w string, level int) string {
	if len(w) < 4 || level == 0 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	w = step1a(w)
	if level >= 2 {
		w = step1b(w)
		w = step1c(w)
	}
	if level >= 3 {
		w = step2(w)
		w = step3(w)
	}
	return w
}

func isConsonant(w string, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !isConsonant(w, i-1)
	}
	return true
}

// measure is Porter's m: the number of vowel-consonant sequences in w.
func measure(w string) int {
	m, i, n := 0, 0, len(w)
	for i < n && isConsonant(w, i) {
		i++
	}
	for i < n {
		for i < n && !isConsonant(w, i) {
			i++
		}
		if i >= n {
			break
		}
		for i < n && isConsonant(w, i) {
			i++
		}
		m++
	}
	return m
}

func hasVowel(w string) bool {
	for i := range len(w) {
		if !isConsonant(w, i) {
			return true
		}
	}
	return false
}

func doubleConsonant(w string) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && isConsonant(w, n-1)
}

// cvc: consonant-vowel-consonant at the end, the last not w, x or y ("hop").
func cvc(w string) bool {
	n := len(w)
	if n < 3 || !isConsonant(w, n-3) || isConsonant(w, n-2) || !isConsonant(w, n-1) {
		return false
	}
	c := w[n-1]
	return c != 'w' && c != 'x' && c != 'y'
}

func step1a(w string) string {
	switch {
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w // status, analysis: not plurals
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}

func step1b(w string) string {
	if strings.HasSuffix(w, "eed") {
		if measure(w[:len(w)-3]) > 0 {
			return w[:len(w)-1]
		}
		return w
	}
	var base string
	switch {
	case strings.HasSuffix(w, "ed") && hasVowel(w[:len(w)-2]):
		base = w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && hasVowel(w[:len(w)-3]):
		base = w[:len(w)-3]
	default:
		return w
	}
	switch {
	case strings.HasSuffix(base, "at"), strings.HasSuffix(base, "bl"), strings.HasSuffix(base, "iz"):
		return base + "e"
	case doubleConsonant(base):
		if c := base[len(base)-1]; c != 'l' && c != 's' && c != 'z' {
			return base[:len(base)-1]
		}
	case measure(base) == 1 && cvc(base):
		return base + "e"
	}
	return base
}

func step1c(w string) string {
	if strings.HasSuffix(w, "y") && hasVowel(w[:len(w)-1]) {
		return w[:len(w)-1] + "i"
	}
	return w
}

var step2Rules = [][2]string{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
	{"abli", "able"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"},
	{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"},
	{"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
}

var step3Rules = [][2]string{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"}, {"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

func applyRules(w string, rules [][2]string) string {
	for _, r := range rules {
		if strings.HasSuffix(w, r[0]) {
			base := w[:len(w)-len(r[0])]
			if measure(base) > 0 {
				return base + r[1]
			}
			return w
		}
	}
	return w
}

func step2(w string) string { return applyRules(w, step2Rules) }
func step3(w string) string { return applyRules(w, step3Rules) }
