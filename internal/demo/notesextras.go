package demo

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The notes server's resources and prompt, so that a newcomer's dashboard has
// something to browse: the notebook's index (notes://index), each note by its title
// (notes://note/{title}, the title escaped as a URL path segment), and review_notes,
// a prompt that hands the model the notes on a topic.

// NoteURI is the resource URI of the note called title.
func NoteURI(title string) string { return "notes://note/" + url.PathEscape(title) }

func addNotesExtras(s *mcp.Server, st *noteStore) {
	s.AddResource(&mcp.Resource{
		URI:         "notes://index",
		Name:        "index",
		Title:       "Notebook index",
		Description: "Every note's title, tags and last change, one a line, with its resource URI.",
		MIMEType:    "text/markdown",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		nb, err := st.load()
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		b.WriteString("# Notes\n\n")
		notes := sortedNotes(nb.notes)
		if len(notes) == 0 {
			b.WriteString("No notes yet: put_note saves one.\n")
		}
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s (%s)%s: %s\n", n.Title, formatTime(n.Updated), tagList(n.Tags), NoteURI(n.Title))
		}
		return textResource(req.Params.URI, "text/markdown", b.String()), nil
	})

	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "notes://note/{title}",
		Name:        "note",
		Title:       "A note",
		Description: "One note's text, by its exact title.",
		MIMEType:    "text/plain",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		escaped, ok := strings.CutPrefix(uri, "notes://note/")
		title, err := url.PathUnescape(escaped)
		if !ok || err != nil || title == "" {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		nb, err := st.load()
		if err != nil {
			return nil, err
		}
		n, err := nb.find(title)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return textResource(uri, "text/plain", n.Text), nil
	})

	s.AddPrompt(&mcp.Prompt{
		Name:        "review_notes",
		Title:       "Review notes",
		Description: "Asks the model to review the notes on a topic (every note without one) and suggest what to do next.",
		Arguments: []*mcp.PromptArgument{
			{Name: "topic", Description: "words to look for in titles, text and tags; empty for every note"},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		topic := strings.TrimSpace(req.Params.Arguments["topic"])
		nb, err := st.load()
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		found := 0
		for _, n := range sortedNotes(nb.notes) {
			if _, ok := n.match(topic); topic != "" && !ok {
				continue
			}
			found++
			fmt.Fprintf(&b, "\n## %s%s\n%s\n", n.Title, tagList(n.Tags), n.Text)
		}
		about := "all my notes"
		if topic != "" {
			about = fmt.Sprintf("my notes about %q", topic)
		}
		text := fmt.Sprintf("Review %s and suggest what to do next.\n", about)
		if found == 0 {
			text += "\n(There are none yet.)\n"
		}
		return &mcp.GetPromptResult{
			Description: "Review " + about,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text + b.String()}}},
		}, nil
	})
}

func textResource(uri, mime, text string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}
}

func tagList(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return " [" + strings.Join(tags, ", ") + "]"
}
