package compat

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// clientTool is a function that a request of an OpenAI-compatible endpoint declares
// (at where) and that the client runs itself: its name must be a tool's, and its
// parameters a JSON Schema object (none: no parameters).
func clientTool(where, name, description string, schema json.RawMessage) (tool.Tool, *apiError) {
	if !tool.NamePattern.MatchString(name) {
		return tool.Tool{}, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s: function name %q: want 1 to %d of a-z, A-Z, 0-9, _ and -", where, name, tool.MaxNameLen)
	}
	if t := bytes.TrimSpace(schema); len(t) == 0 || string(t) == "null" {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	} else if t[0] != '{' {
		return tool.Tool{}, errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "%s: function parameters: want a JSON Schema object", where)
	}
	return tool.Tool{Name: name, OriginalName: name, Server: "client", Description: description, InputSchema: schema}, nil
}

// A mixed step is a model step that calls the catalog's tools, which run here, and
// the client's, which end the turn (agent.Turn.ClientCalls). Chat Completions and
// Messages hand the client its calls only, and the client's next request brings the
// conversation as it knows it: the step's assistant message with its calls alone,
// then their results. The catalog calls and their results, which the client never
// saw, are kept here for a while (stepKeeper), under the client's call ids and the
// caller's identity, and put back into the conversation of the request that brings
// the answers, so that the model goes on with everything its step asked for, as
// the Responses API's stored history does. A conversation that runs past the bounds
// (keptStepTTL since last used, keptStepsMax steps, keptStepMaxBytes a step) goes on
// without them: the model then sees its client calls alone, as before.
const (
	keptStepTTL      = time.Hour
	keptStepsMax     = 1000
	keptStepMaxBytes = 1 << 20
)

// keptStep is a mixed step's assistant message (every call, in the model's order)
// and its catalog calls' results.
type keptStep struct {
	owner     string
	assistant llm.Message
	results   []llm.Message
	client    map[string]string // the client's call ids → their tool names
	used      time.Time
}

// stepKeeper holds the mixed steps of recent turns, by owner and client call id.
type stepKeeper struct {
	mu    sync.Mutex
	now   func() time.Time
	steps map[stepKey]*keptStep
}

type stepKey struct{ owner, callID string }

func newStepKeeper() *stepKeeper {
	return &stepKeeper{now: time.Now, steps: map[stepKey]*keptStep{}}
}

// keep keeps the last step of t when it is a mixed one, for owner; a step past
// keptStepMaxBytes is not kept (false).
func (k *stepKeeper) keep(owner string, t *conversation.Result) bool {
	if len(t.ClientCalls) == 0 || len(t.Steps) == 0 {
		return true
	}
	last := t.Steps[len(t.Steps)-1]
	if len(last.Results) == 0 {
		return true // the client's calls alone: the client knows the whole step
	}
	st := &keptStep{owner: owner, assistant: last.Assistant, results: last.Results, client: map[string]string{}}
	for _, c := range t.ClientCalls {
		st.client[c.ID] = c.Name
	}
	if b, err := json.Marshal([]any{st.assistant, st.results}); err != nil || len(b) > keptStepMaxBytes {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	st.used = k.now()
	k.prune(st.used)
	for id := range st.client {
		k.steps[stepKey{owner, id}] = st
	}
	return true
}

// prune drops the steps unused for keptStepTTL, then the least recently used past
// keptStepsMax - 1, to make room for one more.
func (k *stepKeeper) prune(now time.Time) {
	steps := map[*keptStep]bool{}
	for key, st := range k.steps {
		if now.Sub(st.used) > keptStepTTL {
			delete(k.steps, key)
		} else {
			steps[st] = true
		}
	}
	for len(steps) >= keptStepsMax {
		var oldest *keptStep
		for st := range steps {
			if oldest == nil || st.used.Before(oldest.used) {
				oldest = st
			}
		}
		delete(steps, oldest)
		for id := range oldest.client {
			delete(k.steps, stepKey{oldest.owner, id})
		}
	}
}

// restore puts the kept catalog calls and results back into sess, a request's
// conversation, for owner: an assistant message whose calls are exactly a kept
// step's client calls (ids and names) becomes that step's message, followed by the
// catalog calls' results. It reports how many steps it restored.
func (k *stepKeeper) restore(owner string, sess *session.Session) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	var out []llm.Message
	n := 0
	for _, m := range sess.Messages {
		st := k.match(owner, m, now)
		if st == nil {
			out = append(out, m)
			continue
		}
		st.used = now
		out = append(out, st.assistant)
		out = append(out, st.results...)
		n++
	}
	if n > 0 {
		sess.Messages = out
	}
	return n
}

// match is the kept step of owner whose client calls m holds, exactly; nil for none.
func (k *stepKeeper) match(owner string, m llm.Message, now time.Time) *keptStep {
	if m.Role != llm.RoleAssistant || len(m.Calls) == 0 {
		return nil
	}
	st := k.steps[stepKey{owner, m.Calls[0].ID}]
	if st == nil || now.Sub(st.used) > keptStepTTL || len(st.client) != len(m.Calls) {
		return nil
	}
	for _, c := range m.Calls {
		if name, ok := st.client[c.ID]; !ok || name != c.Name {
			return nil
		}
	}
	return st
}

// restoreSteps puts the kept mixed steps of the request's caller back into its
// conversation (stepKeeper.restore).
func (h *Handler) restoreSteps(r *http.Request, sess *session.Session) {
	if n := h.steps.restore(identity.Owner(r.Context()), sess); n > 0 {
		h.logOf(r.Context()).Debug("catalog calls of mixed steps put back into the conversation", "steps", n)
	}
}

// keepStep keeps the last step of the request's turn when it is a mixed one
// (stepKeeper.keep).
func (h *Handler) keepStep(r *http.Request, t *conversation.Result) {
	if !h.steps.keep(identity.Owner(r.Context()), t) {
		h.logOf(r.Context()).Warn("the catalog calls of a step that also called the client's tools are too big to keep: the next request goes on without their results",
			"limit_bytes", keptStepMaxBytes)
	}
}
