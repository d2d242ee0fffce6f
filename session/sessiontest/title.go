package sessiontest

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

// testTitle: List's Title is the metadata's "title", else the text of the first user
// message (after an assistant's, or appended after Create), its white space and
// control characters (NUL) made single spaces, cut to session.TitleMax characters with "…" however long the
// message and wherever its JSON escapes fall; "" without either.
func testTitle(t *testing.T, st session.Store) {
	ctx := t.Context()
	user := func(s string) llm.Message { return text(llm.RoleUser, s) }
	long := strings.Repeat("<", 2000) // each one "\u003c" in the row: a cut in an escape
	umlauts := strings.Repeat("äö ", 1000)
	want := map[string]string{
		"history":   `Wetter in Zürich? 🌧 "quoted" <tag> \`,
		"named":     "Weather, named",
		"later":     "the question",
		"appended":  "asked later",
		"long":      strings.Repeat("<", session.TitleMax-1) + "…",
		"umlauts":   strings.TrimSpace(strings.Repeat("äö ", (session.TitleMax-1)/3+1)) + "…", // 119 characters
		"nul":       "a b c",
		"empty":     "",
		"assistant": "",
	}
	for _, s := range []*session.Session{
		{ID: "history", Messages: History()},
		{ID: "named", Messages: History(), Metadata: map[string]string{"title": "  Weather,\n named ", "k": "v"}},
		{ID: "later", Messages: []llm.Message{text(llm.RoleAssistant, "Hello, how can I help?"), user("the  question"), user("not this one")}},
		{ID: "appended"},
		{ID: "long", Messages: []llm.Message{user(long)}},
		{ID: "umlauts", Messages: []llm.Message{user(umlauts)}},
		{ID: "nul", Messages: []llm.Message{user("a\x00b\tc")}},
		{ID: "empty"},
		{ID: "assistant", Messages: []llm.Message{text(llm.RoleAssistant, "only me")}},
	} {
		mustCreate(t, st, s)
	}
	if err := st.Append(ctx, "appended", llm.Usage{}, user("asked\nlater"), text(llm.RoleAssistant, "ok")); err != nil {
		t.Fatal(err)
	}
	l, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != len(want) {
		t.Fatalf("List = %d sessions, want %d", len(l), len(want))
	}
	for _, sum := range l {
		if sum.Title != want[sum.ID] {
			t.Errorf("%s: title %q, want %q", sum.ID, sum.Title, want[sum.ID])
		}
	}
}
