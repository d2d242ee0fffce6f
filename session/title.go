package session

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A session's title is what a list of sessions shows of it: its metadata's "title"
// when it has one (a client that named it), else the text of its first user message.
// Either is cut to TitleMax characters, its white space (and control characters) made
// single spaces.

// TitleMax is how many characters a Summary's Title keeps at most ("…" included).
const TitleMax = 120

// TitleHead is how many characters of the first user message's row a database store
// reads for the title (SQL substr/left): enough for TitleMax characters written as
// JSON escapes, whatever the message's length.
const TitleHead = 1024

// UserRowPrefix begins the JSON row of every user message (EncodeMessages writes the
// role first): the stores find the first user message with it (SQL LIKE prefix
// pattern "UserRowPrefix%"), never parsing every row's JSON.
const UserRowPrefix = `{"role":"user"`

// userTextPrefix begins the row of a user message with text.
const userTextPrefix = UserRowPrefix + `,"text":"`

// Title is a session's title from its metadata and the beginning of the row of its
// first user message (head, nil when it has none; the row may be cut anywhere).
func Title(metadata map[string]string, head []byte) string {
	if t := tidy(metadata["title"]); t != "" {
		return t
	}
	return tidy(userText(head))
}

// tidy makes s's runs of white space and control characters (NUL, which PostgreSQL's
// text refuses, among them) single spaces and cuts it to TitleMax characters.
func tidy(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if utf8.RuneCountInString(s) <= TitleMax {
		return s
	}
	n := 0
	for i := range s {
		if n == TitleMax-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// userText is the text of a user message's row, read from the beginning of the row:
// the row may be cut anywhere, in an escape or (in bytes) in a character. "" for a
// row of another shape.
func userText(row []byte) string {
	if !bytes.HasPrefix(row, []byte(userTextPrefix)) {
		return ""
	}
	s := row[len(userTextPrefix)-1:] // from the text's opening quote
	if end := closingQuote(s); end > 0 {
		s = s[:end+1]
	} else {
		s = append(slices.Clip(completeChars(s)), '"') // never into the caller's row
	}
	var text string
	if json.Unmarshal(s, &text) != nil {
		return ""
	}
	return text
}

// closingQuote is the index of the quote that ends the JSON string s begins, or -1
// when s is cut before it.
func closingQuote(s []byte) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// completeChars is the JSON string s (without its closing quote, cut anywhere)
// without a last escape or character that the cut left incomplete.
func completeChars(s []byte) []byte {
	// The last escape: \x takes 2 bytes, \uXXXX 6.
	if i := bytes.LastIndexByte(s, '\\'); i > 0 {
		// Count the backslashes before it: an even run ending at i-1 means s[i]
		// begins an escape.
		j := i
		for j > 0 && s[j-1] == '\\' {
			j--
		}
		if (i-j)%2 == 0 {
			need := 2
			if i+1 < len(s) && s[i+1] == 'u' {
				need = 6
			}
			if len(s) < i+need {
				s = s[:i]
			}
		}
	}
	// A character cut in its bytes.
	for k := len(s) - 1; k >= 0 && k >= len(s)-utf8.UTFMax; k-- {
		if utf8.RuneStart(s[k]) {
			if !utf8.FullRune(s[k:]) {
				s = s[:k]
			}
			break
		}
	}
	return s
}
