package search

// expand returns the other words of w's synonym group (stemmed when the index
// stems). Filled in by the synonym table.
func expand(w string, stemmed bool) []string { return nil }
