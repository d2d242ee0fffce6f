// Package proof holds no code, only tests: end-to-end proofs that `switchboard mcp`
// is a conforming MCP server, checked by the ecosystem's own tools rather than by
// Switchboard's tests of itself.
//
//   - TestConformance runs the MCP conformance suite (@modelcontextprotocol/conformance,
//     `conformance server`) against the gateway over Streamable HTTP, re-exporting the
//     Go SDK's conformance everything-server over stdio, and against that same
//     everything-server served directly over HTTP as the baseline. The gateway must pass
//     every check of the active suite, and the failure message names each scenario it
//     loses relative to the server on its own.
//   - TestInspectorCLI lists and calls the built-in demo tools through the gateway with
//     the MCP Inspector CLI (@modelcontextprotocol/inspector --cli), over stdio (the
//     inspector spawns `switchboard mcp`) and over Streamable HTTP.
//
// Both tools need node 22, which `make deps` installs with them in testdata/node22 (see
// testenv.Node22). Without that install the tests are skipped, or fail when CI=true.
package proof
