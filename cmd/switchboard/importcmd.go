package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/host/admin"
)

func (a *app) importCommand() *cobra.Command {
	var replace, skip, rename, dry bool
	cmd := &cobra.Command{
		Use:   "import claude|cursor|vscode|codex|FILE",
		Short: "Import the servers of another host's config into the config file",
		Long: `Import merges the servers that another MCP host has configured into the config file
that the other commands read (--config, $SWITCHBOARD_CONFIG, else the first file
found; ./mcp.json, made, when there is none), keeping the file's comments. It reads:

  claude   Claude Code's ~/.claude.json (this directory's project, then its
           "mcpServers"), ./.mcp.json, then Claude Desktop's claude_desktop_config.json
  cursor   ./.cursor/mcp.json, then ~/.cursor/mcp.json
  vscode   ./.vscode/mcp.json, then VS Code's user mcp.json
  codex    ./.codex/config.toml, then $CODEX_HOME/config.toml (~/.codex/config.toml)
  FILE     a config file: Codex's TOML (.toml), or any shape an mcp.json has

A server two of them name is taken from the first. A server the file has already
with another entry is a clash: on a terminal import asks what to do with each;
otherwise it refuses, writing nothing, unless --replace (the imported entry takes
its place), --skip (the file's stays) or --rename (the imported one is added as
NAME-claude, NAME-codex, ...) says. --dry-run shows what the import would do and
writes nothing. Secrets are never printed.`,
		Example: `  switchboard import codex --dry-run
  switchboard import claude --skip
  switchboard --config team.json import ~/Downloads/mcp.json --rename`,
		Args: exactArgs(1, "a host (claude, cursor, vscode, codex) or a FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 0
			for _, b := range []bool{replace, skip, rename} {
				if b {
					n++
				}
			}
			if n > 1 {
				return commandLineError("%s: --replace, --skip and --rename do not go together: choose one", cmd.CommandPath())
			}
			path, err := a.editConfigPath()
			if err != nil {
				return err
			}
			o := &host.ImportOptions{FileEditOptions: host.FileEditOptions{DryRun: dry}}
			switch {
			case replace:
				o.Clash = func(host.Clash) (host.ClashChoice, error) { return host.ReplaceExisting, nil }
			case skip:
				o.Clash = func(host.Clash) (host.ClashChoice, error) { return host.KeepExisting, nil }
			case rename:
				o.Clash = func(host.Clash) (host.ClashChoice, error) { return host.RenameImported, nil }
			case stdinIsTerminal():
				o.Clash = func(c host.Clash) (host.ClashChoice, error) { return a.askClash(os.Stdin, c, args[0]) }
			}
			res, err := host.ImportServers(path, args[0], o)
			var ae *admin.Error
			if errors.As(err, &ae) && ae.Kind == admin.Exists {
				return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w (%s): choose with --replace, --skip or --rename (nothing written)",
					cmd.CommandPath(), err, tildePath(path))}
			}
			if errors.Is(err, errImportAborted) {
				return &exitError{code: exitFailed, err: fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
			}
			if err != nil {
				return editFailed(cmd, err)
			}
			a.printImport(res, dry)
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&replace, "replace", false, "on a name the config has already: the imported entry takes its place")
	f.BoolVar(&skip, "skip", false, "on a name the config has already: keep the config's server, leave the imported one out")
	f.BoolVar(&rename, "rename", false, "on a name the config has already: add the imported server as NAME-HOST")
	f.BoolVar(&dry, "dry-run", false, "show what the import would do, and write nothing")
	return cmd
}

var errImportAborted = errors.New("import aborted: nothing written")

// askClash asks on the terminal what to do with a clash.
func (a *app) askClash(in *os.File, c host.Clash, from string) (host.ClashChoice, error) {
	fmt.Fprintf(a.stderr, "%q is in the config already, with another entry (it differs in %s):\n  the config's: %s\n  %s's: %s\n",
		c.Name, strings.Join(c.Differ, ", "), entryTarget(c.Existing, a.red), from, entryTarget(c.Incoming, a.red))
	for {
		fmt.Fprintf(a.stderr, "[k]eep the config's, [r]eplace it, re[n]ame the imported one to %q, or [a]bort? ", c.Rename)
		line, err := readLine(in)
		if err != nil { // the end of stdin: nobody to answer

			return 0, errImportAborted
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "k", "keep":
			return host.KeepExisting, nil
		case "r", "replace":
			return host.ReplaceExisting, nil
		case "n", "rename":
			return host.RenameImported, nil
		case "a", "abort":
			return 0, errImportAborted
		}
	}
}

// printImport shows what an import did (or would do): the files read, then each
// server with its action and where it runs, their notes, and a summary.
func (a *app) printImport(res *host.ImportResult, dry bool) {
	for _, f := range res.Files {
		if f.Found {
			fmt.Fprintf(a.stdout, "read %s (%s)\n", tildePath(f.Path), f.Host)
		}
	}
	counts := map[host.ImportAction]int{}
	for _, s := range res.Servers {
		counts[s.Action]++
		name := s.Name
		if s.Was != "" {
			name = fmt.Sprintf("%s (was %s)", s.Name, s.Was)
		}
		fmt.Fprintf(a.stdout, "  %-9s %-20s %s\n", s.Action, name, entryTarget(s.Entry, a.red))
		for _, n := range s.Notes {
			fmt.Fprintf(a.stdout, "            %s\n", n)
		}
	}
	var parts []string
	for _, act := range []struct {
		a    host.ImportAction
		done string
	}{{host.Added, "added"}, {host.Replaced, "replaced"}, {host.Renamed, "renamed"}, {host.Kept, "kept"}, {host.Unchanged, "unchanged"}, {host.Skipped, "left out"}} {
		if counts[act.a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[act.a], act.done))
		}
	}
	summary := strings.Join(parts, ", ")
	if summary == "" {
		summary = "no servers"
	}
	where := tildePath(res.Source)
	switch {
	case dry:
		fmt.Fprintf(a.stdout, "dry run: %s not written (it would be: %s)\n", where, summary)
	case !res.Saved:
		fmt.Fprintf(a.stdout, "%s unchanged (%s)\n", where, summary)
	case res.Created:
		fmt.Fprintf(a.stdout, "wrote %s, a new file (%s)\n", where, summary)
	default:
		fmt.Fprintf(a.stdout, "wrote %s (%s)\n", where, summary)
	}
	for _, w := range res.Warnings {
		a.log.Warn(w)
	}
}
