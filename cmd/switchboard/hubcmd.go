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

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/format"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

// withHub loads the config, starts a hub, runs fn, and closes the hub whatever happens.
func (a *app) withHub(ctx context.Context, fn func(*hub.Hub) error) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	h := hub.New(cfg, &hub.Options{Logger: a.log})
	defer h.Close()
	if err := h.Start(ctx); err != nil {
		return &exitError{code: startExitCode(err), err: err}
	}
	return fn(h)
}

// startExitCode maps a failed start: a naming collision is the config's fault (2);
// a server that did not come up is a failure (1).
func startExitCode(err error) int {
	var ce *tool.CollisionError
	if errors.As(err, &ce) {
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
		Use:   "tools",
		Short: "Start every server and print the merged tool catalog",
		Long: `Tools starts every server, prints the merged catalog and closes everything.

--format prints the catalog exactly as a provider's API takes it (implies --json):
  mcp               MCP tool definitions {name, description, inputSchema, ...}
  openai            OpenAI Chat Completions {"type":"function","function":{...}}
  openai-responses  OpenAI Responses API {"type":"function","name",...}
  anthropic         Anthropic Messages API {name, description, input_schema}
--strict converts schemas to OpenAI strict mode (openai and openai-responses).`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p format.Provider
			if provider != "" {
				var err error
				if p, err = format.ParseProvider(provider); err != nil {
					return commandLineError("--format: %v", err)
				}
			}
			if strict && p != format.OpenAI && p != format.OpenAIResponses {
				if provider == "" {
					return commandLineError("--strict needs --format openai or openai-responses")
				}
				return commandLineError("--strict needs --format openai or openai-responses, not %s", provider)
			}
			return a.withHub(cmd.Context(), func(h *hub.Hub) error {
				tools := h.Tools()
				if provider != "" {
					defs, err := format.Tools(p, tools, &format.Options{Strict: strict})
					if err != nil {
						return err
					}
					return writeJSON(a.stdout, defs)
				}
				if asJSON {
					return writeJSON(a.stdout, toolsJSON(tools))
				}
				tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "TOOL\tSERVER\tDESCRIPTION")
				for _, t := range tools {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Server, firstLine(t.Description, 80))
				}
				tw.Flush()
				fmt.Fprintf(a.stdout, "%d tools from %d servers\n", len(tools), countReady(h.Status()))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print a JSON array of {"name", "server", "originalName", "description", "inputSchema"}`)
	cmd.Flags().StringVar(&provider, "format", "", "print the catalog in a provider's tool format: mcp, openai, openai-responses, anthropic")
	cmd.Flags().BoolVar(&strict, "strict", false, "with --format openai or openai-responses: OpenAI strict-mode schemas")
	return cmd
}

type toolJSON struct {
	Name         string          `json:"name"`
	Server       string          `json:"server"`
	OriginalName string          `json:"originalName"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
}

func toolsJSON(tools []tool.Tool) []toolJSON {
	out := make([]toolJSON, 0, len(tools))
	for _, t := range tools {
		out = append(out, toolJSON{t.Name, t.Server, t.OriginalName, t.Description, t.InputSchema})
	}
	return out
}

func (a *app) callCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "call TOOL [ARGS]",
		Short: "Call one tool and print its result",
		Long: `Call starts the servers, calls TOOL with ARGS (a JSON object; '-' reads it from
stdin; default {}), prints the result as text, and closes everything.

Exit codes: 0 the tool succeeded, 1 the tool returned an error, 2 bad arguments or an
unknown tool.`,
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
			return a.withHub(cmd.Context(), func(h *hub.Hub) error {
				name := args[0]
				if _, ok := h.Lookup(name); !ok {
					return usageError("%v; run 'switchboard tools' to list them", h.UnknownTool(name))
				}
				res, err := h.Call(cmd.Context(), name, callArgs)
				if err != nil {
					return err
				}
				if asJSON {
					if err := writeJSON(a.stdout, res); err != nil {
						return err
					}
				} else {
					fmt.Fprintln(a.stdout, tool.Text(res))
				}
				if res.IsError {
					return silentExit(exitFailed)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole MCP result as JSON")
	return cmd
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
	if !errors.As(err, &se) || int(se.Offset) >= len(raw) {
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
		Use:   "status",
		Short: "Start every server and print each one's state",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withHub(cmd.Context(), func(h *hub.Hub) error {
				sts := h.Status()
				if asJSON {
					return writeJSON(a.stdout, statusJSON(sts, len(h.Tools())))
				}
				tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "SERVER\tSTATE\tTRANSPORT\tTOOLS\tRESTARTS\tERROR")
				for _, st := range sts {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", st.Name, st.State, st.Transport, st.Tools, st.Restarts, firstLine(st.LastError, 60))
				}
				tw.Flush()
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"servers": [...], "tools": N}`)
	return cmd
}

type serverStatusJSON struct {
	Name      string   `json:"name"`
	State     string   `json:"state"`
	Transport string   `json:"transport"`
	Tools     int      `json:"tools"`
	Restarts  int      `json:"restarts"`
	Error     string   `json:"error"`
	Stderr    []string `json:"stderr"`
}

func statusJSON(sts []upstream.Status, tools int) any {
	servers := make([]serverStatusJSON, 0, len(sts))
	for _, st := range sts {
		stderr := st.Stderr
		if stderr == nil {
			stderr = []string{}
		}
		servers = append(servers, serverStatusJSON{st.Name, string(st.State), string(st.Transport), st.Tools, st.Restarts, st.LastError, stderr})
	}
	return map[string]any{"servers": servers, "tools": tools}
}

func countReady(sts []upstream.Status) int {
	n := 0
	for _, st := range sts {
		if st.State == upstream.Ready {
			n++
		}
	}
	return n
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
