package fakellm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

// searchTools are a request's tools in native deferred mode: one loaded tool, the
// tool search tool, and two deferred tools.
func searchTools(regex bool) []sdk.ToolUnionParam {
	search := sdk.ToolUnionParam{OfToolSearchToolBm25_20251119: &sdk.ToolSearchToolBm25_20251119Param{
		Type: sdk.ToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119,
	}}
	if regex {
		search = sdk.ToolUnionParam{OfToolSearchToolRegex20251119: &sdk.ToolSearchToolRegex20251119Param{
			Type: sdk.ToolSearchToolRegex20251119TypeToolSearchToolRegex20251119,
		}}
	}
	schema := sdk.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}
	return []sdk.ToolUnionParam{
		{OfTool: &sdk.ToolParam{Name: "clock", InputSchema: sdk.ToolInputSchemaParam{}}},
		search,
		{OfTool: &sdk.ToolParam{Name: "weather", Description: sdk.String("Forecast for a city."), InputSchema: schema, DeferLoading: sdk.Bool(true)}},
		{OfTool: &sdk.ToolParam{Name: "notes_put", Description: sdk.String("Store a note."), InputSchema: sdk.ToolInputSchemaParam{}, DeferLoading: sdk.Bool(true)}},
	}
}

// The fake runs the tool search server side and answers, in the API's format, with
// server_tool_use, tool_search_tool_result and the tool_use of the tool found, which
// the official SDK reads, streamed or not; the history sent back is accepted, and its
// tool_reference loads the tool.
func TestAnthropicToolSearch(t *testing.T) {
	for _, stream := range []bool{false, true} {
		for _, regex := range []bool{false, true} {
			t.Run(fmt.Sprintf("stream=%v,regex=%v", stream, regex), func(t *testing.T) {
				srv := fakellm.StartAnthropic(t, fakellm.Rules())
				client := anthropicClient(t, srv)
				params := sdk.MessageNewParams{
					Model:     "claude-test",
					MaxTokens: 100,
					Tools:     searchTools(regex),
					Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(`call weather {"city":"Paris"}`))},
				}
				var msg sdk.Message
				if stream {
					s := client.Messages.NewStreaming(context.Background(), params)
					for s.Next() {
						if err := msg.Accumulate(s.Current()); err != nil {
							t.Fatal(err)
						}
					}
					if err := s.Err(); err != nil {
						t.Fatal(err)
					}
					s.Close()
				} else {
					m, err := client.Messages.New(context.Background(), params)
					if err != nil {
						t.Fatal(err)
					}
					msg = *m
				}
				wantName := "tool_search_tool_bm25"
				if regex {
					wantName = "tool_search_tool_regex"
				}
				var types []string
				for _, b := range msg.Content {
					types = append(types, b.Type)
				}
				if strings.Join(types, " ") != "server_tool_use tool_search_tool_result tool_use" || msg.StopReason != "tool_use" {
					t.Fatalf("content %v, stop %q", types, msg.StopReason)
				}
				use, result, call := msg.Content[0].AsServerToolUse(), msg.Content[1].AsToolSearchToolResult(), msg.Content[2]
				if string(use.Name) != wantName || !strings.HasPrefix(use.ID, "srvtoolu_") || fmt.Sprint(use.Input) != "map[query:weather]" {
					t.Errorf("server_tool_use = %s", use.RawJSON())
				}
				refs := result.Content.ToolReferences
				if result.ToolUseID != use.ID || result.Content.Type != "tool_search_tool_search_result" || len(refs) != 1 || refs[0].ToolName != "weather" {
					t.Errorf("tool_search_tool_result = %s", result.RawJSON())
				}
				if call.Name != "weather" || string(call.Input) != `{"city":"Paris"}` {
					t.Errorf("tool_use = %s", call.RawJSON())
				}
				if !strings.Contains(msg.Usage.ServerToolUse.RawJSON(), `"tool_search_requests":1`) {
					t.Errorf("usage.server_tool_use = %s", msg.Usage.ServerToolUse.RawJSON())
				}
				if r := srv.Requests()[0]; r.ToolSearch != wantName || len(r.Tools) != 1 || r.Tools[0].Name != "clock" || len(r.Deferred) != 2 {
					t.Errorf("decoded: search %q, tools %+v, deferred %+v", r.ToolSearch, r.Tools, r.Deferred)
				}

				// The history goes back as it came, with the tool's result.
				params.Messages = append(params.Messages, msg.ToParam(),
					sdk.NewUserMessage(sdk.NewToolResultBlock(call.ID, "12°C", false)))
				next, err := client.Messages.New(context.Background(), params)
				if err != nil {
					t.Fatal(err)
				}
				if len(next.Content) != 1 || next.Content[0].Text != "weather: 12°C" {
					t.Errorf("answer = %+v", next.Content)
				}
				got := srv.Requests()[1].Messages
				if len(got) != 3 || !slices.Equal(got[1].Found, []string{"weather"}) || len(got[1].Calls) != 1 {
					t.Errorf("decoded history = %+v", got)
				}
			})
		}
	}
}

