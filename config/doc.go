// Package config loads mcp.json in every shape that MCP hosts write and turns it into
// one typed form, [Config].
//
// Accepted shapes:
//
//	{"mcpServers": {"name": {...}}}            Claude Desktop, Cursor, most hosts
//	{"servers": {"name": {...}}, "inputs": []} VS Code ("inputs" not supported yet: a warning)
//	{"services": {"name": {...}}}              legacy; "enabled" defaults to true
//	{"name": {...}}                            a bare map
//
// Files may contain comments and trailing commas (JSONC). A top-level "switchboard"
// object holds host settings ([Settings]). ${VAR}, ${VAR:-default} and ${env:VAR} expand
// from the environment in command, args, env values, cwd, url and header values.
//
// Every problem is reported at once, each naming its place:
//
//	mcp.json:12:5: invalid character '}' looking for beginning of value
//	mcp.json:3:16: mcpServers.github: "command" or "url" is required
//
// Load a file with [Load], bytes with [Parse], a Go value with [FromValue].
package config
