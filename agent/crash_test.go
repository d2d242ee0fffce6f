package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/session/sqlite"
	"github.com/switchboard-mcp/switchboard/tool"
)

// The environment of crashChild: the session file, and the fake model's base URL.
const (
	crashDBEnv    = "AGENT_TEST_CRASH_DB"
	crashModelEnv = "AGENT_TEST_CRASH_MODEL"
	crashSession  = "crashed"
	crashExit     = 3
)

// crashChild runs in a child process (TestMain): a turn on the SQLite session whose
// tool "die" ends the process once the other call's result is stored, as a crash
// would, mid-step. It returns the exit code when the turn did not crash.
func crashChild(db, modelURL string) int {
	store, err := sqlite.Open(db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	model, err := openai.New("fake-gpt", &openai.Options{BaseURL: modelURL, MaxRetries: -1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	local := tool.NewLocal()
	local.AddRaw("quick", "", json.RawMessage(`{"type":"object"}`), func(context.Context, json.RawMessage) (*tool.Result, error) {
		return tool.TextResult("quick done"), nil
	})
	local.AddRaw("die", "", json.RawMessage(`{"type":"object"}`), func(ctx context.Context, _ json.RawMessage) (*tool.Result, error) {
		for ctx.Err() == nil {
			if s, err := store.Get(ctx, crashSession); err == nil && len(storedCallIDs(s.Messages)) == 1 {
				os.Exit(crashExit) // no deferred function runs, no store is closed
			}
			time.Sleep(10 * time.Millisecond)
		}
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	a := agent.New(model, store, &agent.Options{Tools: local})
	_, err = a.Run(ctx, crashSession, "do both")
	fmt.Fprintln(os.Stderr, "the turn did not crash:", err)
	return 1
}

// TestCrashMidStepRepaired: a process dies mid-step, with one call's result stored
// in SQLite and the other call under way. The next turn, in another process, finds
// the user's message, the model's calls and the stored result, answers the lost call
// with InterruptedText before the new message, and the provider gets a history it
// accepts.
func TestCrashMidStepRepaired(t *testing.T) {
	t.Parallel()
	srv := fakellm.StartOpenAI(t, fakellm.Queue(
		fakellm.Reply{Calls: []fakellm.Call{
			{ID: "call_die", Name: "die", Arguments: `{}`},
			{ID: "call_quick", Name: "quick", Arguments: `{}`},
		}},
		fakellm.Reply{Text: "The first call was lost; the second said quick done."},
	))
	db := filepath.Join(t.TempDir(), "sessions.db")
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	newSessionID(t, store, crashSession)
	store.Close()

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), crashDBEnv+"="+db, crashModelEnv+"="+srv.URL)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != crashExit {
		t.Fatalf("the child: %v, want exit status %d; output:\n%s", err, crashExit, out)
	}

	store, err = sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	model, err := openai.New("fake-gpt", &openai.Options{BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(model, store, &agent.Options{Tools: tool.NewLocal()})
	if _, err := a.Run(testCtx(t), crashSession, "what happened?"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range srv.Requests()[1].Messages {
		m = resultText(m)
		got = append(got, fmt.Sprintf("%s:%s:%s:%v", m.Role, m.CallID, m.Text, m.IsError))
	}
	want := []string{"user::do both:false", "assistant:::false",
		"tool:call_die:" + agent.InterruptedText + ":true", "tool:call_quick:quick done:false",
		"user::what happened?:false"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the request after the crash:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s, err := store.Get(context.Background(), crashSession)
	if err != nil {
		t.Fatal(err)
	}
	if ids := storedCallIDs(s.Messages); !reflect.DeepEqual(ids, []string{"call_quick", "call_die"}) {
		t.Errorf("stored results %v, want the one stored before the crash, then the repair", ids)
	}
	if last := s.Messages[len(s.Messages)-1]; last.Role != llm.RoleAssistant || !strings.HasPrefix(last.Text, "The first call was lost") {
		t.Errorf("the last stored message: %+v", last)
	}
}
