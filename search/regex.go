package search

import (
	"regexp"
)

// Regex returns at most limit tools whose name, server, description, parameter
// names or parameter descriptions match pattern, case-insensitively. Tools whose
// name matches come first, then by name. A pattern that does not compile is an
// error (see [Index.ToolSearchRegex] for the checked, model-facing form).
func (ix *Index) Regex(pattern string, limit int) ([]Result, error) {
	// Compiled bare first so an error quotes the model's pattern, not ours.
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, err
	}
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	scores := make([]float32, len(ix.tools))
	var hit []int32
	for i, t := range ix.tools {
		switch {
		case re.MatchString(t.Name) || re.MatchString(t.OriginalName):
			scores[i] = 2
		case re.MatchString(ix.docs[i].text):
			scores[i] = 1
		default:
			continue
		}
		hit = append(hit, int32(i))
	}
	return ix.results(ix.best(hit, scores, limit), scores), nil
}
