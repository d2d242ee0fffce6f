//go:build unix

package demo_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/demo"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// startChild runs this test binary as the demo server name (see TestMain) and
// connects an MCP client to it over its stdin/stdout.
func startChild(t *testing.T, name, notesFile string) (*mcp.ClientSession, *exec.Cmd, *testenv.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+name, demo.NotesFileEnv+"="+notesFile)
	stderr := &testenv.Buffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "demo-stdio-test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A long TerminateDuration: a child that only exits on SIGTERM fails the test
	// instead of being reaped quietly.
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 20 * time.Second}, nil)
	if err != nil {
		if cmd.Process != nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		t.Fatalf("connecting to child %s: %v\nstderr:\n%s", name, err, stderr)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil { // the test failed before closing the session
			cs.Close()
		}
	})
	return cs, cmd, stderr
}

// closeChild closes the session and checks that the child has exited by itself, with
// status 0.
func closeChild(t *testing.T, cs *mcp.ClientSession, cmd *exec.Cmd, stderr *testenv.Buffer) {
	t.Helper()
	start := time.Now()
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v\nstderr:\n%s", err, stderr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the child took %v to exit after stdin was closed", took)
	}
	ps := cmd.ProcessState
	if ps == nil {
		t.Fatal("the child was not waited for: it may be orphaned")
	}
	if !ps.Exited() || ps.ExitCode() != 0 {
		t.Errorf("child ended with %v, want exit status 0\nstderr:\n%s", ps, stderr)
	}
	if err := syscall.Kill(ps.Pid(), 0); err == nil {
		t.Errorf("process %d still exists", ps.Pid())
	}
}

func TestStdioChild(t *testing.T) {
	tests := []struct {
		server   string
		tools    []string
		tool     string
		args     map[string]any
		wantText string
	}{
		{
			server:   "clock",
			tools:    []string{"add_duration", "convert_time", "current_time"},
			tool:     "convert_time",
			args:     map[string]any{"time": "2026-11-21T08:56:31Z", "to": "Europe/Paris"},
			wantText: "2026-11-21T09:56:31+01:00 (Europe/Paris, Saturday)",
		},
		{
			server:   "notes",
			tools:    []string{"delete_note", "get_note", "list_notes", "put_note", "search_notes"},
			tool:     "put_note",
			args:     map[string]any{"title": "over stdio", "text": "written by a child process"},
			wantText: `Created note "over stdio".`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			t.Parallel()
			notesFile := filepath.Join(t.TempDir(), "notes.json")
			cs, cmd, stderr := startChild(t, tt.server, notesFile)

			if got := cs.InitializeResult().ServerInfo.Name; got != "switchboard-demo-"+tt.server {
				t.Errorf("server name %q", got)
			}
			if got := toolNames(t, cs); !slices.Equal(sorted(got), tt.tools) {
				t.Errorf("tools = %q, want %q", got, tt.tools)
			}
			_, text := callOK[map[string]any](t, cs, tt.tool, tt.args)
			if text != tt.wantText {
				t.Errorf("%s text = %q, want %q", tt.tool, text, tt.wantText)
			}
			closeChild(t, cs, cmd, stderr)

			if tt.server == "notes" {
				// The child wrote the file named by $SWITCHBOARD_NOTES_FILE; an
				// in-process server on the same file reads the note.
				in := connect(t, "notes", &demo.Options{NotesFile: notesFile})
				got, _ := callOK[demo.Note](t, in, "get_note", map[string]any{"title": "over stdio"})
				if got.Text != "written by a child process" {
					t.Errorf("note written by the child: %+v", got)
				}
			}
		})
	}
}

// TestStdioChildTerminated checks that a child stops cleanly, and promptly, on SIGTERM
// (Run's context is cancelled) while a client is still connected.
func TestStdioChildTerminated(t *testing.T) {
	cs, cmd, stderr := startChild(t, "clock", filepath.Join(t.TempDir(), "notes.json"))
	callOK[demo.TimeResult](t, cs, "current_time", nil)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cs.Wait() }()
	select {
	case <-done: // the child closed its stdout
	case <-time.After(10 * time.Second):
		t.Errorf("the child did not stop within 10s of SIGTERM\nstderr:\n%s", stderr)
	}
	closeChild(t, cs, cmd, stderr)
	if s := stderr.String(); strings.TrimSpace(s) != "" {
		t.Errorf("child stderr: %s", s)
	}
}

// TestStdioChildrenShareNotes races put_note calls from two server processes on one
// notes file: the flock on "<file>.lock" must keep every note.
func TestStdioChildrenShareNotes(t *testing.T) {
	const perChild = 10
	notesFile := filepath.Join(t.TempDir(), "notes.json")
	type child struct {
		cs     *mcp.ClientSession
		cmd    *exec.Cmd
		stderr *testenv.Buffer
	}
	var children []child
	for range 2 {
		cs, cmd, stderr := startChild(t, "notes", notesFile)
		children = append(children, child{cs, cmd, stderr})
	}
	var wg sync.WaitGroup
	for c, ch := range children {
		for i := range perChild {
			wg.Go(func() {
				res, text := call(t, ch.cs, "put_note", map[string]any{
					"title": "child " + string(rune('A'+c)) + " note " + string(rune('a'+i)), "text": "x",
				})
				if res.IsError {
					t.Errorf("put_note: %s", text)
				}
			})
		}
	}
	wg.Wait()
	list, _ := callOK[demo.ListNotesResult](t, children[1].cs, "list_notes", nil)
	if len(list.Notes) != len(children)*perChild {
		t.Errorf("%d notes after %d concurrent puts from %d processes", len(list.Notes), len(children)*perChild, len(children))
	}
	for _, ch := range children {
		closeChild(t, ch.cs, ch.cmd, ch.stderr)
	}
}