// The stream carries the search as the API's streaming documentation shows it.
func TestAnthropicToolSearchStreamEvents(t *testing.T) {
	srv := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Search: "weather", Calls: []fakellm.Call{{ID: "toolu_1", Name: "weather", Arguments: `{}`}}}))
	body := `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[
		{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"},
		{"name":"weather","input_schema":{"type":"object"},"defer_loading":true}]}`
	status, _, out := anthropicPost(t, srv, body, anthropicVersion)
	if status != 200 {
		t.Fatalf("status %d: %s", status, out)
	}
	var starts []string
	var query strings.Builder // the server_tool_use's input, as its deltas carry it
	for _, line := range strings.Split(out, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type         string
			Index        int
			ContentBlock json.RawMessage `json:"content_block"`
			Delta        struct {
				PartialJSON string `json:"partial_json"`
			}
		}
		json.Unmarshal([]byte(data), &ev)
		switch {
		case ev.Type == "content_block_start":
			starts = append(starts, string(ev.ContentBlock))
		case ev.Type == "content_block_delta" && ev.Index == 0:
			query.WriteString(ev.Delta.PartialJSON)
		}
	}
	if len(starts) != 3 {
		t.Fatalf("content_block_start events: %q", starts)
	}
	if !strings.HasPrefix(starts[0], `{"caller":{"type":"direct"},"id":"srvtoolu_`) || !strings.HasSuffix(starts[0], `"input":{},"name":"tool_search_tool_regex","type":"server_tool_use"}`) {
		t.Errorf("server_tool_use start = %s", starts[0])
	}
	if !strings.HasSuffix(starts[1], `"type":"tool_search_tool_result"}`) || !strings.Contains(starts[1], `"content":{"tool_references":[{"tool_name":"weather","type":"tool_reference"}],"type":"tool_search_tool_search_result"}`) {
		t.Errorf("tool_search_tool_result start = %s", starts[1])
	}
	if query.String() != `{"query":"weather"}` {
		t.Errorf("the server_tool_use's input_json_delta pieces make %q", query.String())
	}
}

