// Package fakellm runs fake model servers over real HTTP that speak the providers'
// published wire formats — OpenAI Chat Completions (openai.go) and Anthropic Messages
// (anthropic.go), streaming and not — so that the official SDK clients, and so
// Switchboard's llm backends, parse what they send. A hosted model cannot be reached
// from tests; these stand in for it on loopback, and `switchboard fake-llm` serves one
// from a shell.
//
// What the fake answers is a Script: a function from the request (decoded into the
// provider-neutral Request below) to a Reply. Queue answers a fixed list in order;
// Rules is a small deterministic "model" that a shell user can drive.
package fakellm

import (
	"encoding/json"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is what the fake received, decoded from either wire format.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []Tool // the tool definitions sent, in order
	MaxTokens int
	Stream    bool
	// Header is the HTTP request's header (Authorization / x-api-key included: tests
	// check what was sent, so keep them out of logs).
	Header http.Header
	// Raw is the request body as sent.
	Raw json.RawMessage
}

// Message is one message of a request's conversation.
type Message struct {
	Role  string // "user", "assistant", "tool"
	Text  string
	Calls []Call // an assistant message's tool calls
	// A tool result: the call it answers, its text, and whether it is an error.
	CallID  string
	IsError bool
}

// Tool is one tool definition of a request.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

// Call is a tool call, in a reply or in a request's history.
type Call struct {
	ID        string
	Name      string
	Arguments string // JSON text, sent as is (it may be malformed on purpose)
}

// Reply is the fake model's answer to one request.
type Reply struct {
	Text  string
	Calls []Call
	// Stop overrides the stop reason the wire format gets (by default: tool calls
	// when there are Calls, else the end of the answer). "max_tokens" is understood by
	// both formats.
	Stop string
	// Usage reported; zero means counted from the sizes of the request and reply.
	InputTokens, OutputTokens int64
	// Status, when not 0 or 200, answers with that HTTP status and the provider's
	// error body carrying ErrorMessage instead of a reply.
	Status       int
	ErrorMessage string
	// Delay waits this long before answering (bounded by the request's context).
	Delay time.Duration
	// Chunks splits streamed text and arguments into pieces of at most this many
	// bytes (default 8), so that clients see real deltas.
	Chunks int
}

// Script decides the reply to each request.
type Script func(Request) Reply

// Queue answers the replies in order; past the end it answers with an HTTP 500 that
// says the script ran out (a test that gets it asked the model more than it meant to).
func Queue(replies ...Reply) Script {
	var mu sync.Mutex
	next := 0
	return func(Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(replies) {
			return Reply{Status: http.StatusInternalServerError, ErrorMessage: "fakellm: the script has no more replies"}
		}
		next++
		return replies[next-1]
	}
}

var callRule = regexp.MustCompile(`(?s)^\s*call\s+([A-Za-z0-9_.\-]+)\s*(\{.*\})?\s*$`)

// Rules is a deterministic model for shells and demos:
//
//   - when the last message is the user's and reads "call TOOL {json}" (the JSON is
//     optional), it calls TOOL with those arguments; several such lines, separated by
//     newlines, make several calls in one step;
//   - when the last messages are tool results, it answers with their texts, one line
//     each ("TOOL: text", errors as "TOOL failed: text");
//   - otherwise it answers "You said: TEXT" and names the tools it was given.
func Rules() Script {
	return func(r Request) Reply {
		if len(r.Messages) == 0 {
			return Reply{Text: "Hello."}
		}
		last := r.Messages[len(r.Messages)-1]
		switch last.Role {
		case "user":
			var calls []Call
			for i, line := range strings.Split(strings.TrimSpace(last.Text), "\n") {
				m := callRule.FindStringSubmatch(line)
				if m == nil || len(r.Tools) == 0 {
					calls = nil
					break
				}
				args := m[2]
				if args == "" {
					args = "{}"
				}
				calls = append(calls, Call{ID: callID(len(r.Messages), i), Name: m[1], Arguments: args})
			}
			if len(calls) > 0 {
				return Reply{Calls: calls}
			}
			names := make([]string, len(r.Tools))
			for i, t := range r.Tools {
				names[i] = t.Name
			}
			text := "You said: " + last.Text
			if len(names) > 0 {
				text += "\nTools I can call: " + strings.Join(names, ", ")
			}
			return Reply{Text: text}
		case "tool":
			names := map[string]string{}
			for _, m := range r.Messages {
				for _, c := range m.Calls {
					names[c.ID] = c.Name
				}
			}
			var lines []string
			for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role == "tool"; i-- {
				m := r.Messages[i]
				verb := ": "
				if m.IsError {
					verb = " failed: "
				}
				lines = append([]string{names[m.CallID] + verb + m.Text}, lines...)
			}
			return Reply{Text: strings.Join(lines, "\n")}
		}
		return Reply{Text: "You said: " + last.Text}
	}
}

func callID(step, i int) string {
	return "call_" + strconv.Itoa(step) + "_" + strconv.Itoa(i)
}

// Server is a fake model server listening on loopback. NewOpenAI and NewAnthropic
// make one; Close stops it and waits for its requests to end.
type Server struct {
	// URL is the base URL a client is given: http://127.0.0.1:PORT/v1 for OpenAI
	// (the SDK appends /chat/completions), http://127.0.0.1:PORT for Anthropic (the
	// SDK appends /v1/messages).
	URL    string
	script Script
	http   *http.Server
	done   chan struct{}
	// handlers counts requests being answered: http.Server.Close does not wait for them.
	handlers sync.WaitGroup

	mu   sync.Mutex
	reqs []Request
}

// serve starts a Server on addr ("127.0.0.1:0" for a free port) with h, the
// provider's handler; base is the path clients put after the host.
func serve(addr, base string, script Script, h func(*Server) http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String() + base, script: script, done: make(chan struct{})}
	inner := h(s)
	s.http = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.handlers.Add(1)
		defer s.handlers.Done()
		inner.ServeHTTP(w, r)
	})}
	go func() {
		defer close(s.done)
		s.http.Serve(ln)
	}()
	return s, nil
}

// reply records r and asks the script for the answer.
func (s *Server) reply(r Request) Reply {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
	return s.script(r)
}

// Requests returns what the server has received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Close stops the server: requests under way are cut (their streams end, and their
// contexts are done), and Close returns once every handler and the serving goroutine
// have.
func (s *Server) Close() error {
	err := s.http.Close()
	<-s.done
	s.handlers.Wait()
	return err
}

// start starts a fake server of one wire format (newServer) on a free loopback port
// for the test, and closes it when the test ends.
func start(tb testing.TB, format string, newServer func(addr string, script Script) (*Server, error), script Script) *Server {
	tb.Helper()
	s, err := newServer("127.0.0.1:0", script)
	if err != nil {
		tb.Fatalf("fakellm: start the %s server: %v", format, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
