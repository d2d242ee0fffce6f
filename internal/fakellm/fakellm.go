// Package fakellm runs fake model servers over real HTTP that speak the providers'
// published wire formats — OpenAI Chat Completions (openai.go), the OpenAI Responses
// API on the same server (responses.go) and Anthropic Messages (anthropic.go),
// streaming and not — so that the official SDK clients, and so
// Switchboard's llm backends, parse what they send. A hosted model cannot be reached
// from tests; these stand in for it on loopback, and `switchboard fake-llm` serves one
// from a shell.
//
// What the fake answers is a Script: a function from the request (decoded into the
// provider-neutral Request below) to a Reply. Queue answers a fixed list in order;
// Rules is a small deterministic "model" that a shell user can drive.
//
// The Anthropic fake also runs Anthropic's tool search on its side, as the real API
// does: a request's tools with "defer_loading": true are Request.Deferred, its tool
// search tool is Request.ToolSearch, and a Reply with Search answers with the
// search's server_tool_use and tool_search_tool_result blocks (a tool_reference per
// tool found by Request.SearchDeferred) before its tool calls. The Responses fake
// does the same with OpenAI's tool_search tool and its tool_search_call and
// tool_search_output items.
package fakellm

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Request is what the fake received, decoded from either wire format.
type Request struct {
	Model    string
	System   string
	Messages []Message
	Tools    []Tool // the tool definitions sent, in order (deferred ones and the search tool apart)
	// Deferred are the tools sent with "defer_loading": true (Anthropic, OpenAI
	// Responses): the model
	// sees one only once its tool search has found it (Message.Found).
	Deferred []Tool
	// ToolSearch is the name of the tool search tool the request offers
	// ("tool_search_tool_bm25" or "tool_search_tool_regex"; "tool_search" on the
	// Responses API, searched like BM25), empty when none.
	ToolSearch string
	MaxTokens  int
	// MaxTokensParam is the name MaxTokens came under: "max_completion_tokens" or
	// "max_tokens" (Chat Completions), "max_output_tokens" (Responses),
	// "max_tokens" (Anthropic); "" when the request set none.
	MaxTokensParam string
	// Format is the format the request asks the answer's text to take (structured
	// outputs, format.go); nil for text.
	Format *Format
	Stream bool
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
	// Found are the tools an assistant message's tool search found (Anthropic's
	// tool_reference blocks, the tools of a Responses tool_search_output), in order.
	Found []string
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
	// Search makes the model use the provider's tool search with this query
	// (Anthropic): the fake runs it over the request's Deferred tools, server side,
	// and the reply holds, after Text and before Calls, a server_tool_use block and a
	// tool_search_tool_result block with a tool_reference per tool found (an
	// invalid_tool_input error for a bad regular expression). A request without a
	// search tool gets an HTTP 500 instead, as does a Call of a deferred tool that
	// neither this search nor one in the history found: the real model can do
	// neither, so the script is wrong. The Responses fake answers likewise with
	// tool_search_call and tool_search_output items; Chat Completions, which has no
	// tool search, ignores it.
	Search string
}

// maxFound is how many tools one search finds at most (the API's "3-5 most
// relevant").
const maxFound = 5

// SearchDeferred runs query over the request's Deferred tools as the fake's tool
// search does, and returns the names found, best first. With the regex tool, query
// is a regular expression matched case-insensitively; with the BM25 tool (or none)
// it is words, and a tool matches by how many of them its name, description or
// schema contain (case-insensitively). An invalid expression finds nothing.
func (r Request) SearchDeferred(query string) []string {
	found, _ := r.searchDeferred(query)
	return found
}

