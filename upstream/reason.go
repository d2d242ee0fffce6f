package upstream

import (
	"regexp"
	"strings"
)

// Why a server failed is, as a rule, in the last lines of its stderr, but not always
// in the last one: Node.js ends a crash with its version banner ("Node.js v20.20.2")
// after the error and its stack, npm with where its log went. failureLine picks the
// line that says what went wrong.
var (
	// errorLine is a line that starts with an error's type or a fatal word:
	// "Error: Cannot find module 'x'", "ModuleNotFoundError: No module named 'x'",
	// "Error [ERR_MODULE_NOT_FOUND]: ...", "java.io.IOException: ...", "panic: ...",
	// "fatal: ...".
	errorLine = regexp.MustCompile(`^(?:[\w.$]*(?:Error|Exception)|(?i:error|panic|fatal(?: error)?))(?:\s*\[[^\]]*\])?:\s*\S`)
	// troubleWord is a line that speaks of trouble somewhere in it.
	troubleWord = regexp.MustCompile(`(?i)\b(?:error|exception|fatal|panic(?:ked)?|failed|failure|cannot|can't|unable|denied|refused|not found|no such|invalid|missing)\b`)
	// noiseLine says nothing of the failure: a runtime's version banner, where a log
	// was written, punctuation ("^", "}") left of a printed object.
	noiseLine = regexp.MustCompile(`(?i)^(?:node\.js v\d|bun v\d|deno \d)|a complete log of this run can be found in|^[\W_]*$`)
)

// failureLine returns the line of a failed process's last stderr lines that best says
// why it failed: the last line that starts like an error, else the last that speaks
// of trouble, else the last that is neither indented (a stack frame, a quoted source
// line, a field of a printed object) nor noise, else the last line that is not blank.
// "" when there is none.
func failureLine(lines []string) string {
	var trouble, plain, last string
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], " \t\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if last == "" {
			last = strings.TrimSpace(l)
		}
		if l[0] == ' ' || l[0] == '\t' || noiseLine.MatchString(l) {
			continue
		}
		if errorLine.MatchString(l) {
			return l
		}
		if trouble == "" && troubleWord.MatchString(l) {
			trouble = l
		}
		if plain == "" {
			plain = l
		}
	}
	switch {
	case trouble != "":
		return trouble
	case plain != "":
		return plain
	}
	return last
}
