package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/host/devtools"
)

// demoServerCommand runs a built-in demo MCP server over stdio. It is hidden from the
// main help: users meet the demo servers through the built-in demo config.
func (a *app) demoServerCommand() *cobra.Command {
	var notesFile string
	cmd := &cobra.Command{
		Use:    "demo-server NAME",
		Short:  "Run a built-in demo MCP server over stdio (" + strings.Join(host.DemoServers(), ", ") + ")",
		Hidden: true,
		Args:   exactArgs(1, "a server name ("+strings.Join(host.DemoServers(), ", ")+")"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(host.DemoServers(), args[0]) {
				return usageError("unknown demo server %q (want %s)", args[0], strings.Join(host.DemoServers(), " or "))
			}
			if err := devtools.RunDemo(cmd.Context(), args[0], notesFile); err != nil {
				return fmt.Errorf("demo server %s: %w", args[0], err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&notesFile, "notes-file", "", "notes file for the notes server (default $SWITCHBOARD_NOTES_FILE or the user config dir)")
	return cmd
}
