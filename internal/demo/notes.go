package demo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Note is the structured output of get_note.
type Note struct {
	Title   string   `json:"title" jsonschema:"the note's title, its identity"`
	Text    string   `json:"text" jsonschema:"the note's body"`
	Tags    []string `json:"tags" jsonschema:"the note's tags, possibly none"`
	Created string   `json:"created" jsonschema:"when the note was first saved (RFC 3339)"`
	Updated string   `json:"updated" jsonschema:"when the note was last saved (RFC 3339)"`
}

// PutNoteInput is the input of put_note.
type PutNoteInput struct {
	Title string   `json:"title" jsonschema:"title of the note; an existing note with this exact title is replaced"`
	Text  string   `json:"text" jsonschema:"body of the note"`
	Tags  []string `json:"tags,omitempty" jsonschema:"optional tags, e.g. [\"work\", \"todo\"]"`
}

// PutNoteResult is the structured output of put_note.
type PutNoteResult struct {
	Title    string `json:"title" jsonschema:"the saved note's title"`
	Replaced bool   `json:"replaced" jsonschema:"true if a note with this title already existed and was replaced"`
	Updated  string `json:"updated" jsonschema:"when the note was saved (RFC 3339)"`
}

// TitleInput is the input of get_note and delete_note.
type TitleInput struct {
	Title string `json:"title" jsonschema:"the exact title of the note"`
}

// ListNotesInput is the (empty) input of list_notes.
type ListNotesInput struct{}

// NoteSummary is one entry of list_notes.
type NoteSummary struct {
	Title   string   `json:"title" jsonschema:"the note's title"`
	Tags    []string `json:"tags" jsonschema:"the note's tags"`
	Updated string   `json:"updated" jsonschema:"when the note was last saved (RFC 3339)"`
}

// ListNotesResult is the structured output of list_notes.
type ListNotesResult struct {
	Notes []NoteSummary `json:"notes" jsonschema:"every note, sorted by title"`
}

// DeleteNoteResult is the structured output of delete_note.
type DeleteNoteResult struct {
	Title   string `json:"title" jsonschema:"the deleted note's title"`
	Deleted bool   `json:"deleted" jsonschema:"always true: a missing note is an error"`
}

// SearchNotesInput is the input of search_notes.
type SearchNotesInput struct {
	Query string `json:"query" jsonschema:"text to look for, case-insensitively, in titles, bodies and tags"`
}

// SearchMatch is one hit of search_notes.
type SearchMatch struct {
	Title   string `json:"title" jsonschema:"the matching note's title"`
	Snippet string `json:"snippet" jsonschema:"an excerpt of the note's text around the first match (or its beginning)"`
}

// SearchNotesResult is the structured output of search_notes.
type SearchNotesResult struct {
	Query   string        `json:"query" jsonschema:"the query"`
	Matches []SearchMatch `json:"matches" jsonschema:"matching notes, sorted by title"`
}

func addNotesTools(s *mcp.Server, o Options) {
	st := &noteStore{path: o.NotesFile}
	now := o.Now
	closedWorld := new(false)

	mcp.AddTool(s, &mcp.Tool{
		Name:        "put_note",
		Title:       "Save note",
		Description: "Saves a note under a title, creating it or replacing the note with that exact title.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: closedWorld},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in PutNoteInput) (*mcp.CallToolResult, PutNoteResult, error) {
		title, err := cleanTitle(in.Title)
		if err != nil {
			return nil, PutNoteResult{}, err
		}
		var out PutNoteResult
		err = st.update(ctx, func(nb *notebook) (bool, error) {
			t := now().UTC()
			n := &storedNote{Title: title, Text: in.Text, Tags: cleanTags(in.Tags), Created: t, Updated: t}
			if old, ok := nb.notes[title]; ok {
				n.Created = old.Created
				out.Replaced = true
			}
			nb.notes[title] = n
			out.Title, out.Updated = title, formatTime(t)
			return true, nil
		})
		if err != nil {
			return nil, PutNoteResult{}, err
		}
		verb := "Created"
		if out.Replaced {
			verb = "Replaced"
		}
		return textResult(fmt.Sprintf("%s note %q.", verb, title)), out, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_note",
		Title:       "Read note",
		Description: "Returns the note with the given exact title.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in TitleInput) (*mcp.CallToolResult, Note, error) {
		nb, err := st.load()
		if err != nil {
			return nil, Note{}, err
		}
		n, err := nb.find(in.Title)
		if err != nil {
			return nil, Note{}, err
		}
		out := Note{
			Title:   n.Title,
			Text:    n.Text,
			Tags:    nonNil(n.Tags),
			Created: formatTime(n.Created),
			Updated: formatTime(n.Updated),
		}
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n", n.Title)
		if len(n.Tags) > 0 {
			fmt.Fprintf(&b, "Tags: %s\n", strings.Join(n.Tags, ", "))
		}
		fmt.Fprintf(&b, "Updated: %s\n\n%s", out.Updated, n.Text)
		return textResult(b.String()), out, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_notes",
		Title:       "List notes",
		Description: "Lists every note's title, tags and last update, sorted by title.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld},
	}, func(_ context.Context, _ *mcp.CallToolRequest, _ ListNotesInput) (*mcp.CallToolResult, ListNotesResult, error) {
		nb, err := st.load()
		if err != nil {
			return nil, ListNotesResult{}, err
		}
		out := ListNotesResult{Notes: []NoteSummary{}}
		var b strings.Builder
		for _, n := range sortedNotes(nb.notes) {
			sum := NoteSummary{Title: n.Title, Tags: nonNil(n.Tags), Updated: formatTime(n.Updated)}
			out.Notes = append(out.Notes, sum)
			fmt.Fprintf(&b, "- %s (updated %s", sum.Title, sum.Updated)
			if len(sum.Tags) > 0 {
				fmt.Fprintf(&b, "; tags: %s", strings.Join(sum.Tags, ", "))
			}
			b.WriteString(")\n")
		}
		text := fmt.Sprintf("%d notes:\n%s", len(out.Notes), b.String())
		switch len(out.Notes) {
		case 0:
			text = "No notes yet."
		case 1:
			text = "1 note:\n" + b.String()
		}
		return textResult(strings.TrimSuffix(text, "\n")), out, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "delete_note",
		Title:       "Delete note",
		Description: "Deletes the note with the given exact title.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: closedWorld},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in TitleInput) (*mcp.CallToolResult, DeleteNoteResult, error) {
		var title string
		err := st.update(ctx, func(nb *notebook) (bool, error) {
			n, err := nb.find(in.Title)
			if err != nil {
				return false, err
			}
			title = n.Title
			delete(nb.notes, title)
			return true, nil
		})
		if err != nil {
			return nil, DeleteNoteResult{}, err
		}
		return textResult(fmt.Sprintf("Deleted note %q.", title)), DeleteNoteResult{Title: title, Deleted: true}, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "search_notes",
		Title:       "Search notes",
		Description: "Finds notes whose title, text or tags contain the query (case-insensitive); returns their titles with a snippet.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in SearchNotesInput) (*mcp.CallToolResult, SearchNotesResult, error) {
		q := strings.TrimSpace(in.Query)
		if q == "" {
			return nil, SearchNotesResult{}, errors.New("query: a non-empty search text is required")
		}
		nb, err := st.load()
		if err != nil {
			return nil, SearchNotesResult{}, err
		}
		out := SearchNotesResult{Query: q, Matches: []SearchMatch{}}
		var b strings.Builder
		for _, n := range sortedNotes(nb.notes) {
			snippet, ok := n.match(q)
			if !ok {
				continue
			}
			out.Matches = append(out.Matches, SearchMatch{Title: n.Title, Snippet: snippet})
			fmt.Fprintf(&b, "\n- %s: %s", n.Title, snippet)
		}
		var text string
		switch len(out.Matches) {
		case 0:
			text = fmt.Sprintf("No notes match %q.", q)
		case 1:
			text = fmt.Sprintf("1 note matches %q:%s", q, b.String())
		default:
			text = fmt.Sprintf("%d notes match %q:%s", len(out.Matches), q, b.String())
		}
		return textResult(text), out, nil
	})

	addNotesExtras(s, st)
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func cleanTitle(title string) (string, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return "", errors.New("title: a non-empty title is required")
	}
	return title, nil
}

