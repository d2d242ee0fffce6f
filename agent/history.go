package agent

import (
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/tool"
)

// InterruptedText is the error result that answers a call whose result was lost: the
// turn was cancelled while it ran (or before it started), or the process died. OpenAI
// and Anthropic both reject a history with an unanswered call, so a cancelled turn
// stores this for each such call before it returns, and a turn after a crash before
// anything else.
const InterruptedText = "interrupted: the turn stopped before the call's result came back"

// unanswered returns the error results owed to the calls of the last assistant
// message with calls that no tool message answers, in call order. Only the last one
// can be owed anything: every turn repairs the history before it adds to it.
func unanswered(history []llm.Message) []llm.Message {
	last := -1
	for i := len(history) - 1; i >= 0; i-- {
		if m := history[i]; m.Role == llm.RoleAssistant && len(m.Calls) > 0 {
			last = i
			break
		}
	}
	if last < 0 {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range history[last+1:] {
		if m.Role == llm.RoleTool {
			answered[m.CallID] = true
		}
	}
	var owed []llm.Message
	for _, c := range history[last].Calls {
		if !answered[c.ID] {
			answered[c.ID] = true // a call id the model repeated is answered once
			owed = append(owed, interrupted(c))
		}
	}
	return owed
}

func interrupted(c llm.Call) llm.Message {
	return toolMessage(c, tool.ErrorResult("%s", InterruptedText))
}

func toolMessage(c llm.Call, res *tool.Result) llm.Message {
	return llm.Message{Role: llm.RoleTool, CallID: c.ID, Name: c.Name, Result: res}
}

// forRequest returns the history as a provider takes it: the tool messages that
// follow an assistant message with calls put back in call order (they are stored in
// the order the calls completed), a call that has no result answered with
// InterruptedText, and a tool message that answers no call of the message it follows
// (or answers one twice) left out, as is an assistant message with neither text nor
// calls (Anthropic rejects empty messages, and it says nothing). history is not
// modified.
func forRequest(history []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(history))
	for i := 0; i < len(history); {
		m := history[i]
		i++
		if m.Role == llm.RoleTool {
			continue // answers no call: no assistant message with calls precedes it
		}
		if m.Role == llm.RoleAssistant && m.Text == "" && len(m.Calls) == 0 {
			continue
		}
		out = append(out, m)
		if m.Role != llm.RoleAssistant || len(m.Calls) == 0 {
			continue
		}
		results := map[string]llm.Message{}
		for ; i < len(history) && history[i].Role == llm.RoleTool; i++ {
			if _, dup := results[history[i].CallID]; !dup {
				results[history[i].CallID] = history[i]
			}
		}
		emitted := map[string]bool{} // a call id the model repeated gets one result
		for _, c := range m.Calls {
			if emitted[c.ID] {
				continue
			}
			emitted[c.ID] = true
			r, ok := results[c.ID]
			if !ok {
				r = interrupted(c)
			}
			out = append(out, r)
		}
	}
	return out
}
