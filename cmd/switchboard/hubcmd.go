package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/host"
)

// errorWidth is how much of a server's error status and the waiting notice show: the
// reason a process gave comes after what happened ("process exited with status 1
// during start-up: Error: Cannot find module 'x'"), and 60 characters cut it off.
const errorWidth = 120

// waitNotice is how long tools and status wait for the servers before they say which
// ones they still wait for.
const waitNotice = 2 * time.Second

// withHub loads the config, starts the servers and waits for every one, runs fn, and
// closes them whatever happens. When servers take longer than waitNotice, it says
// once which ones it still waits for.
func (a *app) withHub(ctx context.Context, fn func(*host.Host) error) error {
	return a.withLaunchedHost(ctx, func(hs *host.Host) error {
		if err := a.settle(ctx, hs); err != nil {
			return err
		}
		return fn(hs)
	})
}

// settle waits for every server of a launched host as withHub does, and signs in
// to those that wait for a sign-in when a person can be asked (signInWaiting).
func (a *app) settle(ctx context.Context, hs *host.Host) error {
	err := hs.Settle(ctx, &host.SettleOptions{
		NoticeAfter: waitNotice,
		// A warning: a server this slow to start is worth knowing about, and the
		// command would otherwise seem to hang.
		Slow:    func(pending []host.ServerState) { a.log.Warn("waiting for " + waitingFor(pending)) },
		Settled: func(ctx context.Context) { a.signInWaiting(ctx, hs) },
	})
	if err != nil {
		return &exitError{code: startExitCode(err), err: err}
	}
	return nil
}

// withLaunchedHost loads the config, starts the servers without waiting for them,
// runs fn, and closes everything whatever happens.
func (a *app) withLaunchedHost(ctx context.Context, fn func(*host.Host) error) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	hs := host.New(cfg, a.hostOptions(nil))
	defer hs.Close()
	if err := hs.SignInError(); err != nil {
		return settingsError(err, "", false)
	}
	if err := hs.Launch(); err != nil {
		return err
	}
	return fn(hs)
}

// waitingFor is e.g. `slow (still connecting, within its 10m0s init timeout), flaky
// (connecting; last attempt: process exited with status 2 …)`.
func waitingFor(pending []host.ServerState) string {
	parts := make([]string, len(pending))
	for i, st := range pending {
		why := st.Reason
		if st.LastError != "" {
			why = fmt.Sprintf("%s; last attempt: %s", st.State, firstLine(st.LastError, errorWidth))
		}
		parts[i] = fmt.Sprintf("%s (%s)", st.Name, why)
	}
	return strings.Join(parts, ", ")
}

// startExitCode maps a failed start: a naming collision or a setting the host cannot
// work with is the config's fault (2); a server that did not come up is a failure (1).
func startExitCode(err error) int {
	if host.ConfigFault(err) {
		return exitUsage
	}
	return exitFailed
}

