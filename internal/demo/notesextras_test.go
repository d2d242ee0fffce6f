package demo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// The notes server's index, its notes as resources and review_notes, over a real
// session: what a newcomer's dashboard browses.
func TestNotesResourcesAndPrompt(t *testing.T) {
	ctx := context.Background()
	now := fixedNow
	cs := notesSession(t, newNotesFile(t), &now)

	read := func(uri string) (string, error) {
		t.Helper()
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri {
			t.Fatalf("read %s = %+v, want one content of that URI", uri, res.Contents)
		}
		return res.Contents[0].Text, nil
	}
	if text, err := read("notes://index"); err != nil || !strings.Contains(text, "No notes yet") {
		t.Errorf("empty index = %q, %v", text, err)
	}
	callOK[demo.PutNoteResult](t, cs, "put_note", map[string]any{"title": "trip / plan", "text": "book the train", "tags": []string{"todo"}})
	callOK[demo.PutNoteResult](t, cs, "put_note", map[string]any{"title": "shopping", "text": "milk"})

	index, err := read("notes://index")
	if err != nil {
		t.Fatal(err)
	}
	uri := demo.NoteURI("trip / plan")
	if uri != "notes://note/trip%20%2F%20plan" || !strings.Contains(index, "- trip / plan (2026-") || !strings.Contains(index, "[todo]: "+uri) {
		t.Errorf("index = %q (note URI %q)", index, uri)
	}
	if text, err := read(uri); err != nil || text != "book the train" {
		t.Errorf("read %s = %q, %v", uri, text, err)
	}
	if _, err := read(demo.NoteURI("missing")); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("a missing note's read: %v, want resource not found", err)
	}

	lists, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(lists.ResourceTemplates) != 1 || lists.ResourceTemplates[0].URITemplate != "notes://note/{title}" {
		t.Errorf("templates = %+v, %v", lists, err)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review_notes", Arguments: map[string]string{"topic": "train"}})
	if err != nil {
		t.Fatal(err)
	}
	text := p.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, `my notes about "train"`) || !strings.Contains(text, "## trip / plan [todo]\nbook the train") || strings.Contains(text, "milk") {
		t.Errorf("review_notes about train = %q", text)
	}
	p, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review_notes"})
	if err != nil {
		t.Fatal(err)
	}
	if text := p.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, "all my notes") || !strings.Contains(text, "milk") {
		t.Errorf("review_notes = %q", text)
	}
}
