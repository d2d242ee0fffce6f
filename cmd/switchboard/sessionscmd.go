package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
)

func (a *app) sessionsCommand() *cobra.Command {
	var (
		flags  agentFlags
		asJSON bool
	)
	// withStore opens the configured store for fn. Only the config's settings are
	// read: no server is started, and with no config the defaults hold.
	withStore := func(ctx context.Context, fn func(host.SessionStore) error) error {
		cfg, err := a.loadConfigFor(loadOptions{report: true, settingsOnly: true})
		if err != nil {
			return err
		}
		ss, err := flags.sessions(cfg, a.red)
		if err != nil {
			return err
		}
		// The settings alone: a host of no server, for its store.
		h := host.New(&host.Config{Source: cfg.Source, Settings: cfg.Settings}, a.hostOptions(&host.Options{Sessions: &ss}))
		defer h.Close()
		st, err := h.OpenStore(ctx)
		if err != nil {
			return settingsError(err, flags.dataDir, ss.Path != "" && flags.dataDir == "")
		}
		defer st.Close()
		return fn(st)
	}
	notFound := func(err error) error {
		if errors.Is(err, host.ErrSessionNotFound) {
			return usageError("%v (run 'switchboard sessions' to list them)", err)
		}
		return err
	}
	cmd := &cobra.Command{
		Use:         "sessions [list | show ID | rm ID]",
		Annotations: map[string]string{remoteKey: "yes"},
		Short:       "List, show or remove the stored chat sessions",
		Long: `Sessions reads the session store that chat writes (SQLite under --data-dir by
default, or the config's "switchboard": {"sessions": {...}}); it starts no server.

  sessions [list]   every session: id, messages, created, last active
  sessions show ID  one session's whole history, tool calls and results included
  sessions rm ID    remove one session

With --server URL (or $SWITCHBOARD_SERVER; its token from $SWITCHBOARD_TOKEN) they are
the sessions of that running 'switchboard serve' instead (/v1/sessions): with identities
on, the token's person's own.`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0, len(args) == 1 && args[0] == "list":
			case len(args) == 2 && (args[0] == "show" || args[0] == "rm"):
			default:
				return commandLineError("%s: want list, show ID or rm ID", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if a.remote != nil {
				return a.remoteSessions(ctx, args, asJSON)
			}
			return withStore(ctx, func(st host.SessionStore) error {
				switch {
				case len(args) == 2 && args[0] == "show":
					s, err := st.Get(ctx, args[1])
					if err != nil {
						return notFound(err)
					}
					if asJSON {
						return writeJSON(a.stdout, s)
					}
					a.printSession(s)
					return nil
				case len(args) == 2 && args[0] == "rm":
					if err := st.Delete(ctx, args[1]); err != nil {
						return notFound(err)
					}
					fmt.Fprintf(a.stdout, "removed %s\n", args[1])
					return nil
				}
				list, err := st.List(ctx)
				if err != nil {
					return err
				}
				if asJSON && list == nil {
					list = []host.SessionSummary{}
				}
				return a.writeSessions(list, asJSON)
			})
		},
	}
	flags.addStore(cmd, false)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: the list of summaries, or the whole session")
	markLocalOnly(cmd, "json", "data-dir")
	return cmd
}

// writeSessions prints the list of sessions: a table, or with asJSON the summaries.
func (a *app) writeSessions(list []host.SessionSummary, asJSON bool) error {
	if asJSON {
		return writeJSON(a.stdout, list)
	}
	// The store holds everyone's sessions (serve's people own theirs): an
	// OWNER column when any has an owner, "-" for one without.
	owners := slices.ContainsFunc(list, func(s host.SessionSummary) bool { return s.Owner != "" })
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	if owners {
		fmt.Fprintln(tw, "SESSION\tOWNER\tMESSAGES\tCREATED\tLAST ACTIVE\tTITLE")
	} else {
		fmt.Fprintln(tw, "SESSION\tMESSAGES\tCREATED\tLAST ACTIVE\tTITLE")
	}
	for _, s := range list {
		if owners {
			owner := s.Owner
			if owner == "" {
				owner = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t", s.ID, owner)
		} else {
			fmt.Fprintf(tw, "%s\t", s.ID)
		}
		// The title (its first message, say) last: it has spaces, and is cut.
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", s.Messages, s.Created.Local().Format(time.DateTime), s.LastActive.Local().Format(time.DateTime), firstLine(s.Title, 60))
	}
	return tw.Flush()
}

// printSession writes a session's history for a person: who said what, each tool call
// with its arguments and each result with its text.
func (a *app) printSession(s *host.Session) {
	fmt.Fprintf(a.stdout, "session %s, created %s, last active %s, %d+%d tokens\n",
		s.ID, s.Created.Local().Format(time.DateTime), s.LastActive.Local().Format(time.DateTime), s.Usage.InputTokens, s.Usage.OutputTokens)
	if s.Owner != "" {
		fmt.Fprintf(a.stdout, "owner: %s\n", s.Owner)
	}
	if s.System != "" {
		fmt.Fprintf(a.stdout, "system: %s\n", s.System)
	}
	for _, m := range s.Messages {
		switch m.Role {
		case host.RoleTool:
			text := ""
			if m.Result != nil {
				text = host.ToolText(m.Result)
			}
			verb := "←"
			if m.Result != nil && m.Result.IsError {
				verb = "← error from"
			}
			fmt.Fprintf(a.stdout, "%s %s: %s\n", verb, m.Name, firstLine(text, 200))
		default:
			if m.Text != "" {
				fmt.Fprintf(a.stdout, "%s: %s\n", m.Role, m.Text)
			}
			for _, c := range m.Calls {
				fmt.Fprintf(a.stdout, "→ %s %s\n", c.Name, c.Arguments)
			}
		}
	}
}
