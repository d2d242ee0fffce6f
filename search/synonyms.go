package search

import "strings"

// synonymGroups are general software words that tool descriptions and requests
// use interchangeably, and the abbreviations terse tool names use ("repo",
// "msg"). They are chosen from common API vocabulary, not from any benchmark's
// queries; a query word pulls in the rest of its group at a lower weight.
var synonymGroups = []string{
	// Verbs of APIs.
	"get fetch retrieve obtain read",
	"find search locate lookup query",
	"list enumerate show display browse",
	"create add new make insert generate",
	"delete remove erase destroy purge",
	"update modify edit change alter",
	"send post publish submit",
	"calculate compute estimate",
	"convert transform",
	"analyze analyse evaluate assess examine inspect",
	"check verify validate",
	"run execute launch invoke trigger",
	"stop halt terminate cancel kill",
	"schedule book reserve",
	"recommend suggest",
	"monitor track watch",
	"describe explain",
	"download export",
	"upload import",
	// Nouns of APIs and their abbreviations.
	"user account profile",
	"image picture photo img pic",
	"file document doc",
	"message msg",
	"information info details",
	"repository repo",
	"database db",
	"configuration config settings cfg conf",
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
	"organization org",
	"administrator admin",
	"specification spec",
	"reference ref",
	"request req",
	"response resp",
	"transaction txn",
	"address addr",
	"attribute attr",
	"library lib",
	"package pkg",
	"function func",
	"command cmd",
	"source src",
	"destination dest dst",
	"utility util",
	"metadata meta",
	"quantity qty",
	"amount amt",
	"password pwd",
	"management mgmt",
	"certificate cert",
	"expression expr",
	"kubernetes k8s",
	"javascript js",
	"issue ticket",
	"error exception",
	"notification alert",
	"event appointment meeting",
	"chart graph plot diagram",
	"spreadsheet sheet",
	"link url uri",
	"website site",
	"location place",
	"phone telephone",
	"audio sound",
	"price cost fee",
	"buy purchase",
	// Everyday words of consumer APIs.
	"movie film",
	"song music",
	"car vehicle automobile",
	"trip travel journey",
	"hotel lodging accommodation",
	"job career employment",
	"food meal dish cuisine",
	"doctor physician",
	"medicine medication drug",
	"currency money",
	"city town",
	"cheap affordable inexpensive",
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
