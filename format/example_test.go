package format_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/tool"
)

// weather is a tool as a catalog lists it (the hub's tools look the same).
var weather = tool.Tool{
	Name:         "get_weather",
	OriginalName: "get_weather",
	Server:       "weather",
	Description:  "Current weather in a city.",
	InputSchema: json.RawMessage(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"properties": {
			"city": {"type": "string", "description": "City name"},
			"units": {"type": "string", "enum": ["metric", "imperial"]}
		},
		"required": ["city"]
	}`),
}

// The same tool for the OpenAI Chat Completions API, in strict mode (every property
// required, optional ones nullable, no additional properties), and for the
// Anthropic Messages API.
func ExampleTools() {
	defs, err := format.Tools(format.OpenAI, []tool.Tool{weather}, &format.Options{Strict: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(defs[0]))

	defs, err = format.Tools(format.Anthropic, []tool.Tool{weather}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(defs[0]))
	// Output:
	// {"type":"function","function":{"name":"get_weather","description":"Current weather in a city.","parameters":{"additionalProperties":false,"properties":{"city":{"description":"City name","type":"string"},"units":{"enum":["metric","imperial",null],"type":["string","null"]}},"required":["city","units"],"type":"object"},"strict":true}}
	// {"name":"get_weather","description":"Current weather in a city.","input_schema":{"properties":{"city":{"description":"City name","type":"string"},"units":{"enum":["metric","imperial"],"type":"string"}},"required":["city"],"type":"object"}}
}

// A model's reply read back into calls. The second call's arguments are not JSON:
// the parse does not fail, the call carries Err, and ErrorResult is the answer that
// lets the model correct itself.
func ExampleParseCalls() {
	reply := json.RawMessage(`{
		"role": "assistant",
		"content": null,
		"tool_calls": [
			{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
			{"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":"}}
		]
	}`)
	calls, err := format.ParseCalls(format.OpenAI, reply)
	if err != nil {
		fmt.Println(err) // the reply is not an assistant message at all
		return
	}
	for _, c := range calls {
		if res := c.ErrorResult(); res != nil {
			fmt.Println(c.ID, c.Name, "->", tool.Text(res))
			continue
		}
		fmt.Println(c.ID, c.Name, string(c.Args))
	}
	// Output:
	// call_1 get_weather {"city":"Paris"}
	// call_2 get_weather -> arguments for tool "get_weather" are not valid JSON: unexpected end of JSON input; send the arguments as one JSON object
}

// A tool result written back as each provider expects it. OpenAI's tool message has
// no error flag, so an error's text says so; Anthropic's tool_result has is_error.
func ExampleResultMessage() {
	ok := tool.TextResult("18°C, light rain")
	failed := tool.ErrorResult("server %q, tool %q: timed out after 1m0s", "weather", "get_weather")
	for _, p := range []format.Provider{format.OpenAI, format.Anthropic} {
		for _, res := range []*tool.Result{ok, failed} {
			msg, err := format.ResultMessage(p, "call_1", res, nil)
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Println(string(msg))
		}
	}
	// Output:
	// {"role":"tool","tool_call_id":"call_1","content":"18°C, light rain"}
	// {"role":"tool","tool_call_id":"call_1","content":"Error: server \"weather\", tool \"get_weather\": timed out after 1m0s"}
	// {"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"18°C, light rain"}]}
	// {"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"server \"weather\", tool \"get_weather\": timed out after 1m0s"}],"is_error":true}
}

// One round trip of a chat loop against the Anthropic Messages API: definitions for
// the request, calls read from the response, results for the next request.
func Example() {
	ctx := context.Background()
	ts := tool.NewLocal() // or a hub, or a union of both
	type addIn struct {
		A float64 `json:"a" jsonschema:"first addend"`
		B float64 `json:"b" jsonschema:"second addend"`
	}
	err := tool.Func(ts, "add", "Adds two numbers.", func(_ context.Context, in addIn) (float64, error) {
		return in.A + in.B, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	defs, err := format.Tools(format.Anthropic, ts.Tools(), nil)
	if err != nil {
		fmt.Println(err) // each tool that cannot be given to the provider, and why
		return
	}
	fmt.Println(string(defs[0])) // one entry of the request's "tools"

	// The response's content, as the API returns it when the model calls a tool.
	content := json.RawMessage(`[
		{"type": "text", "text": "Let me add those."},
		{"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 2, "b": 40}}
	]`)
	calls, err := format.ParseCalls(format.Anthropic, content)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range calls {
		res := c.ErrorResult() // non-nil when the arguments were malformed
		if res == nil {
			if res, err = ts.Call(ctx, c.Name, c.Args); err != nil {
				fmt.Println(err) // the toolset is closed
				return
			}
		}
		block, err := format.ResultMessage(format.Anthropic, c.ID, res, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(string(block)) // goes into the next user message's content
	}
	// Output:
	// {"name":"add","description":"Adds two numbers.","input_schema":{"additionalProperties":false,"properties":{"a":{"description":"first addend","type":"number"},"b":{"description":"second addend","type":"number"}},"required":["a","b"],"type":"object"}}
	// {"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"42"}]}
}
