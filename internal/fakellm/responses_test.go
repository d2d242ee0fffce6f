package fakellm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	openai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
)

func responsesClient(srv *fakellm.Server) responses.ResponseService {
	return responses.NewResponseService(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
}

// searchParams asks for the weather with weather deferred behind OpenAI's tool search.
func searchParams() responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model:        "gpt-5.4",
		Instructions: param.NewOpt("Be brief."),
		Store:        param.NewOpt(false),
		Input:        responses.ResponseNewParamsInputUnion{OfString: param.NewOpt(`call weather {"city":"Paris"}`)},
		Tools: []responses.ToolUnionParam{
			{OfFunction: &responses.FunctionToolParam{Name: "clock", Parameters: map[string]any{"type": "object"}}},
			{OfFunction: &responses.FunctionToolParam{Name: "weather", Description: param.NewOpt("Weather of a city"),
				Parameters: map[string]any{"type": "object"}, DeferLoading: param.NewOpt(true)}},
			{OfToolSearch: &responses.ToolSearchToolParam{}},
		},
	}
}

// TestResponsesToolSearch: openai-go reads the fake's Responses answer, streamed and
// not: Rules searches for the deferred tool it is told to call (tool_search_call and
// tool_search_output with the tool's definition, then the function_call), and the
// request is decoded with the tool deferred and the search tool named.
func TestResponsesToolSearch(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "stream"}[stream], func(t *testing.T) {
			srv := fakellm.StartOpenAI(t, fakellm.Rules())
			client := responsesClient(srv)
			var res *responses.Response
			if stream {
				s := client.NewStreaming(context.Background(), searchParams())
				var types []string
				for s.Next() {
					ev := s.Current()
					types = append(types, ev.Type)
					if ev.Type == "response.completed" {
						r := ev.Response
						res = &r
					}
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
				s.Close()
				joined := strings.Join(types, " ")
				for _, want := range []string{"response.created", "response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done", "response.completed"} {
					if !strings.Contains(joined, want) {
						t.Errorf("no %s event in %s", want, joined)
					}
				}
			} else {
				var err error
				if res, err = client.New(context.Background(), searchParams()); err != nil {
					t.Fatal(err)
				}
			}
			if res == nil || len(res.Output) != 3 {
				t.Fatalf("response: %+v", res)
			}
			call, out, fc := res.Output[0].AsToolSearchCall(), res.Output[1].AsToolSearchOutput(), res.Output[2].AsFunctionCall()
			if call.Type != "tool_search_call" || call.Execution != "server" || call.CallID == "" {
				t.Errorf("tool_search_call: %s", call.RawJSON())
			}
			if out.CallID != call.CallID || len(out.Tools) != 1 || out.Tools[0].Name != "weather" || !out.Tools[0].DeferLoading {
				t.Errorf("tool_search_output: %s", out.RawJSON())
			}
			if fc.Name != "weather" || fc.Arguments != `{"city":"Paris"}` || fc.CallID == "" {
				t.Errorf("function_call: %s", fc.RawJSON())
			}
			if res.Usage.InputTokens == 0 || res.Usage.OutputTokens == 0 {
				t.Errorf("usage %+v", res.Usage)
			}
			req := srv.Requests()[0]
			if req.ToolSearch != "tool_search" || len(req.Deferred) != 1 || req.Deferred[0].Name != "weather" || len(req.Tools) != 1 || req.System != "Be brief." {
				t.Errorf("decoded request: %+v", req)
			}
		})
	}
}

// TestResponsesHistory: a history sent back as input items (the search items, the
// call, its output) decodes into one assistant message with Found and Calls and a
// tool message; without the search items, the call of a deferred tool is refused.
func TestResponsesHistory(t *testing.T) {
	srv := fakellm.StartOpenAI(t, fakellm.Rules())
	client := responsesClient(srv)
	first, err := client.New(context.Background(), searchParams())
	if err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	items = append(items, json.RawMessage(`{"role":"user","content":"call weather {\"city\":\"Paris\"}"}`))
	for _, it := range first.Output {
		items = append(items, json.RawMessage(it.RawJSON()))
	}
	fc := first.Output[2].AsFunctionCall()
	items = append(items, json.RawMessage(`{"type":"function_call_output","call_id":"`+fc.CallID+`","output":"12°C"}`))
	next := searchParams()
	next.Input = responses.ResponseNewParamsInputUnion{}
	b, _ := json.Marshal(items)
	res, err := client.New(context.Background(), next, option.WithJSONSet("input", json.RawMessage(b)))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.OutputText(); got != "weather: 12°C" {
		t.Errorf("answer %q", got)
	}
	req := srv.Requests()[1]
	if len(req.Messages) != 3 || len(req.Messages[1].Found) != 1 || len(req.Messages[1].Calls) != 1 || req.Messages[2].CallID != fc.CallID {
		t.Errorf("decoded history: %+v", req.Messages)
	}

	without := append([]json.RawMessage{items[0]}, items[3:]...)
	b, _ = json.Marshal(without)
	_, err = client.New(context.Background(), next, option.WithJSONSet("input", json.RawMessage(b)))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, "no tool_search_output before it loaded") {
		t.Errorf("a deferred call without the search items: %v", err)
	}
}
