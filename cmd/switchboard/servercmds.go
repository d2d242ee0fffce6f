package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/host/admin"
)

// add, remove and import change the config file that the other commands read
// (host.AddServerToFile, RemoveServerFromFile, ImportServers: the file's comments
// kept); a serve or mcp that follows it applies the change.

// editConfigPath is the file that add, remove and import change: the one the other
// commands would read (--config, $SWITCHBOARD_CONFIG, else the first file found),
// else the first place looked for (./mcp.json), made by the change.
func (a *app) editConfigPath() (string, error) {
	d, err := a.discoverConfig()
	if err != nil {
		return "", &exitError{code: exitUsage, err: err}
	}
	if d.Found != nil {
		return d.Found.Path, nil
	}
	if len(d.Candidates) == 0 {
		return "", usageError("no config file to change: name one with --config")
	}
	return d.Candidates[0].Path, nil
}

// editFailed is the error of a refused edit: exit 2 (the request's or the file's
// fault, nothing written), else 1.
func editFailed(cmd *cobra.Command, err error) error {
	var ae *admin.Error
	if errors.As(err, &ae) {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w (nothing written)", cmd.CommandPath(), err)}
	}
	return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
}

// envNameRE is what --env takes as a variable's name.
var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (a *app) addCommand() *cobra.Command {
	var (
		env, headers []string
		cwd, url     string
		oauth, dry   bool
	)
	cmd := &cobra.Command{
		Use:   "add NAME (-- COMMAND [ARGS...] | --url URL)",
		Short: "Add a server to the config file",
		Long: `Add adds a server to the config file that the other commands read (--config,
$SWITCHBOARD_CONFIG, else the first file found; ./mcp.json, made, when there is
none), keeping the file's comments and layout. A running 'switchboard serve' or
'switchboard mcp' that follows the file starts the server.

A server that runs as a child process takes its command line after --, with
--env K=V (repeatable) and --cwd DIR; a remote one takes --url, with --header
'K: V' (repeatable) and --oauth (it signs in with OAuth: 'switchboard login NAME').
Values may be ${VAR} references, kept as written; the values of --env and
--header are never printed.`,
		Example: `  switchboard add files -- npx -y @modelcontextprotocol/server-filesystem ~/notes
  switchboard add github --env 'GITHUB_TOKEN=${GITHUB_TOKEN}' -- github-mcp-server stdio
  switchboard add docs --url https://example.com/mcp --header 'Authorization: Bearer ${DOCS_TOKEN}'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			switch {
			case len(args) == 0 || dash == 0:
				return commandLineError("%s: want the server's NAME, then -- COMMAND [ARGS...] or --url URL", cmd.CommandPath())
			case dash < 0 && len(args) > 1:
				return commandLineError("%s: put the server's command after --: switchboard add %s -- %s", cmd.CommandPath(), args[0], strings.Join(args[1:], " "))
			case dash > 1:
				return commandLineError("%s: want one NAME before --, got %s", cmd.CommandPath(), strings.Join(args[:dash], " "))
			}
			name := args[0]
			spec := host.EntrySpec{Cwd: cwd, URL: url, OAuth: oauth}
			if dash == 1 {
				spec.Command, spec.Args = args[1], args[2:]
			}
			if err := checkAddFlags(cmd, spec, dash, env, headers); err != nil {
				return err
			}
			var err error
			if spec.Env, err = keyValues(env, "=", "--env", "K=V"); err != nil {
				return err
			}
			if spec.Headers, err = keyValues(headers, ":", "--header", "'Name: value'"); err != nil {
				return err
			}
			for _, v := range spec.Env {
				a.red.Add(v)
			}
			for _, v := range spec.Headers {
				a.red.Add(v)
			}
			path, err := a.editConfigPath()
			if err != nil {
				return err
			}
			res, err := host.AddServerToFile(path, name, spec.JSON(), &host.FileEditOptions{DryRun: dry})
			var ae *admin.Error
			if errors.As(err, &ae) && ae.Kind == admin.Exists {
				return usageError("%s: %q is in %s already: choose another name, or 'switchboard remove %s' first (nothing written)",
					cmd.CommandPath(), name, tildePath(path), name)
			}
			if err != nil {
				return editFailed(cmd, err)
			}
			a.printEdit(res, dry, fmt.Sprintf("added %q: %s", name, a.specTarget(spec)))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&env, "env", nil, "an environment variable of the server's process, K=V (repeatable)")
	f.StringVar(&cwd, "cwd", "", "the directory the server's process runs in")
	f.StringVar(&url, "url", "", "the URL of a remote server (Streamable HTTP; SSE when its path ends in /sse)")
	f.StringArrayVar(&headers, "header", nil, "an HTTP header sent to a remote server, 'Name: value' (repeatable)")
	f.BoolVar(&oauth, "oauth", false, "the remote server signs in with OAuth")
	f.BoolVar(&dry, "dry-run", false, "check the change and say what it would do, and write nothing")
	return cmd
}

// checkAddFlags refuses flags that do not go with the kind of server given.
func checkAddFlags(cmd *cobra.Command, spec host.EntrySpec, dash int, env, headers []string) error {
	switch {
	case dash == 1 && spec.URL != "":
		return commandLineError("%s: a server is a command (after --) or a --url, not both", cmd.CommandPath())
	case dash < 0 && spec.URL == "":
		return commandLineError("%s: want the server's command after -- or its --url", cmd.CommandPath())
	case dash == 1 && strings.TrimSpace(spec.Command) == "":
		return commandLineError("%s: the command after -- is empty", cmd.CommandPath())
	case spec.URL != "" && (len(env) > 0 || spec.Cwd != ""):
		return commandLineError("%s: --env and --cwd are a command's; a --url server takes --header and --oauth", cmd.CommandPath())
	case spec.URL == "" && (len(headers) > 0 || spec.OAuth):
		return commandLineError("%s: --header and --oauth are a --url server's; a command takes --env and --cwd", cmd.CommandPath())
	}
	return nil
}

// keyValues parses the values of a repeatable flag, each "K<sep>V", into a map; a
// key given twice is an error. The values are never part of a message.
func keyValues(vals []string, sep, flag, form string) (map[string]string, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range vals {
		k, v, ok := strings.Cut(kv, sep)
		k = strings.TrimSpace(k)
		if sep == ":" {
			v = strings.TrimSpace(v)
		}
		switch {
		case !ok || k == "":
			return nil, commandLineError("%s: want %s, got a value without %q", flag, form, sep)
		case sep == "=" && !envNameRE.MatchString(k):
			return nil, commandLineError("%s %s=…: a variable's name is letters, digits and '_', not starting with a digit", flag, k)
		case sep == ":" && strings.ContainsAny(k, " \t"):
			return nil, commandLineError("%s %q: a header's name has no spaces", flag, k)
		}
		if _, dup := out[k]; dup {
			return nil, commandLineError("%s: %s given twice", flag, k)
		}
		out[k] = v
	}
	return out, nil
}

// specTarget says what spec runs or reaches, its secrets masked: the command line
// or the URL, and the names (never the values) of its variables and headers.
func (a *app) specTarget(spec host.EntrySpec) string {
	return entryTarget(spec.JSON(), a.red)
}

// entryTarget says what a config entry runs or reaches, as target does for a
// loaded server: the command line or the URL, then the names of its env and
// headers; secrets masked by red.
func entryTarget(entry json.RawMessage, red *host.Redactor) string {
	var e struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		URL     string            `json:"url"`
		Env     map[string]string `json:"env"`
		Headers map[string]string `json:"headers"`
	}
	_ = json.Unmarshal(entry, &e) // a field of another type is left out
	var out string
	if e.URL != "" {
		out = red.URL(e.URL)
	} else {
		parts := append([]string{e.Command}, e.Args...)
		for i, p := range parts {
			if p == "" || strings.ContainsAny(p, " \t\"'") {
				parts[i] = `"` + strings.ReplaceAll(p, `"`, `\"`) + `"`
			}
		}
		out = red.String(strings.Join(parts, " "))
	}
	for _, m := range []struct {
		what string
		vals map[string]string
	}{{"env", e.Env}, {"headers", e.Headers}} {
		if len(m.vals) > 0 {
			keys := make([]string, 0, len(m.vals))
			for k := range m.vals {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			out += fmt.Sprintf(" (%s: %s)", m.what, strings.Join(keys, ", "))
		}
	}
	return out
}

// printEdit says what an edit of the config file did: done, then where, and the
// config's warnings about it.
func (a *app) printEdit(res host.FileResult, dry bool, done string) {
	where := tildePath(res.Source)
	switch {
	case dry:
		fmt.Fprintf(a.stdout, "%s\ndry run: %s not written\n", done, where)
	case res.Created:
		fmt.Fprintf(a.stdout, "%s\nwrote %s (a new file)\n", done, where)
	default:
		fmt.Fprintf(a.stdout, "%s\nwrote %s\n", done, where)
	}
	for _, w := range res.Warnings {
		a.log.Warn(w)
	}
}

func (a *app) removeCommand() *cobra.Command {
	var dry bool
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a server from the config file",
		Long: `Remove removes a server from the config file that the other commands read, with
the comments on its own lines, keeping the rest of the file as it is. A running
'switchboard serve' or 'switchboard mcp' that follows the file stops the server.`,
		Args: exactArgs(1, "the server's NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := a.editConfigPath()
			if err != nil {
				return err
			}
			if _, err := os.Stat(path); err != nil {
				return usageError("%s: no config file at %s to remove %q from", cmd.CommandPath(), tildePath(path), args[0])
			}
			res, err := host.RemoveServerFromFile(path, args[0], &host.FileEditOptions{DryRun: dry})
			if err != nil {
				return editFailed(cmd, err)
			}
			a.printEdit(res, dry, fmt.Sprintf("removed %q", args[0]))
			return nil
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "check the change and say what it would do, and write nothing")
	return cmd
}
