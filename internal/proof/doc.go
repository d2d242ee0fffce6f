// Package proof holds only tests (and confclient, the driver one of them runs):
// end-to-end proofs that `switchboard mcp` is a conforming MCP server, and Switchboard
// a conforming MCP client, checked by the ecosystem's own tools rather than by
// Switchboard's tests of itself.
//
//   - TestConformance runs the MCP conformance suite (@modelcontextprotocol/conformance,
//     `conformance server`) against the gateway over Streamable HTTP, re-exporting the
//     Go SDK's conformance everything-server over stdio, and against that same
//     everything-server served directly over HTTP as the baseline. The gateway must pass
//     every check of the active suite, and the failure message names each scenario it
//     loses relative to the server on its own.
//   - TestConformanceClient runs the suite's sign-in client scenarios (0.1.16) with
//     `switchboard login` and `switchboard call`; TestConformanceClient2026 runs every
//     client scenario that the 2026-07-28 revision requires (suite 0.2.0-alpha.12,
//     `--requirements 2026-07-28`), the sign-ins the same way and the others through
//     confclient, a driver of Switchboard's own upstream connection; only the
//     extensions in testdata/conformance-client-2026-07-28.baseline may fail.
//   - TestInspectorCLI lists and calls the built-in demo tools through the gateway with
//     the MCP Inspector CLI (@modelcontextprotocol/inspector --cli), over stdio (the
//     inspector spawns `switchboard mcp`) and over Streamable HTTP.
//   - TestMCPRemote puts mcp-remote (the stdio bridge that stdio-only hosts run to
//     reach a remote server) between the Go SDK's client and serve's /mcp (its token
//     in --header), `switchboard mcp --listen` and --listen --stateless, in each of its
//     --protocol modes (legacy; auto, which bridges a 2025-11-25 client to a
//     2026-07-28 server), and lists and calls the demo tools;
//     TestMCPRemoteInputRequestsAndListChanges has a server's elicitations in the
//     middle of a call and a tool-list change reach a 2025-11-25 client behind it.
//   - TestJSClients runs testdata/clients' suite with node's test runner: the JS client
//     libraries people point at Switchboard (openai, @anthropic-ai/sdk, @openai/agents,
//     @modelcontextprotocol/sdk, Vercel's ai with @ai-sdk/openai and @ai-sdk/mcp,
//     @langchain/mcp-adapters), each in its documented way, against a serve that the
//     suite starts with fake-llm as its model (and fake-idp for the OAuth sign-ins);
//     TestClientsDocSnippets checks that docs/clients.md shows the code it runs.
//
// These tools need node 22, which `make deps` installs with them in testdata/node22 (see
// testenv.Node22), and the client libraries in testdata/clients. Without that install
// the tests are skipped, or fail when CI=true.
package proof