func (a *app) toolsCommand() *cobra.Command {
	var (
		asJSON   bool
		provider string
		strict   bool
	)
	cmd := &cobra.Command{
		Use:         "tools",
		Annotations: map[string]string{remoteKey: "yes"},
		Short:       "Start every server, print the merged tool catalog, and stop them",
		Long: `Tools starts the servers itself (it does not ask a running switchboard,
unless --server or $SWITCHBOARD_SERVER names one: see below), waits for
each to be ready, failed or past its init timeout, prints the merged catalog and closes
everything. After a couple of seconds it says on stderr which servers it still waits for.
The summary line names the servers that are not ready.

--format prints the catalog exactly as a provider's API takes it (implies --json):
  mcp               MCP tool definitions {name, description, inputSchema, ...}
  openai            OpenAI Chat Completions {"type":"function","function":{...}}
  openai-responses  OpenAI Responses API {"type":"function","name",...}
  anthropic         Anthropic Messages API {name, description, input_schema}
With --server URL (or $SWITCHBOARD_SERVER; its token from $SWITCHBOARD_TOKEN) it asks
that running 'switchboard serve' instead (GET /v1/tools) and starts nothing: the
service's catalog as it is now, printed the same way.

--strict converts schemas to OpenAI strict mode (openai and openai-responses).`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p host.Provider
			if provider != "" {
				var err error
				if p, err = host.ParseProvider(provider); err != nil {
					return commandLineError("--format: %v", err)
				}
			}
			if strict && p != host.OpenAI && p != host.OpenAIResponses {
				if provider == "" {
					return commandLineError("--strict needs --format openai or openai-responses")
				}
				return commandLineError("--strict needs --format openai or openai-responses, not %s", provider)
			}
			if a.remote != nil {
				return a.remoteTools(cmd.Context(), p, asJSON, strict)
			}
			return a.withHub(cmd.Context(), func(hs *host.Host) error {
				tools := hs.Tools()
				if provider != "" || asJSON {
					// What GET /v1/tools answers too, from the one function.
					v, err := hs.ToolCatalog(p, strict)
					if err != nil {
						return err
					}
					return writeJSON(a.stdout, v)
				}
				tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "TOOL\tSERVER\tDESCRIPTION")
				for _, t := range tools {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Server, firstLine(t.Description, 80))
				}
				tw.Flush()
				fmt.Fprintln(a.stdout, toolsSummary(len(tools), statusesOf(hs.Servers())))
				a.printDemoNote()
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print a JSON array of {"name", "server", "originalName", "description", "inputSchema"}`)
	cmd.Flags().StringVar(&provider, "format", "", "print the catalog in a provider's tool format: mcp, openai, openai-responses, anthropic")
	cmd.Flags().BoolVar(&strict, "strict", false, "with --format openai or openai-responses: OpenAI strict-mode schemas")
	a.addDataDir(cmd)
	markLocalOnly(cmd, "json", "format", "strict", "data-dir")
	return cmd
}

func (a *app) callCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:         "call TOOL [ARGS]",
		Annotations: map[string]string{remoteKey: "yes"},
		Short:       "Start the servers, call one tool, print its result, and stop them",
		Long: `Call starts the servers itself (it does not ask a running switchboard,
unless --server or $SWITCHBOARD_SERVER names one: see below), calls TOOL
with ARGS (a JSON object; '-' reads it from stdin; default {}) as soon as the server that
owns TOOL is ready, prints the result as text, and closes everything. It waits for the
servers listed before that one (each within its init timeout), which would own a name
they share, as 'tools' shows, and for the others only while TOOL is not found yet.

ARGS may nest objects and arrays 64 levels deep (the config's
"switchboard.maxArgumentDepth"); deeper ARGS are refused before any server sees them.

With --server URL (or $SWITCHBOARD_SERVER; its token from $SWITCHBOARD_TOKEN) the call
goes to that running 'switchboard serve' instead (POST /v1/tools/TOOL/call), which
starts nothing here; the output and exit codes are the same.

Exit codes: 0 the tool succeeded, 1 the tool returned an error, 2 bad arguments (deeper
than the bound too) or an unknown tool.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return commandLineError("%s: want TOOL and optional ARGS, got %d argument(s)", cmd.CommandPath(), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			callArgs, err := readCallArgs(args[1:], os.Stdin)
			if err != nil {
				return err
			}
			if a.remote != nil {
				return a.remoteCall(cmd.Context(), args[0], callArgs, asJSON)
			}
			return a.withLaunchedHost(cmd.Context(), func(hs *host.Host) error {
				return a.call(cmd.Context(), hs, args[0], callArgs, asJSON)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole MCP result as JSON")
	a.addDataDir(cmd)
	markLocalOnly(cmd, "json", "data-dir")
	return cmd
}

// call runs one call as the call command does, on a launched host.
func (a *app) call(ctx context.Context, hs *host.Host, name string, callArgs json.RawMessage, asJSON bool) error {
	if err := hs.CheckArguments(callArgs); err != nil {
		return usageError("ARGS: %v", err)
	}
	// Only the server that owns the tool, and those listed before it (one of them
	// would own a name they share), matter: the call goes as soon as they are
	// settled, whatever the others are doing (see hub.WaitTool).
	_, err := hs.WaitTool(ctx, name)
	if host.UnknownTool(err) != nil && len(a.signInWaiting(ctx, hs)) > 0 {
		// The tool may be one of a server that waited for the sign-in just made.
		_, err = hs.WaitTool(ctx, name)
	}
	if err != nil {
		if unknown := host.UnknownTool(err); unknown != nil {
			if waiting := needSignIn(statusesOf(hs.Servers())); len(waiting) > 0 {
				return &exitError{code: exitFailed, err: fmt.Errorf("%v; run 'switchboard tools' to list them (%s wait for a sign-in, and their tools are not listed: 'switchboard login %s')",
					unknown, strings.Join(waiting, ", "), waiting[0])}
			}
			return usageError("%v; run 'switchboard tools' to list them", unknown)
		}
		return &exitError{code: startExitCode(err), err: err}
	}
	// A server that wants more access for this call (403 insufficient_scope): a new
	// sign-in at this terminal, then the call once more.
	res, err := hs.StepUp(a.signInAgain(hs)).Call(ctx, name, callArgs)
	if err != nil {
		return err
	}
	if asJSON {
		if err := writeJSON(a.stdout, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(a.stdout, host.ToolText(res))
	}
	if res.IsError {
		return silentExit(exitFailed)
	}
	return nil
}

// readCallArgs parses the optional ARGS argument: a JSON object, or '-' for stdin.
func readCallArgs(args []string, stdin io.Reader) (json.RawMessage, error) {
	if len(args) == 0 {
		return json.RawMessage(`{}`), nil
	}
	raw := []byte(args[0])
	if args[0] == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, usageError("reading ARGS from stdin: %v", err)
		}
		raw = b
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, usageError("ARGS is empty, want a JSON object like '{\"text\": \"hi\"}'")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, usageError("ARGS: %s", jsonProblem(raw, err))
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, usageError("ARGS is %s, want an object like '{\"text\": \"hi\"}'", jsonKind(v))
	}
	return json.RawMessage(raw), nil
}

// jsonProblem says what is wrong with raw and where: the offset, and the line and
// column when raw spans several lines (ARGS read from a file on stdin).
func jsonProblem(raw []byte, err error) string {
	var se *json.SyntaxError
	// The input's end has no position worth naming; an offending last byte (`{"a": }`)
	// has one.
	if !errors.As(err, &se) || int(se.Offset) > len(raw) || strings.HasPrefix(se.Error(), "unexpected end") {
		return err.Error() // "unexpected end of JSON input"
	}
	// Offset counts the bytes read, the offending one included.
	off := max(0, int(se.Offset)-1)
	if line := bytes.Count(raw[:off], []byte("\n")) + 1; line > 1 {
		col := off - bytes.LastIndexByte(raw[:off], '\n')
		return fmt.Sprintf("%s at line %d, column %d", se, line, col)
	}
	return fmt.Sprintf("%s at offset %d", se, off)
}

// jsonKind names the type of a decoded JSON value, with its article.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "a JSON array"
	case string:
		return "a JSON string"
	case float64:
		return "a JSON number"
	case bool:
		return "a JSON boolean"
	}
	return "not an object"
}

func (a *app) statusCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:         "status",
		Annotations: map[string]string{remoteKey: "yes"},
		Short:       "Start every server, print each one's state, and stop them",
		Long: `Status starts the servers itself (it does not ask a running switchboard,
unless --server or $SWITCHBOARD_SERVER names one: see below), waits for
each to be ready, failed or past its init timeout, prints their states and closes
everything. After a couple of seconds it says on stderr which servers it still waits for.

TOOLS is the number of tools the server offers to the catalog; "2/5" when its
allow/deny list hides 3 of its 5. ERROR says why a server is not ready.

With --server URL (or $SWITCHBOARD_SERVER; its token from $SWITCHBOARD_TOKEN) it shows
the servers of that running 'switchboard serve' instead (GET /v1/servers), as they are
now, and starts nothing.

Exit codes: 0 every server is ready (or disabled), 1 a server is not ready (failed,
or still connecting after its init timeout), 2 usage or configuration error.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.remote != nil {
				return a.remoteStatus(cmd.Context(), asJSON)
			}
			return a.withHub(cmd.Context(), func(hs *host.Host) error {
				servers := hs.Servers()
				sts := statusesOf(servers)
				if err := a.writeStatus(serverRows(servers), len(hs.Tools()), asJSON); err != nil {
					return err
				}
				if !asJSON {
					a.printDemoNote()
				}
				if len(notReady(sts)) > 0 {
					return silentExit(exitFailed)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"servers": [...], "tools": N}`)
	a.addDataDir(cmd)
	markLocalOnly(cmd, "json", "data-dir")
	return cmd
}

