package conversation_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/llm/openai"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// setup is a Runner over an agent with the local tools "rm" (which needs approval)
// and "ls", a fake model that answers replies in order, and a memory store with the
// session "s1" owned by "alice".
type setup struct {
	runner *conversation.Runner
	store  session.Store
	calls  *callLog
}

type callLog struct {
	mu    sync.Mutex
	calls []conversation.Call
}

func (l *callLog) record(c conversation.Call) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
}

func (l *callLog) all() []conversation.Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]conversation.Call(nil), l.calls...)
}

func newSetup(t *testing.T, opts conversation.Options, replies ...fakellm.Reply) *setup {
	t.Helper()
	local := tool.NewLocal()
	for _, name := range []string{"rm", "ls"} {
		if err := local.AddRaw(name, "test tool "+name, json.RawMessage(`{"type":"object"}`),
			func(context.Context, json.RawMessage) (*tool.Result, error) {
				return tool.TextResult(name + " ran"), nil
			}); err != nil {
			t.Fatal(err)
		}
	}
	srv := fakellm.StartOpenAI(t, fakellm.Queue(replies...))
	model, err := openai.New("test", &openai.Options{BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	store := session.NewMemory()
	t.Cleanup(func() { store.Close() })
	if err := store.Create(context.Background(), &session.Session{ID: "s1", Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	s := &setup{store: store, calls: &callLog{}}
	opts.NeedsApproval = func(c agent.Call) bool { return c.Name == "rm" }
	s.runner = conversation.New(agent.New(model, store, &agent.Options{Tools: local}), &opts)
	return s
}

func as(subject string) context.Context {
	return identity.NewContext(context.Background(), identity.Person{Subject: subject})
}

// until reads t's events up to the first of kind.
func until(t *testing.T, turn *conversation.Turn, kind conversation.EventKind) conversation.Event {
	t.Helper()
	for e := range turn.Events() {
		if e.Kind == kind {
			return e
		}
	}
	t.Fatalf("the turn ended without a %s event", kind)
	return conversation.Event{}
}

// TestDecideBySession: a call that the policy says needs approval waits in the
// stream and in Busy; only the session's owner decides it by session id; a denial
// without a reason tells the model the user declined; the calls are recorded with
// their server, owner and source; once the turn is over nothing is busy.
func TestDecideBySession(t *testing.T) {
	t.Parallel()
	s := newSetup(t, conversation.Options{},
		fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "rm", Arguments: `{"path":"/tmp/x"}`}}},
		fakellm.Reply{Calls: []fakellm.Call{{ID: "c2", Name: "rm", Arguments: `{}`}, {ID: "c3", Name: "ls", Arguments: `{}`}}},
		fakellm.Reply{Text: "Done."})
	turn := s.runner.Start(context.Background(), &conversation.Request{Session: "s1", User: "clean up", Owner: "alice", Source: "session",
		Observer: &conversation.Observer{OnCall: s.calls.record}})
	e := until(t, turn, conversation.ApprovalRequired)
	if e.Approval.CallID != "c1" || e.Approval.Server != tool.LocalServer || string(e.Approval.Arguments) != `{"path":"/tmp/x"}` || e.Approval.Timeout != conversation.DefaultApprovalTimeout {
		t.Fatalf("approval %+v", e.Approval)
	}
	if busy, approvals, _ := s.runner.Busy("s1"); !busy || len(approvals) != 1 || approvals[0].CallID != "c1" || s.runner.Active() != 1 {
		t.Fatalf("busy %v, approvals %+v, active %d", busy, approvals, s.runner.Active())
	}
	if _, err := s.runner.Decide(as("bob"), "s1", "c1", true, ""); !errors.Is(err, conversation.ErrNotWaiting) {
		t.Fatalf("bob decided alice's call: %v", err)
	}
	if _, err := s.runner.Decide(as("alice"), "s1", "c1", true, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.runner.Decide(as("alice"), "s1", "c1", true, ""); !errors.Is(err, conversation.ErrNotWaiting) {
		t.Fatalf("a call decided twice: %v", err)
	}
	e = until(t, turn, conversation.ApprovalRequired)
	if _, err := turn.Decide(e.CallID, false, ""); err != nil {
		t.Fatal(err)
	}
	res, err := turn.Wait()
	if err != nil || res.Answer != "Done." {
		t.Fatalf("%+v, %v", res, err)
	}
	if got := res.Steps[1].Results[0].Result; !got.IsError || tool.Text(got) != `the call to "rm" was denied: the user declined the call to rm` {
		t.Fatalf("denied call's result %q", tool.Text(got))
	}
	if busy, _, _ := s.runner.Busy("s1"); busy || s.runner.Active() != 0 {
		t.Fatal("busy after the turn")
	}
	calls := s.calls.all()
	if len(calls) != 3 {
		t.Fatalf("calls %+v", calls)
	}
	for _, c := range calls {
		if c.Server != tool.LocalServer || c.Owner != "alice" || c.Source != "session" || c.Session != "s1" {
			t.Errorf("call %+v", c)
		}
	}
}

// TestApprovalTimeout: a call nobody decides within ApprovalTimeout is denied,
// saying so.
func TestApprovalTimeout(t *testing.T) {
	t.Parallel()
	s := newSetup(t, conversation.Options{ApprovalTimeout: 50 * time.Millisecond},
		fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "rm", Arguments: `{}`}}}, fakellm.Reply{Text: "Oh well."})
	res, err := s.runner.Run(context.Background(), &conversation.Request{Session: "s1", User: "rm it"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tool.Text(res.Steps[0].Results[0].Result); got != `the call to "rm" was denied: nobody approved the call to rm within 50ms` {
		t.Fatalf("result %q", got)
	}
}

// TestUnattendedInMemory: a turn over a conversation held in memory, which nobody
// watches: the call that needs approval is refused with the front end's reason, the
// other runs, the conversation grows in place, and the store keeps no session of it.
func TestUnattendedInMemory(t *testing.T) {
	t.Parallel()
	s := newSetup(t, conversation.Options{},
		fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "rm", Arguments: `{}`}, {ID: "c2", Name: "ls", Arguments: `{}`}}},
		fakellm.Reply{Text: "Listed."})
	sess := &session.Session{Messages: []llm.Message{{Role: llm.RoleUser, Text: "tidy"}}}
	res, err := s.runner.Run(context.Background(), &conversation.Request{Session: "chat-1", InMemory: sess, Source: "chat",
		Unattended: &conversation.Unattended{Refuse: func(name string) string { return "nobody here approves " + name }}})
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	for _, m := range res.Steps[0].Results {
		results[m.Name] = tool.Text(m.Result)
	}
	if results["rm"] != `the call to "rm" was denied: nobody here approves rm` || results["ls"] != "ls ran" {
		t.Fatalf("results %v", results)
	}
	if len(sess.Messages) != 5 || !strings.Contains(sess.Messages[4].Text, "Listed.") {
		t.Fatalf("conversation %+v", sess.Messages)
	}
	if list, _ := s.store.List(context.Background()); len(list) != 1 {
		t.Fatalf("the store has %d sessions", len(list))
	}
	if busy, _, _ := s.runner.Busy("chat-1"); busy {
		t.Fatal("an unattended turn is listed as a session's")
	}
}

