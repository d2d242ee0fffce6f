// Package tool holds Switchboard's core types: [Tool], [Result] and the [Toolset]
// interface that every source of tools implements, plus the normalisation of results
// into model-ready text.
//
// A Toolset lists a snapshot of tools and calls one by name:
//
//	for _, t := range ts.Tools() {
//		fmt.Println(t.Name, t.Server, t.Description)
//	}
//	res, err := ts.Call(ctx, "current_time", json.RawMessage(`{"zone":"Europe/Paris"}`))
//	if err != nil { /* the toolset is closed */ }
//	fmt.Println(tool.Text(res)) // errors come back as results with IsError set
//
// Changed returns a channel that is closed when the snapshot changes, so a consumer
// (an agent, the gateway) can re-read Tools.
package tool