// writeStatus prints the servers' rows as status does: a table, or with asJSON
// {"servers": rows, "tools": tools}.
func (a *app) writeStatus(rows []serverStatusJSON, tools int, asJSON bool) error {
	if asJSON {
		return writeJSON(a.stdout, map[string]any{"servers": rows, "tools": tools})
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATE\tTRANSPORT\tTOOLS\tRESTARTS\tERROR")
	for _, r := range rows {
		tools := fmt.Sprint(r.Tools)
		if r.Tools != r.ToolsTotal {
			tools = fmt.Sprintf("%d/%d", r.Tools, r.ToolsTotal)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", r.Name, r.State, r.Transport, tools, r.Restarts, firstLine(r.Error, errorWidth))
	}
	return tw.Flush()
}

type serverStatusJSON struct {
	Name      string `json:"name"`
	State     string `json:"state"`
	Transport string `json:"transport"`
	// Tools is what the catalog shows of the server's ToolsTotal after allow/deny.
	Tools      int      `json:"tools"`
	ToolsTotal int      `json:"toolsTotal"`
	Restarts   int      `json:"restarts"`
	Error      string   `json:"error"`
	Stderr     []string `json:"stderr"`
}

// serverRows is what status shows of each server: exposed and offered tools, and why
// a server is not ready.
func serverRows(servers []host.ServerState) []serverStatusJSON {
	rows := make([]serverStatusJSON, 0, len(servers))
	for _, st := range servers {
		rows = append(rows, statusRow(st.ServerStatus, st.Exposed, st.Reason))
	}
	return rows
}

// statusesOf is the status of each server.
func statusesOf(servers []host.ServerState) []apiwire.ServerStatus {
	out := make([]apiwire.ServerStatus, len(servers))
	for i, st := range servers {
		out[i] = st.ServerStatus
	}
	return out
}

// statusRow is one server's row: its status, the tools it exposes in the catalog, and
// why it is not ready (reason, else its last error). A server of this process and
// one of a running service (remotecmds.go) are the same wire type.
func statusRow(st apiwire.ServerStatus, exposed int, reason string) serverStatusJSON {
	stderr := st.Stderr
	if stderr == nil {
		stderr = []string{}
	}
	why := st.LastError
	if reason != "" {
		why = reason
	}
	return serverStatusJSON{st.Name, string(st.State), st.Transport, exposed, st.Tools, st.Restarts, why, stderr}
}

// notReady lists the servers that are neither ready nor disabled.
func notReady(sts []apiwire.ServerStatus) []apiwire.ServerStatus {
	var out []apiwire.ServerStatus
	for _, st := range sts {
		if st.State != apiwire.Ready && st.State != apiwire.Disabled {
			out = append(out, st)
		}
	}
	return out
}

// toolsSummary is e.g. "6 tools from 2 servers" ("1 tool from 1 server"), or with servers not ready
// "6 tools from 2 of 6 servers (3 failed: a, b, c; 1 connecting: d)".
func toolsSummary(tools int, sts []apiwire.ServerStatus) string {
	ready := 0
	var states []apiwire.State
	byState := map[apiwire.State][]string{}
	for _, st := range sts {
		if st.State == apiwire.Ready {
			ready++
			continue
		}
		if byState[st.State] == nil {
			states = append(states, st.State)
		}
		byState[st.State] = append(byState[st.State], st.Name)
	}
	if len(states) == 0 {
		return plural(tools, "tool") + " from " + plural(ready, "server")
	}
	var parts []string
	for _, state := range states {
		parts = append(parts, fmt.Sprintf("%d %s: %s", len(byState[state]), state, strings.Join(byState[state], ", ")))
	}
	return fmt.Sprintf("%s from %d of %s (%s)", plural(tools, "tool"), ready, plural(len(sts), "server"), strings.Join(parts, "; "))
}

func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len([]rune(s)) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
