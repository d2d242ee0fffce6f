package demo_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// notesSession connects to a notes server on file whose clock returns *now.
func notesSession(t *testing.T, file string, now *time.Time) *mcp.ClientSession {
	t.Helper()
	var mu sync.Mutex
	return connect(t, "notes", &demo.Options{
		NotesFile: file,
		Now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			return *now
		},
	})
}

func newNotesFile(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "notes.json")
}

func TestNotesTools(t *testing.T) {
	now := fixedNow
	cs := notesSession(t, newNotesFile(t), &now)
	want := []string{"delete_note", "get_note", "list_notes", "put_note", "search_notes"}
	if got := toolNames(t, cs); !slices.Equal(sorted(got), want) {
		t.Errorf("tools = %q, want %q", got, want)
	}
}

func TestNotesLifecycle(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a", "b", "notes.json") // directories do not exist yet
	now := fixedNow
	cs := notesSession(t, file, &now)
	const t0 = "2026-11-21T08:56:31Z"

	list, text := callOK[demo.ListNotesResult](t, cs, "list_notes", map[string]any{})
	if len(list.Notes) != 0 || text != "No notes yet." {
		t.Errorf("empty notebook: list = %+v, %q", list, text)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("reading created the notes file (stat: %v)", err)
	}

	put, text := callOK[demo.PutNoteResult](t, cs, "put_note", map[string]any{
		"title": "  Groceries ", "text": "Milk, eggs and\nFLOUR for the cake.", "tags": []string{"home", " todo ", "home", ""},
	})
	if want := (demo.PutNoteResult{Title: "Groceries", Replaced: false, Updated: t0}); put != want || text != `Created note "Groceries".` {
		t.Errorf("put_note = %+v, %q; want %+v", put, text, want)
	}
	now = fixedNow.Add(time.Hour)
	callOK[demo.PutNoteResult](t, cs, "put_note", map[string]any{"title": "apollo", "text": "Launch window opens at dawn."})
	callOK[demo.PutNoteResult](t, cs, "put_note", map[string]any{"title": "Zebra", "text": "Stripes.", "tags": []string{"animals"}})

	got, text := callOK[demo.Note](t, cs, "get_note", map[string]any{"title": "Groceries"})
	wantNote := demo.Note{Title: "Groceries", Text: "Milk, eggs and\nFLOUR for the cake.", Tags: []string{"home", "todo"}, Created: t0, Updated: t0}
	if !equalNote(got, wantNote) {
		t.Errorf("get_note = %+v, want %+v", got, wantNote)
	}
	if want := "# Groceries\nTags: home, todo\nUpdated: " + t0 + "\n\nMilk, eggs and\nFLOUR for the cake."; text != want {
		t.Errorf("get_note text = %q, want %q", text, want)
	}

	// Replacing keeps the creation time and reports the replacement.
	put, text = callOK[demo.PutNoteResult](t, cs, "put_note", map[string]any{"title": "Groceries", "text": "Just milk."})
	if !put.Replaced || put.Updated != "2026-11-21T09:56:31Z" || text != `Replaced note "Groceries".` {
		t.Errorf("replacing put_note = %+v, %q", put, text)
	}
	got, _ = callOK[demo.Note](t, cs, "get_note", map[string]any{"title": "Groceries"})
	wantNote = demo.Note{Title: "Groceries", Text: "Just milk.", Tags: []string{}, Created: t0, Updated: "2026-11-21T09:56:31Z"}
	if !equalNote(got, wantNote) {
		t.Errorf("replaced note = %+v, want %+v", got, wantNote)
	}

	list, text = callOK[demo.ListNotesResult](t, cs, "list_notes", nil)
	wantList := []demo.NoteSummary{
		{Title: "apollo", Tags: []string{}, Updated: "2026-11-21T09:56:31Z"},
		{Title: "Groceries", Tags: []string{}, Updated: "2026-11-21T09:56:31Z"},
		{Title: "Zebra", Tags: []string{"animals"}, Updated: "2026-11-21T09:56:31Z"},
	}
	if !slices.EqualFunc(list.Notes, wantList, equalSummary) {
		t.Errorf("list_notes = %+v, want %+v", list.Notes, wantList)
	}
	wantText := "3 notes:\n- apollo (updated 2026-11-21T09:56:31Z)\n- Groceries (updated 2026-11-21T09:56:31Z)\n- Zebra (updated 2026-11-21T09:56:31Z; tags: animals)"
	if text != wantText {
		t.Errorf("list_notes text = %q, want %q", text, wantText)
	}

	del, text := callOK[demo.DeleteNoteResult](t, cs, "delete_note", map[string]any{"title": "apollo"})
	if del != (demo.DeleteNoteResult{Title: "apollo", Deleted: true}) || text != `Deleted note "apollo".` {
		t.Errorf("delete_note = %+v, %q", del, text)
	}
	callErr(t, cs, "get_note", map[string]any{"title": "apollo"}, `no note titled "apollo"`)
	callErr(t, cs, "delete_note", map[string]any{"title": "apollo"}, `no note titled "apollo"`)
	callErr(t, cs, "get_note", map[string]any{"title": "groceries"}, `no note titled "groceries"`, `did you mean "Groceries"`)
	list, _ = callOK[demo.ListNotesResult](t, cs, "list_notes", nil)
	if len(list.Notes) != 2 {
		t.Errorf("after delete: %d notes, want 2", len(list.Notes))
	}

	// The file and its directory are private, and no temporary file is left behind.
	for path, want := range map[string]os.FileMode{file: 0o600, filepath.Dir(file): 0o700 | os.ModeDir} {
		if fi, err := os.Stat(path); err != nil {
			t.Error(err)
		} else if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
	if got := dirNames(t, filepath.Dir(file)); !slices.Equal(got, []string{"notes.json", "notes.json.lock"}) {
		t.Errorf("notes directory holds %q", got)
	}
}

func TestNotesSearch(t *testing.T) {
	now := fixedNow
	cs := notesSession(t, newNotesFile(t), &now)
	long := strings.Repeat("lorem ipsum ", 10)
	for _, n := range []map[string]any{
		{"title": "Recipe", "text": "Whisk the eggs.\nAdd SUGAR slowly, then bake.", "tags": []string{"kitchen"}},
		{"title": "Sugar daddy", "text": "A film.", "tags": []string{"movies"}},
		{"title": "Shopping", "text": long, "tags": []string{"Sugar-free"}},
		{"title": "Ünïcode", "text": "Straße ÉCOLE café"},
		{"title": "Unrelated", "text": "Nothing here."},
		{"title": "Haystack", "text": strings.Repeat("hay ", 30) + "needle" + strings.Repeat(" straw", 20)},
	} {
		callOK[demo.PutNoteResult](t, cs, "put_note", n)
	}
	tests := []struct {
		query    string
		want     []demo.SearchMatch
		wantText string
	}{
		{
			query: "sugar",
			want: []demo.SearchMatch{
				{Title: "Recipe", Snippet: "Whisk the eggs. Add SUGAR slowly, then bake."},
				{Title: "Shopping", Snippet: strings.Repeat("lorem ipsum ", 6) + "lorem…"},
				{Title: "Sugar daddy", Snippet: "A film."},
			},
			wantText: "3 notes match \"sugar\":\n- Recipe: Whisk the eggs. Add SUGAR slowly, then bake.\n- Shopping: " + strings.Repeat("lorem ipsum ", 6) + "lorem…\n- Sugar daddy: A film.",
		},
		{
			query:    "  KITCHEN ",
			want:     []demo.SearchMatch{{Title: "Recipe", Snippet: "Whisk the eggs. Add SUGAR slowly, then bake."}},
			wantText: "1 note matches \"KITCHEN\":\n- Recipe: Whisk the eggs. Add SUGAR slowly, then bake.",
		},
		{
			query: "école",
			want:  []demo.SearchMatch{{Title: "Ünïcode", Snippet: "Straße ÉCOLE café"}},
		},
		{
			query: "ipsum lorem",
			want:  []demo.SearchMatch{{Title: "Shopping", Snippet: "lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem…"}},
		},
		{
			query: "NEEDLE",
			want:  []demo.SearchMatch{{Title: "Haystack", Snippet: "…" + strings.Repeat("hay ", 10) + "needle" + strings.Repeat(" straw", 6) + "…"}},
		},
		{query: "zzz", want: []demo.SearchMatch{}, wantText: `No notes match "zzz".`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, text := callOK[demo.SearchNotesResult](t, cs, "search_notes", map[string]any{"query": tt.query})
			if got.Query != strings.TrimSpace(tt.query) || !slices.Equal(got.Matches, tt.want) {
				t.Errorf("search_notes(%q) = %+v, want %+v", tt.query, got, tt.want)
			}
			if tt.wantText != "" && text != tt.wantText {
				t.Errorf("search_notes(%q) text = %q, want %q", tt.query, text, tt.wantText)
			}
		})
	}
	callErr(t, cs, "search_notes", map[string]any{"query": "   "}, "query")
}

