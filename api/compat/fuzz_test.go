package compat

import (
	"encoding/json"
	"testing"
)

// FuzzChatRequest: whatever body an OpenAI client posts to /v1/chat/completions,
// parseChatRequest does not panic, and it either refuses the body with an error
// that has a code and a message, or gives a session of the request's messages.
func FuzzChatRequest(f *testing.F) {
	f.Add(`{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}`)
	f.Add(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"ok"}],"tools":[{"type":"function","function":{"name":"g","parameters":{"type":"object"}}}],"stream":true}`)
	f.Add(`{"messages":[{"role":"tool","content":"orphan"}],"tool_choice":"none","n":2}`)
	f.Add(`{"messages":[]}`)
	f.Fuzz(func(t *testing.T, body string) {
		var raw map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &raw) != nil {
			return
		}
		req, sess, _, apiErr := parseChatRequest(raw)
		if apiErr != nil {
			if apiErr.Code == "" || apiErr.Message == "" {
				t.Fatalf("error without a code or message: %+v", apiErr)
			}
			return
		}
		if req == nil || sess == nil {
			t.Fatalf("no error, and request %v, session %v", req, sess)
		}
	})
}
