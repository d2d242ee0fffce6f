package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/agent"
)

// A server may ask the person a question in the middle of a tool call
// (elicitation/create, MCP 2025-11-25): a form to fill in, or a URL to open. During a
// session's turn the question reaches the person the way a call that needs approval
// does: the turn's stream sends input_required, GET /v1/sessions/{id} lists it under
// "inputs", and POST /v1/sessions/{id}/inputs/{request_id} answers it; nobody
// answering within InputTimeout (or the call's own time) cancels it. A chat
// completion has nobody to ask: its questions are declined, and the model told.

// DefaultInputTimeout bounds how long a turn waits for a person to answer a server's
// question over the HTTP API unless Options say otherwise; past it the question is
// cancelled. The call that caused it has its own bound too (the server's
// toolTimeout), and the shorter one holds. Switchboard's own, as
// DefaultApprovalTimeout.
const DefaultInputTimeout = 5 * time.Minute

// input is a server's question that waits for the person.
type input struct {
	pending pendingInput
	// fields are the form's fields, resolved (form mode); required the names it requires.
	fields   map[string]*jsonschema.Resolved
	defaults map[string]any
	required []string
	answer   chan *mcp.ElicitResult // buffered: one answer
}

// pendingInput is a question as input_required and GET /v1/sessions/{id} show it.
type pendingInput struct {
	RequestID string `json:"requestId"`
	Server    string `json:"server"`
	// Mode is "form" (Schema: the fields to fill in) or "url" (URL: to open).
	Mode      string          `json:"mode"`
	Message   string          `json:"message"`
	Schema    json.RawMessage `json:"schema,omitempty"`
	URL       string          `json:"url,omitempty"`
	TimeoutMs int64           `json:"timeoutMs"`
	// CallID is the turn's call during which the server asked.
	CallID string    `json:"callId,omitempty"`
	Since  time.Time `json:"since"`
}

// newInput reads a server's question; why says why it cannot be put to anyone: a URL
// that is not a web address, a form whose schema is not one.
func newInput(e agent.Elicitation) (in *input, why string) {
	p := e.Params
	in = &input{answer: make(chan *mcp.ElicitResult, 1), pending: pendingInput{
		RequestID: "in_" + randomHex(8), Server: e.Server, Mode: p.Mode, Message: p.Message, CallID: e.CallID, Since: time.Now(),
	}}
	switch p.Mode {
	case "url":
		// Only a web address becomes a link: "Clients implementing URL mode
		// elicitation MUST handle URLs carefully to prevent users from unknowingly
		// clicking malicious links" (a javascript: URL would run in the dashboard).
		u, err := url.Parse(p.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, "the URL to open is not an http(s) address"
		}
		in.pending.URL = p.URL
		return in, ""
	case "form":
	default:
		return nil, fmt.Sprintf("mode %q is neither form nor url", p.Mode)
	}
	if p.RequestedSchema == nil {
		in.pending.Schema = json.RawMessage(`{"type":"object","properties":{}}`)
		return in, ""
	}
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return nil, "its form cannot be read: " + err.Error()
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, "its form is not a JSON schema: " + err.Error()
	}
	if schema.Type != "" && schema.Type != "object" {
		return nil, fmt.Sprintf("its form is of type %q, not an object", schema.Type)
	}
	in.pending.Schema = raw
	in.fields, in.defaults, in.required = map[string]*jsonschema.Resolved{}, map[string]any{}, schema.Required
	for name, prop := range schema.Properties {
		if prop == nil {
			continue
		}
		rs, err := prop.Resolve(nil)
		if err != nil {
			return nil, fmt.Sprintf("its field %q is not a JSON schema: %v", name, err)
		}
		in.fields[name] = rs
		var d any
		if prop.Default != nil && json.Unmarshal(prop.Default, &d) == nil {
			in.defaults[name] = d
		}
	}
	return in, ""
}