func TestNotesInvalidInput(t *testing.T) {
	now := fixedNow
	file := newNotesFile(t)
	cs := notesSession(t, file, &now)
	tests := []struct {
		name string
		tool string
		args map[string]any
		want []string
	}{
		{"empty title", "put_note", map[string]any{"title": " ", "text": "x"}, []string{"title"}},
		{"missing text", "put_note", map[string]any{"title": "x"}, []string{"text"}},
		{"tags not a list", "put_note", map[string]any{"title": "x", "text": "y", "tags": "a"}, []string{"tags"}},
		{"missing title", "get_note", map[string]any{}, []string{"title"}},
		{"missing note", "get_note", map[string]any{"title": "Nope"}, []string{`no note titled "Nope"`}},
		{"delete missing", "delete_note", map[string]any{"title": "Nope"}, []string{`no note titled "Nope"`}},
		{"missing query", "search_notes", map[string]any{}, []string{"query"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			callErr(t, cs, tt.tool, tt.args, tt.want...)
		})
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("failed calls wrote the notes file (stat: %v)", err)
	}
}

// TestNotesCorruptFile checks that every tool reports a corrupt file by name and
// that none overwrites it.
func TestNotesCorruptFile(t *testing.T) {
	contents := map[string]string{
		"not JSON":        "{\"notes\": [ {\"title\": \"a\", ",
		"not an object":   "[1, 2, 3]\n",
		"null":            "null",
		"wrong notes":     `{"notes": {"title": "a"}}`,
		"untitled note":   `{"notes": [{"text": "orphan"}]}`,
		"newer version":   `{"version": 99, "notes": []}`,
		"version garbage": `{"version": "one", "notes": []}`,
	}
	for name, content := range contents {
		t.Run(name, func(t *testing.T) {
			file := newNotesFile(t)
			if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			now := fixedNow
			cs := notesSession(t, file, &now)
			for tool, args := range map[string]map[string]any{
				"put_note":     {"title": "a", "text": "b"},
				"get_note":     {"title": "a"},
				"list_notes":   {},
				"delete_note":  {"title": "a"},
				"search_notes": {"query": "a"},
			} {
				callErr(t, cs, tool, args, file)
			}
			if got, err := os.ReadFile(file); err != nil || string(got) != content {
				t.Errorf("file now holds %q (%v), want it untouched", got, err)
			}
		})
	}
}