// Requests the real API refuses, and replies the real model could not give.
func TestAnthropicToolSearchChecks(t *testing.T) {
	const search = `{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}`
	const weather = `{"name":"weather","input_schema":{"type":"object"},"defer_loading":true}`
	found := func(name string) string {
		return `{"role":"assistant","content":[
			{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{"query":"w"}},
			{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"` + name + `"}]}},
			{"type":"tool_use","id":"toolu_1","name":"weather","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}`
	}
	srv := fakellm.StartAnthropic(t, fakellm.Queue())
	for _, c := range []struct{ name, body, want string }{
		{"all deferred", `{"model":"m","max_tokens":5,"tools":[` + weather + `],"messages":[{"role":"user","content":"hi"}]}`,
			"All tools have defer_loading set. At least one tool must be non-deferred."},
		{"reference without definition", `{"model":"m","max_tokens":5,"tools":[` + search + `,` + weather + `],"messages":[{"role":"user","content":"hi"},` + found("gone") + `]}`,
			"Tool reference 'gone' has no corresponding tool definition"},
		{"deferred tool never found", `{"model":"m","max_tokens":5,"tools":[` + search + `,` + weather + `],"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"weather","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`,
			"messages.1.content.0: tool_use of 'weather', a tool with defer_loading set that no tool_reference before it loaded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, _, body := anthropicPost(t, srv, c.body, anthropicVersion)
			var e struct {
				Error struct{ Type, Message string }
			}
			if status != 400 || json.Unmarshal([]byte(body), &e) != nil || e.Error.Type != "invalid_request_error" || e.Error.Message != c.want {
				t.Errorf("status %d, body %s; want 400 %q", status, body, c.want)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d invalid requests reached the script", n)
	}

	// The same history with the tool found is fine.
	ok := fakellm.StartAnthropic(t, fakellm.Queue(fakellm.Reply{Text: "ok"}))
	if status, _, body := anthropicPost(t, ok, `{"model":"m","max_tokens":5,"tools":[`+search+`,`+weather+`],"messages":[{"role":"user","content":"hi"},`+found("weather")+`]}`, anthropicVersion); status != 200 {
		t.Errorf("status %d: %s", status, body)
	}

	for _, c := range []struct {
		name  string
		tools string
		reply fakellm.Reply
		want  string
	}{
		{"search without a search tool", `{"name":"clock","input_schema":{"type":"object"}}`, fakellm.Reply{Search: "x"},
			"fakellm: the script's reply searches (Reply.Search), but the request offers no tool search tool"},
		{"call of a deferred tool not found", search + `,` + weather, fakellm.Reply{Search: "clock", Calls: []fakellm.Call{{Name: "weather"}}},
			"fakellm: the script calls weather, a deferred tool that no tool search has found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := fakellm.StartAnthropic(t, fakellm.Queue(c.reply))
			status, _, body := anthropicPost(t, srv, `{"model":"m","max_tokens":5,"tools":[`+c.tools+`],"messages":[{"role":"user","content":"hi"}]}`, anthropicVersion)
			if status != 500 || !strings.Contains(body, c.want) {
				t.Errorf("status %d, body %s; want 500 %q", status, body, c.want)
			}
		})
	}
}

func TestSearchDeferred(t *testing.T) {
	deferred := []fakellm.Tool{
		{Name: "weather", Description: "Forecast for a city."},
		{Name: "notes_put", Description: "Store a note about the weather."},
		{Name: "notes_get", Description: "Read a note.", Schema: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`)},
	}
	bm25 := fakellm.Request{Deferred: deferred, ToolSearch: "tool_search_tool_bm25"}
	regex := fakellm.Request{Deferred: deferred, ToolSearch: "tool_search_tool_regex"}
	for _, c := range []struct {
		r     fakellm.Request
		query string
		want  []string
	}{
		{bm25, "Weather", []string{"weather", "notes_put"}},
		{bm25, "store weather note", []string{"notes_put", "weather", "notes_get"}}, // most words first
		{bm25, "KEY", []string{"notes_get"}},                                        // argument names count
		{bm25, "nothing", nil},
		{regex, "^notes_", []string{"notes_put", "notes_get"}},
		{regex, "WEATHER$", nil}, // the name ends the text only without a description
		{regex, "(for a city|read a note)", []string{"weather", "notes_get"}},
		{regex, "(", nil}, // invalid: nothing found
	} {
		if got := c.r.SearchDeferred(c.query); !slices.Equal(got, c.want) {
			t.Errorf("%s %q: found %q, want %q", c.r.ToolSearch, c.query, got, c.want)
		}
	}
}

// Rules searches for a deferred tool before calling it, once: a tool found earlier
// in the history is called at once; "search QUERY" calls what it finds.
func TestRulesToolSearch(t *testing.T) {
	rules := fakellm.Rules()
	r := fakellm.Request{
		ToolSearch: "tool_search_tool_bm25",
		Tools:      []fakellm.Tool{{Name: "clock"}},
		Deferred:   []fakellm.Tool{{Name: "weather"}, {Name: "notes_put", Description: "Store a note."}},
		Messages:   []fakellm.Message{{Role: "user", Text: "call weather {\"city\":\"Oslo\"}\ncall clock"}},
	}
	rep := rules(r)
	if rep.Search != "weather" || len(rep.Calls) != 2 || rep.Calls[0].Name != "weather" || rep.Calls[1].Name != "clock" {
		t.Errorf("reply = %+v", rep)
	}
	r.Messages = []fakellm.Message{{Role: "assistant", Found: []string{"weather"}}, {Role: "user", Text: "call weather"}}
	if rep := rules(r); rep.Search != "" || len(rep.Calls) != 1 {
		t.Errorf("reply after the tool was found = %+v", rep)
	}
	r.Messages = []fakellm.Message{{Role: "user", Text: "search store a note"}}
	if rep := rules(r); rep.Search != "store a note" || len(rep.Calls) != 1 || rep.Calls[0].Name != "notes_put" {
		t.Errorf("search reply = %+v", rep)
	}
	r.Messages = []fakellm.Message{{Role: "user", Text: "search zzz"}}
	if rep := rules(r); rep.Search != "zzz" || len(rep.Calls) != 0 || rep.Text != "No tool matches zzz." {
		t.Errorf("search reply = %+v", rep)
	}
	r.ToolSearch = "tool_search_tool_regex"
	r.Messages = []fakellm.Message{{Role: "user", Text: "call weather\ncall notes_put"}}
	if rep := rules(r); rep.Search != "weather|notes_put" || len(rep.Calls) != 2 {
		t.Errorf("regex reply = %+v", rep)
	}
}
