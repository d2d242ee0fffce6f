package api_test

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/session/sqlite"
)

// sessionPage is one answer of GET /v1/sessions.
type sessionPage struct {
	Sessions []struct {
		ID         string            `json:"id"`
		Owner      string            `json:"owner"`
		Title      string            `json:"title"`
		Messages   int               `json:"messages"`
		LastActive time.Time         `json:"lastActive"`
		Metadata   map[string]string `json:"metadata"`
	} `json:"sessions"`
	Total int     `json:"total"`
	Next  *string `json:"next"`
}

func (p sessionPage) ids() []string {
	out := []string{}
	for _, s := range p.Sessions {
		out = append(out, s.ID)
	}
	return out
}

// listPage is GET /v1/sessions?query as tok ("" for e's own token).
func listPage(t *testing.T, e *env, query, tok string) sessionPage {
	t.Helper()
	var headers []string
	if tok != "" {
		headers = append(headers, as(tok))
	}
	r := e.do("GET", "/v1/sessions?"+query, nil, headers...)
	r.want(t, 200)
	var p sessionPage
	r.decode(t, &p)
	return p
}

// allPages follows "next" from the first page of query (which gives the limit), and
// returns the ids of every page, in order, and the totals each page said.
func allPages(t *testing.T, e *env, query, tok string) (pages [][]string, totals []int) {
	t.Helper()
	p := listPage(t, e, query, tok)
	for {
		pages, totals = append(pages, p.ids()), append(totals, p.Total)
		if p.Next == nil {
			return pages, totals
		}
		if len(pages) > 100 {
			t.Fatalf("more than 100 pages of %s", query)
		}
		p = listPage(t, e, query+"&cursor="+url.QueryEscape(*p.Next), tok)
	}
}

