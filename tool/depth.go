package tool

import "fmt"

// DefaultMaxArgumentDepth bounds how deep a tool call's arguments may nest objects and
// arrays (the config's "maxArgumentDepth" when unset) before the hub refuses the call
// instead of sending it: the MCP Go SDK's decoder stops at 1,000 levels and ends the
// session with it. Switchboard's own; real tools nest a handful of levels.
const DefaultMaxArgumentDepth = 64

// DepthError is a tool call's arguments nested deeper than the bound: refused before
// they reach a server. A stdio server built on the MCP Go SDK ends its session on a
// message that nests past 1,000 levels (its decoder's limit), and every call under way
// on that connection is lost with it; no real tool needs a tenth of that.
type DepthError struct {
	Max int // the bound the arguments went past
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("arguments nested deeper than %d levels (the %q setting): not sent; flatten them, or raise the setting",
		e.Max, "switchboard.maxArgumentDepth")
}

// CheckDepth returns a *DepthError when the JSON value args nests objects and arrays
// more than max levels deep (an arguments object is level 1, an array in it level 2);
// max < 1 means [DefaultMaxArgumentDepth]. It is one pass over the bytes that
// skips the contents of strings, far cheaper than decoding, and it does not validate
// the JSON: a malformed value is the server's to refuse.
func CheckDepth(args []byte, max int) error {
	if max < 1 {
		max = DefaultMaxArgumentDepth
	}
	depth, inString, escaped := 0, false, false
	for _, b := range args {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > max {
				return &DepthError{Max: max}
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}
