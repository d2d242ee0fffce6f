package session

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/llm"
)

// A user message's row cut anywhere (in an escape, a run of backslashes, a
// character's bytes) still gives the beginning of its text, and the whole row the
// whole text.
func TestUserTextCut(t *testing.T) {
	for _, text := range []string{
		`plain`,
		`a\\\"b\\`,
		"<tag> & \"q\" \u2028 Zürich 🌧 \\u0041 \t\n\x00 end",
	} {
		rows, err := EncodeMessages("t", []llm.Message{{Role: llm.RoleUser, Text: text}})
		if err != nil {
			t.Fatal(err)
		}
		row := rows[0]
		if got := userText([]byte(row)); got != text {
			t.Errorf("whole row %s: %q, want %q", row, got, text)
		}
		for i := len(userTextPrefix); i < len(row); i++ {
			got := userText([]byte(row[:i]))
			if !strings.HasPrefix(text, got) {
				t.Errorf("row cut at %d (%s): %q, not a beginning of %q", i, row[:i], got, text)
			}
		}
	}
	for _, row := range []string{"", `{"role":"assistant","text":"no"}`, `{"role":"user"}`, `{"role":"user","text":1}`} {
		if got := userText([]byte(row)); got != "" {
			t.Errorf("row %s: %q, want none", row, got)
		}
	}
}

// Title prefers the metadata's title, and makes either one line of at most TitleMax
// characters.
func TestTitle(t *testing.T) {
	row := []byte(`{"role":"user","text":"from\nthe message"}`)
	for _, tc := range []struct {
		meta map[string]string
		row  []byte
		want string
	}{
		{nil, row, "from the message"},
		{map[string]string{"title": " named\t"}, row, "named"},
		{map[string]string{"title": " ", "other": "x"}, row, "from the message"},
		{nil, nil, ""},
		{map[string]string{"title": strings.Repeat("é", TitleMax)}, nil, strings.Repeat("é", TitleMax)},
		{map[string]string{"title": strings.Repeat("é", TitleMax+1)}, nil, strings.Repeat("é", TitleMax-1) + "…"},
	} {
		if got := Title(tc.meta, tc.row); got != tc.want {
			t.Errorf("Title(%v, %s) = %q, want %q", tc.meta, tc.row, got, tc.want)
		}
	}
}