// sqliteSessions is a session store in a SQLite file of the test's, with n sessions
// s-000 … s-(n-1), one a minute, s-000 the least recently active. Session i's first
// message is "question i about TOPIC" where TOPIC is zebras for i%10 == 3, else
// lions; every third has the metadata team=blue.
func sqliteSessions(t *testing.T, n int) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Duration(n+1) * time.Minute)
	for i := range n {
		topic := "lions"
		if i%10 == 3 {
			topic = "zebras"
		}
		s := &session.Session{
			ID:         fmt.Sprintf("s-%03d", i),
			LastActive: base.Add(time.Duration(i) * time.Minute),
			Messages: []llm.Message{
				{Role: llm.RoleUser, Text: fmt.Sprintf("Question %d about %s", i, topic)},
				{Role: llm.RoleAssistant, Text: "an answer"},
			},
		}
		if i%3 == 0 {
			s.Metadata = map[string]string{"team": "blue"}
		}
		if err := st.Create(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// newestFirst is the ids s-(hi-1) … s-lo.
func newestFirst(lo, hi int) []string {
	var out []string
	for i := hi - 1; i >= lo; i-- {
		out = append(out, fmt.Sprintf("s-%03d", i))
	}
	return out
}

// TestSessionsPaged: GET /v1/sessions over 120 sessions in SQLite. Without limit,
// every one, newest first, with its title (its first message) and the total; with
// limit, pages that "next" links (absent on the last), which together are the whole
// list once each, even when a session becomes active between two pages (it moves
// to the top, and the pages after go on from where they were); a cursor without limit
// gives pages of 50.
func TestSessionsPaged(t *testing.T) {
	t.Parallel()
	st := sqliteSessions(t, 120)
	e := start(t, setup{opts: api.Options{Sessions: session.NewJanitor(st, nil)}})

	all := listPage(t, e, "", "")
	if want := newestFirst(0, 120); !slices.Equal(all.ids(), want) || all.Total != 120 || all.Next != nil {
		t.Fatalf("the whole list: %d sessions %q…, total %d, next %v; want the 120 newest first, total 120, no next", len(all.Sessions), all.ids()[:min(3, len(all.Sessions))], all.Total, all.Next)
	}
	for i, s := range all.Sessions {
		if i > 0 && s.LastActive.After(all.Sessions[i-1].LastActive) {
			t.Errorf("%s is after %s but more recently active", s.ID, all.Sessions[i-1].ID)
		}
	}
	if s := all.Sessions[0]; s.Title != "Question 119 about lions" || s.Messages != 2 {
		t.Errorf("the newest: %+v, want its first message as its title and 2 messages", s)
	}

	for _, limit := range []int{50, 7, 120, 200} {
		pages, totals := allPages(t, e, fmt.Sprintf("limit=%d", limit), "")
		var got []string
		for i, p := range pages {
			if i < len(pages)-1 && len(p) != limit {
				t.Errorf("limit=%d: page %d has %d sessions", limit, i, len(p))
			}
			got = append(got, p...)
		}
		if !slices.Equal(got, newestFirst(0, 120)) {
			t.Errorf("limit=%d: the pages together are %q, want the 120 newest first", limit, got)
		}
		if wantPages := (120 + limit - 1) / limit; len(pages) != wantPages {
			t.Errorf("limit=%d: %d pages, want %d", limit, len(pages), wantPages)
		}
		for _, n := range totals {
			if n != 120 {
				t.Errorf("limit=%d: totals %v, want 120 on every page", limit, totals)
				break
			}
		}
	}

	// A session becomes active between two pages: it goes to the top, and the next
	// pages neither repeat one nor skip one.
	first := listPage(t, e, "limit=50", "")
	if err := st.Append(t.Context(), "s-010", llm.Usage{}, llm.Message{Role: llm.RoleUser, Text: "again"}); err != nil {
		t.Fatal(err)
	}
	got := first.ids()
	for next := first.Next; next != nil; {
		p := listPage(t, e, "cursor="+url.QueryEscape(*next), "")
		if len(p.Sessions) > 50 {
			t.Errorf("a cursor without limit gave %d sessions, want pages of 50", len(p.Sessions))
		}
		got, next = append(got, p.ids()...), p.Next
	}
	want := slices.DeleteFunc(newestFirst(0, 120), func(id string) bool { return id == "s-010" })
	if !slices.Equal(got, want) {
		t.Errorf("pages while s-010 moved to the top: %q, want every other session once, in order", got)
	}
	if top := listPage(t, e, "limit=1", "").ids(); !slices.Equal(top, []string{"s-010"}) {
		t.Errorf("the first page after: %q, want s-010", top)
	}
}

// TestSessionsSearch: q's words each match the id, the title (the first message),
// a metadata value (not a key) in any case; total counts the matches, and pages
// page through them only.
func TestSessionsSearch(t *testing.T) {
	t.Parallel()
	st := sqliteSessions(t, 120)
	e := start(t, setup{opts: api.Options{Sessions: session.NewJanitor(st, nil)}})

	var zebras []string
	for i := 119; i >= 0; i-- {
		if i%10 == 3 {
			zebras = append(zebras, fmt.Sprintf("s-%03d", i))
		}
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"zebras", zebras},
		{"ZEBRAS", zebras},
		{"  Zebras  question ", zebras},
		{"zebras 113", []string{"s-113"}},
		{"question 113 about", []string{"s-113"}},
		{"s-007", []string{"s-007"}},
		{"blue zebras", []string{"s-093", "s-063", "s-033", "s-003"}},
		{"team", nil},   // a metadata key
		{"tigers", nil}, // nowhere
		{"zebras tigers", nil},
	} {
		p := listPage(t, e, "q="+url.QueryEscape(c.q), "")
		if !slices.Equal(p.ids(), append([]string{}, c.want...)) || p.Total != len(c.want) || p.Next != nil {
			t.Errorf("q=%q: %q, total %d, next %v; want %q", c.q, p.ids(), p.Total, p.Next, c.want)
		}
	}
	if p := listPage(t, e, "q=blue", ""); p.Total != 40 {
		t.Errorf("q=blue (every third's metadata): total %d, want 40", p.Total)
	}

	pages, totals := allPages(t, e, "q=zebras&limit=5", "")
	if len(pages) != 3 || len(pages[2]) != 2 || !slices.Equal(slices.Concat(pages...), zebras) {
		t.Errorf("q=zebras&limit=5: pages %q, want the 12 zebras in 5, 5 and 2", pages)
	}
	if !slices.Equal(totals, []int{12, 12, 12}) {
		t.Errorf("q=zebras&limit=5: totals %v, want 12 on each page", totals)
	}
}

// TestSessionsListOwners: with identities, search and paging see only one's own
// sessions: never counted, never matched (bob's name matches no session of alice's,
// not even by its owner), while an admin's q matches owners too.
func TestSessionsListOwners(t *testing.T) {
	t.Parallel()
	e := start(t, setup{opts: api.Options{Identify: testPeople}})
	var alices, bobs []string
	for i := range 3 {
		id, _ := newSessionAs(t, e, "alice-token", map[string]any{"metadata": map[string]string{"title": fmt.Sprintf("alice's plan %d", i)}})
		alices = append([]string{id}, alices...)
	}
	for i := range 2 {
		id, _ := newSessionAs(t, e, "bob-token", map[string]any{"metadata": map[string]string{"title": fmt.Sprintf("bob's plan %d", i)}})
		bobs = append([]string{id}, bobs...)
	}

	if p := listPage(t, e, "", "alice-token"); !slices.Equal(p.ids(), alices) || p.Total != 3 {
		t.Errorf("alice's list: %q, total %d; want her 3, newest first", p.ids(), p.Total)
	}
	pages, totals := allPages(t, e, "limit=2", "alice-token")
	if !slices.Equal(slices.Concat(pages...), alices) || len(pages) != 2 || !slices.Equal(totals, []int{3, 3}) {
		t.Errorf("alice's pages: %q, totals %v; want her 3 in 2 pages, total 3", pages, totals)
	}
	for _, q := range []string{"plan", "bob", "alice"} {
		p := listPage(t, e, "q="+q, "alice-token")
		want := alices
		if q == "bob" {
			want = []string{}
		}
		if !slices.Equal(p.ids(), want) || p.Total != len(want) {
			t.Errorf("alice's q=%s: %q, total %d; want %q", q, p.ids(), p.Total, want)
		}
	}
	// bob's "alice" matches nothing of his: his sessions' owner is bob, and alice's are not his.
	if p := listPage(t, e, "q=alice", "bob-token"); len(p.Sessions) != 0 || p.Total != 0 {
		t.Errorf("bob's q=alice: %q, total %d; want none", p.ids(), p.Total)
	}
	// carol, an admin: every session, and q matches the owner.
	if p := listPage(t, e, "", "carol-token"); p.Total != 5 {
		t.Errorf("carol's list: total %d, want all 5", p.Total)
	}
	if p := listPage(t, e, "q=BOB", "carol-token"); !slices.Equal(p.ids(), bobs) || p.Total != 2 {
		t.Errorf("carol's q=BOB: %q, total %d; want bob's 2", p.ids(), p.Total)
	}
	e.do("GET", "/v1/sessions?limit=2", nil).want(t, 401)
}

// TestSessionsListErrors: a bad limit or cursor is a 400 that names the parameter and
// says what to send; another method is a 405.
func TestSessionsListErrors(t *testing.T) {
	t.Parallel()
	e := start(t, setup{})
	for _, q := range []string{"limit=0", "limit=201", "limit=-1", "limit=ten", "limit=1.5", "q=x&limit=", "limit=%20"} {
		r := e.do("GET", "/v1/sessions?"+q, nil)
		if q == "q=x&limit=" {
			r.want(t, 200) // an empty limit is none
			continue
		}
		r.want(t, 400, `"code": "bad_request"`, "limit=", "from 1 to 200")
	}
	for _, c := range []string{"x", "!!!", "MTIz", "Om5v", "YWJjOmlk"} { // "123", ":no", "abc:id"
		e.do("GET", "/v1/sessions?cursor="+c, nil).want(t, 400, `"code": "bad_request"`, "cursor="+c, `pass the \"next\"`)
	}
	r := e.do("PATCH", "/v1/sessions", nil)
	r.want(t, 405)
	if allow := r.header.Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "POST") {
		t.Errorf("Allow %q", allow)
	}
}
