package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// testTimeout bounds every wait of a test: a loop that stalls fails instead of hanging.
const testTimeout = 30 * time.Second

// backend is one provider's fake server and our backend for it.
type backend struct {
	name  string
	start func(tb testing.TB, script fakellm.Script) (llm.Model, *fakellm.Server)
}

// backends are the wire formats every loop test runs against.
var backends = []backend{
	{"openai", startOpenAI},
	{"anthropic", startAnthropic},
	{"openai-responses", startOpenAIResponses},
}

// forEachBackend runs f once per provider.
func forEachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

func newStore(tb testing.TB) session.Store {
	s := session.NewMemory()
	tb.Cleanup(func() { s.Close() })
	return s
}

// newSession creates a session with history in store and returns its id.
func newSession(tb testing.TB, store session.Store, history ...llm.Message) string {
	tb.Helper()
	return newSessionID(tb, store, "s-"+strings.ReplaceAll(tb.Name(), "/", "-"), history...)
}

func newSessionID(tb testing.TB, store session.Store, id string, history ...llm.Message) string {
	tb.Helper()
	if err := store.Create(context.Background(), &session.Session{ID: id, Messages: history}); err != nil {
		tb.Fatal(err)
	}
	return id
}

func testCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	tb.Cleanup(cancel)
	return ctx
}

func history(tb testing.TB, store session.Store, id string) []llm.Message {
	tb.Helper()
	s, err := store.Get(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return s.Messages
}

// recorder keeps a turn's events.
type recorder struct {
	mu     sync.Mutex
	events []agent.Event
}

func (r *recorder) on(e agent.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) of(kind agent.EventKind) []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []agent.Event
	for _, e := range r.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// addTool registers a local tool with an open object schema.
func addTool(tb testing.TB, l *tool.Local, name string, h tool.Handler) {
	tb.Helper()
	if err := l.AddRaw(name, "test tool "+name, json.RawMessage(`{"type":"object"}`), h); err != nil {
		tb.Fatal(err)
	}
}

// toolMsgs returns the tool messages at the end of a request's conversation, with
// their texts as the agent made them (see resultText).
func toolMsgs(r fakellm.Request) []fakellm.Message {
	var out []fakellm.Message
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role == "tool"; i-- {
		out = append([]fakellm.Message{resultText(r.Messages[i])}, out...)
	}
	return out
}

// resultText undoes what OpenAI's wire format does to an error result: it has no
// error flag, so format.ResultMessage starts the text with "Error: ", which is how
// the fake knows IsError.
func resultText(m fakellm.Message) fakellm.Message {
	if m.Role == "tool" && m.IsError {
		m.Text = strings.TrimPrefix(m.Text, "Error: ")
	}
	return m
}

// httpConns are the goroutines of the HTTP connections between a model and its fake
// server, which the transport keeps for the next request: not the agent's.
var httpConns = []goleak.Option{
	goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
	goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
	goleak.IgnoreAnyFunction("net/http.(*conn).serve"),
}

func toolNames(r fakellm.Request) []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Name)
	}
	return names
}

func callIDs(msgs []fakellm.Message) []string {
	var ids []string
	for _, m := range msgs {
		ids = append(ids, m.CallID)
	}
	return ids
}

func storedCallIDs(msgs []llm.Message) []string {
	var ids []string
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			ids = append(ids, m.CallID)
		}
	}
	return ids
}
