package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/switchboard-mcp/switchboard/host"
)

// app holds what every subcommand shares: global flags, output streams and the logger.
type app struct {
	configPath string
	// dataDir is --data-dir of the commands that connect to servers (chat, serve
	// and sessions have theirs in agentFlags).
	dataDir   string
	logLevel  string
	logFormat string
	logFile   string
	// server is --server: the URL of a running service to ask (remote.go).
	server string
	// remote is the client of that service (--server, else $SWITCHBOARD_SERVER) for
	// a command that can ask one; nil: the command runs here.
	remote *remote
	// demoNote says that no config was found and the demo servers run (demoNotice),
	// once loadConfig found none; logsDemo: the command logs it (serve and mcp, which
	// log as they run); the one-shot commands leave it to the output of tools, status
	// and check, not a warning on every run.
	demoNote string
	logsDemo bool

	stdout, stderr io.Writer
	log            *slog.Logger
	// red masks secrets in every log line and error: the config's (registered by
	// the hub and by loading), the model's key, the token, the DSN, typed answers.
	red       *host.Redactor
	logCloser io.Closer
	// endTraces flushes the spans and stops the exporter that the OTEL_*
	// variables asked for (host.SetupTelemetry); nil: none was set up.
	endTraces func(context.Context) error
}

// traceFlushTimeout bounds the wait for the collector as a command ends.
const traceFlushTimeout = 5 * time.Second

// run executes one command line and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, red: &host.Redactor{}}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if a.remote != nil {
		a.remote.close()
	}
	if a.endTraces != nil {
		// The command's spans are queued: send them before the process exits, a
		// collector that does not answer holding it up for a few seconds at most.
		flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), traceFlushTimeout)
		if terr := a.endTraces(flush); terr != nil {
			a.log.Warn("could not send the traces", "error", terr)
		}
		cancel()
	}
	if a.logCloser != nil {
		a.logCloser.Close()
	}
	code, msg := exitCode(err)
	if msg != "" {
		fmt.Fprintln(stderr, errorLine(a.red.String(msg)))
		var ee *exitError
		if code == exitUsage && (!errors.As(err, &ee) || ee.hint) {
			fmt.Fprintln(stderr, "Run 'switchboard --help' for usage.")
		}
	}
	return code
}

// errorLine is msg as the one line that names the program: messages that already
// start with a command path ("switchboard call: …") keep it rather than doubling it.
func errorLine(msg string) string {
	if strings.HasPrefix(msg, "switchboard ") || strings.HasPrefix(msg, "switchboard:") {
		return msg
	}
	return "switchboard: " + msg
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "switchboard",
		Short: "Connect LLM agents to many MCP servers at once",
		Long: `Switchboard loads an mcp.json (Claude Desktop, Cursor, VS Code or legacy shape),
starts and supervises every MCP server in it, and serves all of their tools as one
catalog.

` + configPlacesHelp(86) + `

Exit codes: 0 ok, 1 the operation failed, 2 usage or configuration error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version says what `switchboard version` says.
		Version: versionString(),
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.setupLogging(cmd); err != nil {
				return err
			}
			a.logsDemo = cmd.Annotations[logLevelKey] != ""
			end, err := host.SetupTelemetry(cmd.Context(), a.log)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			a.endTraces = end
			return a.setupRemote(cmd)
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: err, hint: true}
	})
	pf := root.PersistentFlags()
	pf.StringVarP(&a.configPath, "config", "c", "", configFlagHelp())
	pf.StringVar(&a.logLevel, "log-level", "", "log level: debug, info, warn, error (default warn, so that a one-shot command prints its answer and warnings only; info for serve and mcp)")
	pf.StringVar(&a.logFormat, "log-format", "text", "log format: text or json")
	pf.StringVar(&a.logFile, "log-file", "", "write logs to this file (rotated by size) instead of stderr")
	pf.StringVar(&a.server, "server", "", "ask the switchboard service at this URL (what 'switchboard serve' serves) instead of starting the servers: tools, call, status, search, sessions and chat (default $"+serverEnv+"; its token from $"+tokenEnv+")")

	root.AddCommand(
		a.checkCommand(),
		a.toolsCommand(),
		a.callCommand(),
		a.statusCommand(),
		a.searchCommand(),
		a.mcpCommand(),
		a.serveCommand(),
		a.chatCommand(),
		a.sessionsCommand(),
		a.addCommand(),
		a.removeCommand(),
		a.importCommand(),
		a.loginCommand(),
		a.logoutCommand(),
		a.versionCommand(),
		a.demoServerCommand(),
		a.fakeLLMCommand(),
		a.healthCommand(),
		a.fakeIdPCommand(),
	)
	return root
}

// logLevelKey is the annotation of a command whose default log level is not warn: the
// long-running ones (serve, mcp) say what they do as they run; a one-shot command
// (tools, call, chat, …) prints its answer and the warnings, and --log-level info
// brings the rest (servers starting, the config file read, servers' stderr).
const logLevelKey = "switchboard/log-level"

// defaultLogLevel is the log level of cmd without --log-level.
func defaultLogLevel(cmd *cobra.Command) string {
	if l := cmd.Annotations[logLevelKey]; l != "" {
		return l
	}
	return "warn"
}

func (a *app) setupLogging(cmd *cobra.Command) error {
	level := a.logLevel
	if level == "" {
		level = defaultLogLevel(cmd)
	}
	log, closer, err := host.NewLogger(&host.LogOptions{
		Redactor: a.red,
		Level:    level,
		Format:   a.logFormat,
		File:     a.logFile,
		Writer:   a.stderr,
	})
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	a.log, a.logCloser = log, closer
	slog.SetDefault(log)
	return nil
}

// exactArgs is cobra.ExactArgs with our usage exit code and a message naming the command.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return commandLineError("%s: want %s, got %d argument(s)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

// alias lets a flag be given by another name too: serve's --addr and mcp's --listen
// name the same thing, and a user who knows one command tries it on the other.
func alias(from, to string) func(*pflag.FlagSet, string) pflag.NormalizedName {
	return func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == from {
			name = to
		}
		return pflag.NormalizedName(name)
	}
}