// TestObserver: a turn's own Observer sees its events, its calls and its end;
// another turn's does not.
func TestObserver(t *testing.T) {
	t.Parallel()
	s := newSetup(t, conversation.Options{},
		fakellm.Reply{Calls: []fakellm.Call{{ID: "c1", Name: "ls", Arguments: `{}`}}}, fakellm.Reply{Text: "Listed."},
		fakellm.Reply{Text: "Hi."})
	var mu sync.Mutex
	var kinds []conversation.EventKind
	var calls []conversation.Call
	ends := 0
	obs := &conversation.Observer{
		OnEvent: func(e conversation.Event) { mu.Lock(); kinds = append(kinds, e.Kind); mu.Unlock() },
		OnCall:  func(c conversation.Call) { mu.Lock(); calls = append(calls, c); mu.Unlock() },
		OnEnd:   func(err error) { mu.Lock(); ends++; mu.Unlock(); _ = err },
	}
	if _, err := s.runner.Run(context.Background(), &conversation.Request{Session: "s1", User: "ls", Owner: "alice", Source: "session", Observer: obs}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.runner.Run(context.Background(), &conversation.Request{Session: "s1", User: "hello"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if ends != 1 || len(calls) != 1 || calls[0].Tool != "ls" || calls[0].Owner != "alice" || calls[0].Server != tool.LocalServer {
		t.Fatalf("ends %d, calls %+v", ends, calls)
	}
	seen := map[conversation.EventKind]bool{}
	for _, k := range kinds {
		seen[k] = true
	}
	if !seen[conversation.TextDelta] || !seen[conversation.ToolFinished] {
		t.Fatalf("events %v", kinds)
	}
}
