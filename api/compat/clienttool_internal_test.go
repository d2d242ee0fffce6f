package compat

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/agent"
	"github.com/switchboard-mcp/switchboard/conversation"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
)

// mixedTurn is a turn whose one step called catalog tool "convert" (id cat-N) and
// client tool "lookup" (id cli-N), the catalog result being result.
func mixedTurn(n int, result string) *conversation.Result {
	own := llm.Call{ID: fmt.Sprintf("cat-%d", n), Name: "convert", Arguments: "{}"}
	client := llm.Call{ID: fmt.Sprintf("cli-%d", n), Name: "lookup", Arguments: "{}"}
	return &conversation.Result{
		Steps: []agent.Step{{
			Assistant: llm.Message{Role: llm.RoleAssistant, Calls: []llm.Call{own, client}},
			Results:   []llm.Message{{Role: llm.RoleTool, CallID: own.ID, Name: own.Name, Result: tool.TextResult(result)}},
		}},
		ClientCalls: []llm.Call{client},
	}
}

// answering is the conversation a client sends back after turn n: its call, answered.
func answering(n int) *session.Session {
	c := llm.Call{ID: fmt.Sprintf("cli-%d", n), Name: "lookup", Arguments: "{}"}
	return &session.Session{Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "go"},
		{Role: llm.RoleAssistant, Calls: []llm.Call{c}},
		{Role: llm.RoleTool, CallID: c.ID, Name: c.Name, Result: tool.TextResult("shipped")},
	}}
}

// TestStepKeeper: a mixed step's catalog calls go back into the conversation that
// answers its client call, for its owner only, until unused for keptStepTTL; past
// keptStepsMax the least recently used goes; a step past keptStepMaxBytes is not
// kept; an assistant message whose calls differ from the step's client calls (one
// more, another name) is left as it is.
func TestStepKeeper(t *testing.T) {
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	k := newStepKeeper()
	k.now = func() time.Time { return clock }

	if !k.keep("alice", mixedTurn(0, "12:00")) {
		t.Fatal("not kept")
	}
	sess := answering(0)
	if n := k.restore("alice", sess); n != 1 || len(sess.Messages) != 4 {
		t.Fatalf("restored %d: %+v", n, sess.Messages)
	}
	if a := sess.Messages[1]; len(a.Calls) != 2 || a.Calls[0].ID != "cat-0" || sess.Messages[2].CallID != "cat-0" || sess.Messages[3].CallID != "cli-0" {
		t.Errorf("conversation %+v", sess.Messages)
	}
	if n := k.restore("bob", answering(0)); n != 0 {
		t.Error("bob got alice's step")
	}
	other := answering(0)
	other.Messages[1].Calls[0].Name = "renamed"
	if n := k.restore("alice", other); n != 0 {
		t.Error("a call of another name matched")
	}
	more := answering(0)
	more.Messages[1].Calls = append(more.Messages[1].Calls, llm.Call{ID: "x", Name: "lookup"})
	if n := k.restore("alice", more); n != 0 {
		t.Error("a message with another call matched")
	}

	// Used now, so kept for another keptStepTTL from here.
	clock = clock.Add(keptStepTTL - time.Minute)
	if n := k.restore("alice", answering(0)); n != 1 {
		t.Error("forgotten before its time")
	}
	clock = clock.Add(keptStepTTL + time.Second)
	if n := k.restore("alice", answering(0)); n != 0 {
		t.Error("kept past keptStepTTL")
	}

	if k.keep("alice", mixedTurn(1, strings.Repeat("x", keptStepMaxBytes))) {
		t.Error("a step past keptStepMaxBytes was kept")
	}
	if n := k.restore("alice", answering(1)); n != 0 {
		t.Error("restored a step too big to keep")
	}

	for i := range keptStepsMax + 1 {
		clock = clock.Add(time.Second)
		k.keep("alice", mixedTurn(10+i, "ok"))
	}
	if n := k.restore("alice", answering(10)); n != 0 {
		t.Error("the oldest step outlived keptStepsMax")
	}
	if n := k.restore("alice", answering(11)); n != 1 {
		t.Error("the second oldest step went too")
	}
	if len(k.steps) != keptStepsMax {
		t.Errorf("%d steps kept, want %d", len(k.steps), keptStepsMax)
	}
}
