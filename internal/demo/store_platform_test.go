package demo_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// TestNotesPutWhileFileOpen writes a note while another holder (here the test, in
// real use a second notes server reading the file) has the notes file open. On Unix
// the rename over an open file just works; on Windows it fails until the holder closes
// the file, so the write must wait for that rather than fail.
func TestNotesPutWhileFileOpen(t *testing.T) {
	file := newNotesFile(t)
	now := fixedNow
	cs := notesSession(t, file, &now)
	callOK[demo.PutNoteResult](t, cs, "put_note", map[string]any{"title": "first", "text": "creates the file"})

	reader, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "put_note",
			Arguments: map[string]any{"title": "second", "text": "while open"}})
		switch {
		case err != nil:
			done <- err.Error()
		case res.IsError:
			done <- resultText(res)
		default:
			done <- ""
		}
	}()
	var errText string
	select {
	case errText = <-done: // Unix: no need to wait for the reader
		reader.Close()
	case <-time.After(200 * time.Millisecond): // Windows: the write waits for the reader
		reader.Close()
		select {
		case errText = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("put_note still waiting 10s after the notes file was closed")
		}
	}
	if errText != "" {
		t.Fatalf("put_note while the notes file was open: %s", errText)
	}
	got, _ := callOK[demo.Note](t, cs, "get_note", map[string]any{"title": "second"})
	if got.Text != "while open" {
		t.Errorf("get_note = %+v", got)
	}
}
