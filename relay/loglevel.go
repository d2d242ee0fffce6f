package relay

//lint:file-ignore SA1019 logging is deprecated in the 2026-07-28 protocol but lives in the versions clients use today; a proxy forwards it.

import "github.com/modelcontextprotocol/go-sdk/mcp"

// MostVerbose is the most verbose of levels, ignoring "" and names that are not
// levels ("" if none is). Servers are asked for the most verbose level any of
// their clients' clients wants; each of those still gets only its own level's.
func MostVerbose(levels ...mcp.LoggingLevel) mcp.LoggingLevel {
	var out mcp.LoggingLevel
	for _, l := range levels {
		if r, ok := levelRank[l]; ok && (out == "" || r < levelRank[out]) {
			out = l
		}
	}
	return out
}

// levelRank orders log levels from most to least verbose: the spec's levels "follow
// the standard syslog severity levels specified in RFC 5424".
var levelRank = map[mcp.LoggingLevel]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7,
}