// searchDeferred is SearchDeferred with the error the search result reports.
func (r Request) searchDeferred(query string) ([]string, error) {
	text := func(t Tool) string {
		return strings.ToLower(t.Name + "\n" + t.Description + "\n" + string(t.Schema))
	}
	var found []string
	if strings.HasPrefix(r.ToolSearch, "tool_search_tool_regex") {
		if len(query) > 200 {
			return nil, errors.New("pattern_too_long")
		}
		re, err := regexp.Compile("(?i)" + query)
		if err != nil {
			return nil, err
		}
		for _, t := range r.Deferred {
			if re.MatchString(text(t)) && len(found) < maxFound {
				found = append(found, t.Name)
			}
		}
		return found, nil
	}
	words := strings.FieldsFunc(strings.ToLower(query), func(c rune) bool {
		return !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '_' && c != '-'
	})
	type scored struct {
		name  string
		score int
	}
	var hits []scored
	for _, t := range r.Deferred {
		n, s := 0, text(t)
		for _, w := range words {
			if strings.Contains(s, w) {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, scored{t.Name, n})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	for _, h := range hits {
		if len(found) < maxFound {
			found = append(found, h.name)
		}
	}
	return found, nil
}

// loaded reports the tools the history's tool searches found.
func (r Request) loaded() map[string]bool {
	out := map[string]bool{}
	for _, m := range r.Messages {
		for _, n := range m.Found {
			out[n] = true
		}
	}
	return out
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

var (
	callRule   = regexp.MustCompile(`(?s)^\s*call\s+([A-Za-z0-9_.\-]+)\s*(\{.*\})?\s*$`)
	searchRule = regexp.MustCompile(`(?s)^\s*search\s+(.+?)\s*$`)
)

// Rules is a deterministic model for shells and demos:
//
//   - when the last message is the user's and reads "call TOOL {json}" (the JSON is
//     optional), it calls TOOL with those arguments; several such lines, separated by
//     newlines, make several calls in one step. A TOOL among the request's Deferred
//     tools that no earlier search found is searched for first, by its name, with the
//     provider's tool search (Reply.Search) in the same reply;
//   - when the request offers a tool search and the user's message reads
//     "search QUERY", it searches (Reply.Search) and calls the first tool found with
//     {}, or says that nothing matched;
//   - when the last messages are tool results, it answers with their texts, one line
//     each ("TOOL: text", errors as "TOOL failed: text");
//   - when the request asks for structured output (Request.Format) and the user's
//     message is a JSON object, it answers with that JSON, as a model following the
//     format would;
//   - otherwise it answers "You said: TEXT" and names the tools it was given.
func Rules() Script {
	return func(r Request) Reply {
		if len(r.Messages) == 0 {
			return Reply{Text: "Hello."}
		}
		last := r.Messages[len(r.Messages)-1]
		switch last.Role {
		case "user":
			if m := searchRule.FindStringSubmatch(last.Text); m != nil && r.ToolSearch != "" {
				found := r.SearchDeferred(m[1])
				if len(found) == 0 {
					return Reply{Search: m[1], Text: "No tool matches " + m[1] + "."}
				}
				return Reply{Search: m[1], Calls: []Call{{ID: callID(len(r.Messages), 0), Name: found[0], Arguments: "{}"}}}
			}
			var calls []Call
			var unfound []string // deferred tools called before any search found them
			deferred, loaded := map[string]bool{}, r.loaded()
			for _, t := range r.Deferred {
				deferred[t.Name] = true
			}
			for i, line := range strings.Split(strings.TrimSpace(last.Text), "\n") {
				m := callRule.FindStringSubmatch(line)
				if m == nil || len(r.Tools)+len(r.Deferred) == 0 {
					calls = nil
					break
				}
				args := m[2]
				if args == "" {
					args = "{}"
				}
				calls = append(calls, Call{ID: callID(len(r.Messages), i), Name: m[1], Arguments: args})
				if deferred[m[1]] && !loaded[m[1]] && r.ToolSearch != "" {
					unfound = append(unfound, m[1])
				}
			}
			if len(calls) > 0 {
				rep := Reply{Calls: calls}
				if len(unfound) > 0 {
					rep.Search = strings.Join(unfound, " ") // words for BM25
					if strings.HasPrefix(r.ToolSearch, "tool_search_tool_regex") {
						rep.Search = strings.Join(unfound, "|")
					}
				}
				return rep
			}
			if r.Format != nil && isJSONObject(last.Text) {
				return Reply{Text: strings.TrimSpace(last.Text)} // the JSON the format asks for
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

// isJSONObject reports whether s is one JSON object.
func isJSONObject(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") && json.Valid([]byte(s))
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
	idle map[net.Conn]struct{} // connections waiting for a request: new or kept alive
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
	s.idle = map[net.Conn]struct{}{}
	s.http.ConnState = func(c net.Conn, state http.ConnState) {
		s.mu.Lock()
		defer s.mu.Unlock()
		// A new connection waits for its first request as an idle one for its next:
		// a client's pool dials one for a request that another connection then takes,
		// and keeps it unused.
		if state == http.StateIdle || state == http.StateNew {
			s.idle[c] = struct{}{}
		} else {
			delete(s.idle, c)
		}
	}
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

// CloseIdleConnections closes the connections that wait for a client's next
// request, or its first, as a server's idle and header timeouts would: the client's
// pool drops them. A test that counts a client's goroutines calls it when no request
// is under way, so that the connections its pool happens to hold are not counted
// (a pool dials for a request that another connection then takes, and keeps the new
// one unused).
func (s *Server) CloseIdleConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.idle {
		c.Close()
		delete(s.idle, c)
	}
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
func start(tb TB, format string, newServer func(addr string, script Script) (*Server, error), script Script) *Server {
	tb.Helper()
	s, err := newServer("127.0.0.1:0", script)
	if err != nil {
		tb.Fatalf("fakellm: start the %s server: %v", format, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TB is the part of testing.TB the Start functions use. It is declared here so that
// this package does not import testing: `switchboard fake-llm` links it into the
// binary, and a binary that imports testing carries its flags and code.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}
