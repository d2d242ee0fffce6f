// Package deferred shows a large tool catalog to a model, or to an MCP client, as
// a few search tools instead of every definition ("deferred mode"): the model
// searches, and what it finds is loaded into its session's tool list.
//
// Past a few dozen tools models choose worse, some hosts refuse the list, and
// every request carries every definition. In deferred mode a session sees:
//
//   - tool_search(query, limit): the catalog ranked against words (package
//     search), 5 results by default, at most 50;
//   - tool_search_regex(pattern, limit): a case-insensitive regular expression
//     over names, descriptions and parameters, 10 by default;
//   - tool_call(name, arguments), with Policy.CallTool: any catalog tool by its
//     exact name, for MCP clients that never re-list their tools;
//   - the pinned tools (Policy.Pinned), and the tools the session has found.
//
// A catalog tool called by its exact name runs (and is loaded) whether it is
// listed or not.
//
// # A catalog, its policies, and the sessions' views
//
// A [Catalog] follows a toolset (normally a hub) and keeps its search index up
// to date lazily: after the toolset changes, the next search indexes what
// changed. A process makes one, so that the catalog is indexed once for the
// agent, the gateway and the HTTP API's search:
//
//	cat := deferred.NewCatalog(h)              // h: a *hub.Hub, or any tool.Toolset
//	views := cat.Views(deferred.Policy{})      // Auto: deferred from 15 tools
//	v := views.View(sess.Loaded, save)         // one session's tool.Toolset
//	defer v.Close()
//	tools := v.Tools()                         // the search tools, pinned and loaded ones
//	res, err := v.Call(ctx, deferred.SearchToolName, json.RawMessage(`{"query": "send an email"}`))
//
// A [Policy] says when the catalog is deferred (Auto from a tool count or a share
// of the model's context window, Always, Never), which tools stay pinned, whether
// tool_call is offered, and whether tool_search also ranks by meaning
// (Policy.Embeddings, a search.Embeddings). The agent (agent.Options.Deferred and
// Catalog) and the gateway (gateway.Options.Deferred and Catalog) take a Policy
// and a shared Catalog and make their views themselves.
//
// A [View] is a tool.Toolset: its Changed channel fires when a search loads tools
// or the catalog changes, which is how the gateway tells a client
// notifications/tools/list_changed. save, when not nil, is called with the whole
// loaded set each time it grows, so that it persists with the session.
//
// Nothing here starts a goroutine but View.Changed's watcher, which View.Close
// stops.
package deferred