// TestNotesFileFormat checks the file's layout, that an empty file is an empty
// notebook, and that unknown top-level keys survive a write.
func TestNotesFileFormat(t *testing.T) {
	file := newNotesFile(t)
	if err := os.WriteFile(file, []byte(`{"future": {"x": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	now := fixedNow
	cs := notesSession(t, file, &now)
	callOK[demo.PutNoteResult](t, cs, "put_note", map[string]any{"title": "b", "text": "2"})
	callOK[demo.PutNoteResult](t, cs, "put_note", map[string]any{"title": "a", "text": "1", "tags": []string{"t"}})

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version int             `json:"version"`
		Future  json.RawMessage `json:"future"`
		Notes   []struct {
			Title   string    `json:"title"`
			Text    string    `json:"text"`
			Tags    []string  `json:"tags"`
			Created time.Time `json:"created"`
			Updated time.Time `json:"updated"`
		} `json:"notes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("notes file %s: %v", data, err)
	}
	if doc.Version != 1 || compact(t, doc.Future) != `{"x":1}` || len(doc.Notes) != 2 ||
		doc.Notes[0].Title != "a" || doc.Notes[1].Title != "b" || !doc.Notes[0].Updated.Equal(fixedNow) {
		t.Errorf("notes file = %s", data)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("notes file mode: %v %v, want 0600", fi.Mode(), err)
	}

	if err := os.WriteFile(file, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if list, _ := callOK[demo.ListNotesResult](t, cs, "list_notes", nil); len(list.Notes) != 0 {
		t.Errorf("blank file: list = %+v, want empty", list)
	}
}

// TestNotesShared checks that two servers on one file see each other's writes.
func TestNotesShared(t *testing.T) {
	file := newNotesFile(t)
	now := fixedNow
	a := notesSession(t, file, &now)
	b := notesSession(t, file, &now)

	callOK[demo.PutNoteResult](t, a, "put_note", map[string]any{"title": "from a", "text": "hello b"})
	got, _ := callOK[demo.Note](t, b, "get_note", map[string]any{"title": "from a"})
	if got.Text != "hello b" {
		t.Errorf("b reads %+v", got)
	}
	put, _ := callOK[demo.PutNoteResult](t, b, "put_note", map[string]any{"title": "from a", "text": "edited by b"})
	if !put.Replaced {
		t.Error("b's put did not replace a's note")
	}
	callOK[demo.DeleteNoteResult](t, b, "delete_note", map[string]any{"title": "from a"})
	callErr(t, a, "get_note", map[string]any{"title": "from a"}, "no note titled")

	// A third server started later finds what the others left.
	callOK[demo.PutNoteResult](t, a, "put_note", map[string]any{"title": "kept", "text": "still here"})
	c := notesSession(t, file, &now)
	if list, _ := callOK[demo.ListNotesResult](t, c, "list_notes", nil); len(list.Notes) != 1 || list.Notes[0].Title != "kept" {
		t.Errorf("new server lists %+v", list)
	}
}

// TestNotesConcurrentPuts races put_note calls from two servers sharing one file:
// the flock must serialise the read-modify-write cycles so that no note is lost.
func TestNotesConcurrentPuts(t *testing.T) {
	const perServer = 20
	file := newNotesFile(t)
	now := fixedNow
	servers := []*mcp.ClientSession{notesSession(t, file, &now), notesSession(t, file, &now)}

	var wg sync.WaitGroup
	for s, cs := range servers {
		for i := range perServer {
			wg.Go(func() {
				res, text := call(t, cs, "put_note", map[string]any{
					"title": fmt.Sprintf("server %d note %02d", s, i), "text": "x",
				})
				if res.IsError {
					t.Errorf("put_note: %s", text)
				}
			})
		}
	}
	wg.Wait()

	list, _ := callOK[demo.ListNotesResult](t, servers[0], "list_notes", nil)
	if len(list.Notes) != len(servers)*perServer {
		t.Errorf("%d notes after %d concurrent puts", len(list.Notes), len(servers)*perServer)
	}
	if got := dirNames(t, filepath.Dir(file)); !slices.Equal(got, []string{"notes.json", "notes.json.lock"}) {
		t.Errorf("notes directory holds %q", got)
	}
}

func equalNote(a, b demo.Note) bool {
	return a.Title == b.Title && a.Text == b.Text && slices.Equal(a.Tags, b.Tags) && a.Created == b.Created && a.Updated == b.Updated
}

func equalSummary(a, b demo.NoteSummary) bool {
	return a.Title == b.Title && a.Updated == b.Updated && slices.Equal(a.Tags, b.Tags)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func compact(t *testing.T, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
