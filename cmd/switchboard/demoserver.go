package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/internal/demo"
)

// demoServerCommand runs a built-in demo MCP server over stdio. It is hidden from the
// main help: users meet the demo servers through the built-in demo config.
func (a *app) demoServerCommand() *cobra.Command {
	var notesFile string
	cmd := &cobra.Command{
		Use:    "demo-server NAME",
		Short:  "Run a built-in demo MCP server over stdio (" + strings.Join(demo.Names(), ", ") + ")",
		Hidden: true,
		Args:   exactArgs(1, "a server name ("+strings.Join(demo.Names(), ", ")+")"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(demo.Names(), args[0]) {
				return usageError("unknown demo server %q (want %s)", args[0], strings.Join(demo.Names(), " or "))
			}
			if err := demo.Run(cmd.Context(), args[0], &demo.Options{NotesFile: notesFile}); err != nil {
				return fmt.Errorf("demo server %s: %w", args[0], err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&notesFile, "notes-file", "", "notes file for the notes server (default $SWITCHBOARD_NOTES_FILE or the user config dir)")
	return cmd
}
