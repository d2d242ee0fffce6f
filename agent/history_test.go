package agent

import (
	"reflect"
	"testing"

	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/tool"
)

func TestForRequestOrdersResults(t *testing.T) {
	t.Parallel()
	user := llm.Message{Role: llm.RoleUser, Text: "hi"}
	asst := llm.Message{Role: llm.RoleAssistant, Calls: []llm.Call{{ID: "a", Name: "x"}, {ID: "b", Name: "y"}, {ID: "c", Name: "z"}}}
	res := func(id string) llm.Message {
		return llm.Message{Role: llm.RoleTool, CallID: id, Result: tool.TextResult(id)}
	}
	answer := llm.Message{Role: llm.RoleAssistant, Text: "done"}
	tests := []struct {
		name    string
		history []llm.Message
		want    []string // role:callID per message
	}{
		{"completion order put back in call order",
			[]llm.Message{user, asst, res("c"), res("a"), res("b"), answer},
			[]string{"user:", "assistant:", "tool:a", "tool:b", "tool:c", "assistant:"}},
		{"missing result answered as interrupted",
			[]llm.Message{user, asst, res("b"), user},
			[]string{"user:", "assistant:", "tool:a!", "tool:b", "tool:c!", "user:"}},
		{"empty assistant message left out",
			[]llm.Message{user, {Role: llm.RoleAssistant}, user, answer},
			[]string{"user:", "user:", "assistant:"}},
		{"stray and duplicate results left out",
			[]llm.Message{res("z"), user, asst, res("a"), res("a"), res("q"), res("b"), res("c")},
			[]string{"user:", "assistant:", "tool:a", "tool:b", "tool:c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := forRequest(tt.history)
			var roles []string
			for _, m := range got {
				s := string(m.Role) + ":" + m.CallID
				if m.Result != nil && m.Result.IsError {
					if tool.Text(m.Result) != InterruptedText {
						t.Errorf("error result %q, want %q", tool.Text(m.Result), InterruptedText)
					}
					s += "!"
				}
				roles = append(roles, s)
			}
			if !reflect.DeepEqual(roles, tt.want) {
				t.Errorf("forRequest = %v, want %v", roles, tt.want)
			}
		})
	}
}

func TestUnanswered(t *testing.T) {
	t.Parallel()
	asst := llm.Message{Role: llm.RoleAssistant, Calls: []llm.Call{{ID: "a", Name: "x"}, {ID: "b", Name: "y"}}}
	done := llm.Message{Role: llm.RoleTool, CallID: "b", Result: tool.TextResult("ok")}
	owed := unanswered([]llm.Message{{Role: llm.RoleUser, Text: "hi"}, asst, done})
	if len(owed) != 1 || owed[0].CallID != "a" || owed[0].Name != "x" || !owed[0].Result.IsError || tool.Text(owed[0].Result) != InterruptedText {
		t.Fatalf("unanswered = %+v, want one interrupted result for call a", owed)
	}
	if owed := unanswered([]llm.Message{asst, done, {Role: llm.RoleTool, CallID: "a"}, {Role: llm.RoleAssistant, Text: "fine"}}); owed != nil {
		t.Errorf("a fully answered history owes %+v", owed)
	}
}
