package api

import "strings"

// LogStreams counts the requests of GET /v1/servers/{name}/log under way: a follow
// stream stays one until its client leaves.
func LogStreams(s *Server) int {
	s.streamsMu.Lock()
	defer s.streamsMu.Unlock()
	n := 0
	for r := range s.streams {
		if strings.HasSuffix(r.URL.Path, "/log") {
			n++
		}
	}
	return n
}
