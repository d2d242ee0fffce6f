package main

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
)

func (a *app) checkCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Validate the config and summarise its servers",
		Long: `Check loads the config without starting anything. It prints every server with its
transport and target and exits 0, or prints every problem (each naming its place, as
file:line:col: path: message) and exits 2. A stdio server's directory, program (given
as a path) or script (a relative path among its args) that is not on this machine is a
warning that names the path looked for: a relative one is taken from the config's
directory, where a server without "cwd" runs.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The report lists the warnings and skipped servers: logging them too
			// would print each twice.
			cfg, err := a.loadConfigFor(loadOptions{})
			if err != nil {
				var errs host.ConfigErrors
				if errors.As(err, &errs) {
					for _, e := range errs {
						fmt.Fprintln(a.stderr, e)
					}
					fmt.Fprintf(a.stderr, "%d problem(s) found\n", len(errs))
					return silentExit(exitUsage)
				}
				return err
			}
			if asJSON {
				return a.printCheckJSON(cfg)
			}
			a.printCheck(cfg)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

func (a *app) printCheck(cfg *host.Config) {
	fmt.Fprintf(a.stdout, "config: %s (%s)\n", cfg.Source, cfg.Shape)
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTRANSPORT\tSTATE\tTARGET")
	disabled := 0
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		state := "enabled"
		switch {
		case s.Disabled:
			state = "disabled"
			disabled++
		case s.Required:
			state = "required"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Transport, state, target(s, a.red))
	}
	tw.Flush()
	for _, name := range cfg.Skipped {
		fmt.Fprintf(a.stdout, "skipped: %s (names this gateway)\n", name)
	}
	warnings := checkWarnings(cfg, a.red)
	for _, w := range warnings {
		fmt.Fprintf(a.stdout, "warning: %s\n", w)
	}
	fmt.Fprintf(a.stdout, "ok: %d server(s), %d disabled, %d warning(s)\n", len(cfg.Servers), disabled, len(warnings))
	a.printDemoNote()
}

// checkWarnings are the config's warnings, then what of its enabled stdio servers'
// files is not on this machine (host.ConfigServer.PathProblems): check starts nothing,
// so it says where a server would not start.
func checkWarnings(cfg *host.Config, red *host.Redactor) []string {
	out := append([]string(nil), cfg.Warnings...)
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if s.Disabled {
			continue
		}
		for _, p := range s.PathProblems() {
			out = append(out, "server "+s.Name+": "+red.String(p))
		}
	}
	return out
}

type checkServer struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Target    string `json:"target"`
	Disabled  bool   `json:"disabled"`
	Required  bool   `json:"required"`
}

func (a *app) printCheckJSON(cfg *host.Config) error {
	out := struct {
		Source   string        `json:"source"`
		Shape    string        `json:"shape"`
		Servers  []checkServer `json:"servers"`
		Skipped  []string      `json:"skipped"`
		Warnings []string      `json:"warnings"`
	}{Source: cfg.Source, Shape: cfg.Shape, Servers: []checkServer{}, Skipped: orEmpty(cfg.Skipped), Warnings: orEmpty(checkWarnings(cfg, a.red))}
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		out.Servers = append(out.Servers, checkServer{s.Name, string(s.Transport), target(s, a.red), s.Disabled, s.Required})
	}
	return writeJSON(a.stdout, out)
}

// orEmpty makes a nil list an empty one: a JSON array is always an array, never null.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
