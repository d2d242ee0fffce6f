package apiwire_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/apiwire"
)

// A client decides on an error's code, never on its message.
func ExampleErrorBody() {
	data := []byte(`{"error": {"code": "unknown_tool", "message": "unknown tool \"get_tme\"", "suggestions": ["get_time"]}}`)
	var body apiwire.ErrorBody
	if err := json.Unmarshal(data, &body); err != nil {
		panic(err)
	}
	if body.Error.Code == apiwire.CodeUnknownTool {
		fmt.Println("did you mean", body.Error.Suggestions[0])
	}
	// Output: did you mean get_time
}

// The servers of GET /v1/servers, and why those that are not ready are not.
func ExampleServers() {
	data := []byte(`{"servers": [
	  {"name": "clock", "state": "ready", "transport": "stdio", "tools": 3, "since": "2026-01-02T03:04:05Z", "restarts": 0},
	  {"name": "github", "state": "needs_sign_in", "transport": "http", "tools": 0, "since": "2026-01-02T03:04:05Z", "restarts": 0,
	   "reason": "the server wants a sign-in"}
	]}`)
	var body apiwire.Servers
	if err := json.Unmarshal(data, &body); err != nil {
		panic(err)
	}
	for _, s := range body.Servers {
		if s.State != apiwire.Ready {
			fmt.Printf("%s is %s: %s\n", s.Name, s.State, s.Reason)
		}
	}
	// Output: github is needs_sign_in: the server wants a sign-in
}

// A session's turn streamed as server-sent events: each event's name says the type
// of its data, and the stream ends with done (the Reply) or error (an ErrorBody).
func ExampleReply() {
	stream := "event: text\ndata: {\"step\":1,\"text\":\"Shipped \"}\n\n" +
		"event: tool_call\ndata: {\"arguments\":{\"id\":7},\"callId\":\"c1\",\"name\":\"orders_lookup\",\"step\":1}\n\n" +
		"event: done\ndata: {\"session\":\"s1\",\"answer\":\"Shipped on Monday\",\"steps\":[],\"usage\":{\"inputTokens\":30,\"outputTokens\":12}}\n\n"
	for _, ev := range strings.Split(strings.TrimSpace(stream), "\n\n") {
		head, data, _ := strings.Cut(ev, "\ndata: ")
		switch strings.TrimPrefix(head, "event: ") {
		case apiwire.EventText:
			var e apiwire.TextEvent
			_ = json.Unmarshal([]byte(data), &e)
			fmt.Printf("text %q\n", e.Text)
		case apiwire.EventToolCall:
			var e apiwire.ToolCallEvent
			_ = json.Unmarshal([]byte(data), &e)
			fmt.Printf("call %s %s\n", e.Name, e.Arguments)
		case apiwire.EventDone:
			var rp apiwire.Reply
			_ = json.Unmarshal([]byte(data), &rp)
			fmt.Printf("done: %s (%d tokens in)\n", rp.Answer, rp.Usage.InputTokens)
		}
	}
	// Output:
	// text "Shipped "
	// call orders_lookup {"id":7}
	// done: Shipped on Monday (30 tokens in)
}
