// Package format converts between Switchboard's core types and the wire formats of
// model providers: the OpenAI Chat Completions API ([OpenAI]), the OpenAI Responses
// API ([OpenAIResponses]), the Anthropic Messages API ([Anthropic]) and plain MCP
// ([MCP]).
//
// It does four things, one per step of a tool round trip:
//
//   - [Tools] turns a catalog into tool definitions the provider accepts (names
//     checked, descriptions filled in, schemas cleaned, optional OpenAI strict mode);
//     [Validate] checks a set of definitions against the provider's published rules.
//   - [ParseCalls] reads the tool calls out of a provider response. Malformed
//     arguments do not fail the parse: the [Call] carries Err, and [Call.ErrorResult]
//     is the error result to send back so that the model can correct itself.
//     [ParseCall] reads one call whose arguments came as text (a stream's deltas).
//   - [CallMessage] and [CallItem] write the calls back into the conversation of the
//     next request, in the shapes ParseCalls reads, with the arguments as the model
//     sent them.
//   - [ResultMessage] writes a [tool.Result] as the provider's tool-result message,
//     as [Normalize] renders it: text joined by newlines, placeholders for what the provider
//     cannot take, images passed through where it can (Anthropic), and a size cap.
//
// A turn of a chat loop against the OpenAI Chat Completions API:
//
//	defs, err := format.Tools(format.OpenAI, ts.Tools(), &format.Options{Strict: true})
//	// ... send defs as "tools", receive the assistant message msg ...
//	calls, err := format.ParseCalls(format.OpenAI, msg)
//	for _, c := range calls {
//		res := c.ErrorResult() // non-nil when the arguments were malformed
//		if res == nil {
//			// strict mode sends null for optional arguments; the tool wants them absent
//			args := format.DropOptionalNulls(schemaOf[c.Name], c.Args)
//			res, err = ts.Call(ctx, c.Name, args)
//		}
//		m, _ := format.ResultMessage(format.OpenAI, c.ID, res, nil)
//		// append m to the conversation
//	}
package format