// cleanTags trims tags and drops empty and repeated ones, keeping their order.
func cleanTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// find returns the note titled title, or an error that suggests a title differing
// only in case.
func (nb *notebook) find(title string) (*storedNote, error) {
	title = strings.TrimSpace(title)
	if n, ok := nb.notes[title]; ok {
		return n, nil
	}
	for _, n := range sortedNotes(nb.notes) {
		if strings.EqualFold(n.Title, title) {
			return nil, fmt.Errorf("no note titled %q (did you mean %q?)", title, n.Title)
		}
	}
	return nil, fmt.Errorf("no note titled %q", title)
}

// sortedNotes returns the notes ordered by title, case-insensitively first.
func sortedNotes(notes map[string]*storedNote) []*storedNote {
	list := make([]*storedNote, 0, len(notes))
	for _, n := range notes {
		list = append(list, n)
	}
	slices.SortFunc(list, func(a, b *storedNote) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)), cmp.Compare(a.Title, b.Title))
	})
	return list
}

const (
	snippetContext = 40 // runes shown on each side of a match
	snippetHead    = 80 // runes shown from the start of the text
)

// match reports whether q occurs in the note's title, text or tags (ignoring case),
// with a one-line snippet of the text: around the first match in the text, else from
// its beginning.
func (n *storedNote) match(q string) (snippet string, ok bool) {
	lq := lowerRunes(q)
	text := []rune(n.Text)
	if i := indexRunes(lowerRunes(n.Text), lq); i >= 0 {
		return excerpt(text, i, i+len(lq), snippetContext), true
	}
	found := indexRunes(lowerRunes(n.Title), lq) >= 0
	for _, t := range n.Tags {
		found = found || indexRunes(lowerRunes(t), lq) >= 0
	}
	if !found {
		return "", false
	}
	return excerpt(text, 0, 0, snippetHead), true
}

// excerpt renders text[lo:hi] with up to width runes of context on each side, on one
// line, cut at word boundaries where possible and with an ellipsis where it was cut.
func excerpt(text []rune, lo, hi, width int) string {
	start, end := max(0, lo-width), min(len(text), hi+width)
	if start > 0 && !unicode.IsSpace(text[start-1]) {
		for j := start; j < lo; j++ {
			if unicode.IsSpace(text[j]) {
				start = j
				break
			}
		}
	}
	if end < len(text) && !unicode.IsSpace(text[end]) {
		for j := end - 1; j > hi; j-- {
			if unicode.IsSpace(text[j]) {
				end = j
				break
			}
		}
	}
	s := strings.Join(strings.Fields(string(text[start:end])), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}

// lowerRunes lower-cases s rune by rune, so that indexes match those of []rune(s).
func lowerRunes(s string) []rune {
	r := []rune(s)
	for i, c := range r {
		r[i] = unicode.ToLower(c)
	}
	return r
}

func indexRunes(s, sub []rune) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if slices.Equal(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
