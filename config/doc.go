// Package config loads mcp.json in every shape that MCP hosts write and turns it into
// one typed form, [Config].
//
// Accepted shapes:
//
//	{"mcpServers": {"name": {...}}}            Claude Desktop, Cursor, most hosts
//	{"servers": {"name": {...}}, "inputs": []} VS Code
//	{"services": {"name": {...}}}              legacy; "enabled" defaults to true
//	{"name": {...}}                            a bare map
//
// Files may contain comments and trailing commas (JSONC). A top-level "switchboard"
// object holds host settings ([Settings]). ${VAR}, ${VAR:-default} and ${env:VAR} expand
// from the environment in command, args, env values, cwd, url and header values. The
// values of variables that feed env or header values, or whose names say they are
// credentials (GITHUB_TOKEN, API_KEY), are secrets ([Config.Secrets]); others are not.
//
// VS Code's ${workspaceFolder} is the config's project directory: the directory that
// holds the config's .vscode/ or .cursor/ (P for P/.vscode/mcp.json), else the config
// file's directory ([Options.WorkspaceFolder] overrides). A stdio server runs there
// unless its "cwd" says otherwise, and a relative cwd or command path is taken from
// there ([Server.WorkDir], [Server.CommandPath]), so a config means the same wherever
// it is started from. ${input:ID} takes the value of an input declared under "inputs" ([Input]):
// from $SWITCHBOARD_INPUT_<ID>, else [Options.Prompt], else the input's default, else an
// error naming the input and the variable. Input values are secrets.
//
// [Discover] finds the file a user most likely means (--config and its claude, cursor
// and vscode shortcuts, $SWITCHBOARD_CONFIG, the working directory's mcp.json,
// .mcp.json, .vscode/mcp.json and .cursor/mcp.json, then Claude Desktop's and Cursor's
// user configs).
//
// Durations (timeout, toolTimeout, heartbeat, and heartbeat, retryFailed and
// sessions.timeout in the "switchboard" object) follow one rule: a number of seconds (10, 2.5, "30") or a Go
// duration string ("30s", "1m30s"); never negative (an error naming the place); 0 means
// the default for timeouts and off for heartbeat, retryFailed and sessions.timeout. A plain number of
// 1000 or more gets a warning: it is most likely milliseconds.
//
// Env values: a string is taken as written, after expansion; a number or boolean as its
// JSON text exactly as written (42, 1.50, true), since a process sees only strings;
// null, an object or an array is an error naming the place ("" is the empty value).
// Header values are strings.
//
// The "switchboard" object also configures the agent: "model" ([ModelSettings]: provider
// openai or anthropic, name, baseURL, apiKeyEnv — the name of the variable that holds
// the key, never the key — maxTokens, temperature), "agent" ([AgentSettings]: maxSteps,
// parallelTools, system) and "sessions" ([SessionSettings]: store sqlite, memory or
// postgres, path, dsn, timeout). A server's "approve" (a list of tool globs, "always" or
// "never") says which of its tools need the user's approval before an agent calls them
// ([Server.NeedsApproval]); "sampling": true lets the configured model answer its
// sampling requests; "forwardIdentity": true (HTTP and SSE servers) tells it, in
// headers of each request made for a person's call, who that person is
// ([Server.ForwardIdentity]).
//
// Every problem is reported at once, each naming its place:
//
//	mcp.json:12:5: invalid character '}' looking for beginning of value
//	mcp.json:3:16: mcpServers.github: "command" or "url" is required
//
// Load a file with [Load], bytes with [Parse], a Go value with [FromValue].
package config
