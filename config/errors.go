package config

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// Error is one problem in a config, with its place: the source, the line and column of
// the offending value when known (1-based, in bytes), and its path such as
// "mcpServers.github.env.TOKEN". Messages never contain env values, header values or
// anything produced by ${VAR} expansion.
type Error struct {
	Source string
	Line   int
	Col    int
	Path   string
	Msg    string

	err error // underlying cause (e.g. fs.ErrNotExist), for errors.Is
}

// Error formats the error as "source:line:col: path: msg", leaving out empty parts.
func (e *Error) Error() string {
	loc := e.Source
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
		if e.Col > 0 {
			loc += ":" + strconv.Itoa(e.Col)
		}
		loc = strings.TrimPrefix(loc, ":")
	}
	parts := make([]string, 0, 3)
	for _, s := range []string{loc, e.Path, e.Msg} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ": ")
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.err }

// Errors is every problem found in one config. Parse and Load report all of them at
// once so a user can fix a file in one go.
type Errors []*Error

// Error joins the messages, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.Is and errors.As look at each error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

var hujsonErrRE = regexp.MustCompile(`(?s)^hujson: line (\d+), column (\d+): (.*)$`)

// syntaxError turns hujson's "hujson: line L, column C: MSG" into an *Error whose text
// follows encoding/json's wording, which users and search engines know better.
func (p *parser) syntaxError(err error) *Error {
	m := hujsonErrRE.FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{Source: p.source, Msg: err.Error(), err: err}
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	msg := m[3]
	off := p.offset(line, col)

	if strings.HasPrefix(msg, "invalid literal: ") {
		// hujson only says the literal is bad; encoding/json says why and where, so
		// let it scan from the literal's start. The first problem it finds is in or
		// right after that literal, before any JSONC-only syntax.
		var raw json.RawMessage
		var se *json.SyntaxError
		if e := json.Unmarshal(p.data[off:], &raw); errors.As(e, &se) {
			// Without the surrounding context "top-level" would be wrong.
			msg = strings.Replace(se.Error(), " after top-level value", " after value", 1)
			if se.Offset > 0 && !strings.HasPrefix(msg, "unexpected end") {
				off += int(se.Offset) - 1
			} else {
				off += int(se.Offset)
			}
			line, col = p.pos(off)
		} else {
			msg = "invalid literal"
		}
	} else {
		msg = jsonWording(msg)
	}
	if p.noPos {
		line, col = 0, 0
	}
	return &Error{Source: p.source, Line: line, Col: col, Msg: msg, err: err}
}

// jsonWording maps hujson's phrasing onto encoding/json's.
func jsonWording(msg string) string {
	switch {
	case strings.HasPrefix(msg, "parsing comment:"):
		return "unterminated comment"
	case strings.HasSuffix(msg, "unexpected EOF"):
		return "unexpected end of JSON input"
	}
	for _, r := range [...][2]string{
		{" at start of value", " looking for beginning of value"},
		{" at start of object name", " looking for beginning of object key string"},
		{" after object name", " after object key"},
		{" after object value (expecting ',' or '}')", " after object key:value pair"},
		{" after array value (expecting ',' or ']')", " after array element"},
	} {
		if s, ok := strings.CutSuffix(msg, r[0]); ok {
			return s + r[1]
		}
	}
	return msg
}