// content checks a form's answer against the form: every field the form has, of its
// type and within its bounds, the required ones present. The defaults fill the fields
// left out ("All primitive types support optional default values", SEP-1034). The
// error names each field that is wrong.
func (in *input) content(raw json.RawMessage) (map[string]any, error) {
	content := map[string]any{}
	if t := strings.TrimSpace(string(raw)); t != "" && t != "null" {
		if err := json.Unmarshal(raw, &content); err != nil || content == nil {
			return nil, errors.New(`"content": want an object with the form's fields`)
		}
	}
	for name, d := range in.defaults {
		if _, ok := content[name]; !ok {
			content[name] = d
		}
	}
	var problems []string
	for name, v := range content {
		rs, ok := in.fields[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%q: the form has no such field (its fields: %s)", "content."+name, strings.Join(in.fieldNames(), ", ")))
			continue
		}
		if err := rs.Validate(v); err != nil {
			problems = append(problems, fmt.Sprintf("%q: %s", "content."+name, tidyNumbers(strings.TrimPrefix(err.Error(), "validating root: "))))
		}
	}
	for _, name := range in.required {
		if _, ok := content[name]; !ok {
			problems = append(problems, fmt.Sprintf("%q: required", "content."+name))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return content, nil
}

// The schema library writes the numbers of its messages as fractions and with six
// decimals ("99/1 is greater than 10.000000"); a person reads "99" and "10".
var (
	wholeFraction = regexp.MustCompile(`\b(-?\d+)/1\b`)
	zeroDecimals  = regexp.MustCompile(`\b(\d+)\.0+\b`)
	trailingZeros = regexp.MustCompile(`\b(\d+\.\d*?[1-9])0+\b`)
)

func tidyNumbers(msg string) string {
	msg = wholeFraction.ReplaceAllString(msg, "$1")
	msg = zeroDecimals.ReplaceAllString(msg, "$1")
	return trailingZeros.ReplaceAllString(msg, "$1")
}

func (in *input) fieldNames() []string {
	names := make([]string, 0, len(in.fields))
	for n := range in.fields {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// askPerson is a session turn's Eliciter: the question is announced on the turn's
// stream (q, when streamed: input_required) and listed by GET /v1/sessions/{id}; the
// call waits for POST /v1/sessions/{id}/inputs/{request_id}, at most InputTimeout
// and while the call lasts; then the stream says the question is closed
// (input_closed).
func (s *Server) askPerson(ctx context.Context, e agent.Elicitation, q *turnQueue) agent.ElicitReply {
	log := s.log.With("session", e.Session, "server", e.Server, "call_id", e.CallID, "mode", e.Params.Mode)
	in, why := newInput(e)
	if in == nil {
		log.Info("a server's question declined: " + why)
		return agent.ElicitReply{Result: &mcp.ElicitResult{Action: "decline"},
			Note: fmt.Sprintf("server %s asked the user a question that Switchboard cannot show (%s); it was declined", e.Server, why)}
	}
	timeout := s.opts.InputTimeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < timeout {
		timeout = time.Until(d)
	}
	in.pending.TimeoutMs = timeout.Milliseconds()
	defer s.turns.ask(e.Session, in)()
	log = log.With("request_id", in.pending.RequestID)
	log.Info("a server's question waits for the person")
	if q != nil {
		q.push("input_required", in.pending)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	reply := agent.ElicitReply{Result: &mcp.ElicitResult{Action: "cancel"}}
	select {
	case res := <-in.answer:
		reply.Result = res
		log.Info("the person answered the server's question", "action", res.Action)
	case <-timer.C:
		log.Info("a server's question not answered in time")
		reply.Note = fmt.Sprintf("nobody answered server %s's question within %s; it was cancelled", e.Server, timeout.Round(time.Millisecond))
	case <-ctx.Done(): // the call ended (the turn, the call's time)
	}
	if q != nil {
		q.push("input_closed", map[string]any{"requestId": in.pending.RequestID, "action": reply.Result.Action})
	}
	return reply
}

// declineUnattended answers a chat completion's questions: nobody can be asked
// through the Chat Completions API, so the server is declined and the model told
// where a person could answer.
func declineUnattended(ctx context.Context, e agent.Elicitation) agent.ElicitReply {
	return agent.ElicitReply{Result: &mcp.ElicitResult{Action: "decline"},
		Note: fmt.Sprintf("server %s asked the user %q during this call, which %s cannot ask (there is nobody to answer); it was declined (a session, POST /v1/sessions, can ask the user)",
			e.Server, e.Params.Message, unattendedPath(ctx))}
}

// answerInput takes a person's answer to a server's question: {"action": "accept",
// "content": {...}} (the form's fields; a URL-mode question takes none), or
// {"action": "decline"} or "cancel". A form's content that does not fit it is a 400
// naming each field wrong, and the question still waits.
func (s *Server) answerInput(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if e := s.decodeBody(w, r, &body, false); e != nil {
		writeAPIError(w, r, e)
		return
	}
	switch body.Action {
	case "accept", "decline", "cancel":
	case "":
		writeError(w, r, http.StatusBadRequest, "bad_request", `"action": required ("accept", "decline" or "cancel")`)
		return
	default:
		writeError(w, r, http.StatusBadRequest, "bad_request", fmt.Sprintf(`"action": %q: want "accept", "decline" or "cancel"`, body.Action))
		return
	}
	id, reqID := r.PathValue("id"), r.PathValue("request_id")
	var in *input
	if s.turns.allowed(r.Context(), id) { // else as if nothing waited: see ownedSession
		in = s.turns.input(id, reqID)
	}
	if in == nil {
		writeError(w, r, http.StatusNotFound, "not_found", fmt.Sprintf("no question %q waits for an answer in session %q", reqID, id))
		return
	}
	res := &mcp.ElicitResult{Action: body.Action}
	if body.Action == "accept" {
		hasContent := len(body.Content) > 0 && strings.TrimSpace(string(body.Content)) != "null"
		switch {
		case in.pending.Mode == "url" && hasContent:
			writeError(w, r, http.StatusBadRequest, "bad_request", `"content": a URL-mode question takes none (accept says the person opens the URL)`)
			return
		case in.pending.Mode == "form":
			content, err := in.content(body.Content)
			if err != nil {
				writeError(w, r, http.StatusBadRequest, "bad_request", err.Error())
				return
			}
			res.Content = content
		}
	}
	if s.turns.takeInput(id, reqID) != in {
		writeError(w, r, http.StatusNotFound, "not_found", fmt.Sprintf("question %q of session %q was answered or closed meanwhile", reqID, id))
		return
	}
	in.answer <- res
	writeJSON(w, http.StatusOK, map[string]any{"requestId": reqID, "action": res.Action})
}
