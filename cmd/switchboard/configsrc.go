package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/host"
)

// discoverConfig finds the config file: --config (a path, or claude, cursor or vscode),
// $SWITCHBOARD_CONFIG, then the files hosts keep in the working directory and the
// user's home (host.FindConfig has the order). No Found means the built-in demo.
func (a *app) discoverConfig() (*host.Discovery, error) {
	return host.FindConfig(a.configPath)
}

// configSource is the path of the config file to load; "" means the built-in demo (or a
// --config shortcut whose file is missing, which loadConfig reports).
func (a *app) configSource() string {
	d, err := a.discoverConfig()
	if err != nil || d.Found == nil {
		return ""
	}
	return d.Found.Path
}

// configOptions are the options every load of the config file uses: ${input:...}
// values the environment does not give are asked on the terminal.
func (a *app) configOptions() *host.ConfigOptions {
	return &host.ConfigOptions{Prompt: a.promptInput}
}

// loadConfig loads the config for a command. Config problems are usage errors (exit 2).
// Which file was loaded is logged (info), and so are the warnings and skipped servers;
// that no config was found, where one was looked for and that the demo servers run is
// a warning of serve and mcp, and a line of the output of tools, status and check
// (a.demoNote): a config kept where it is not looked for would otherwise go unnoticed.
// Secret values are registered for redaction.
func (a *app) loadConfig() (*host.Config, error) {
	return a.loadConfigFor(loadOptions{report: true})
}

// loadOptions say what a command wants of its config.
type loadOptions struct {
	// report logs the file's name, the warnings and the skipped servers; false leaves
	// them to a command that reports them itself (check).
	report bool
	// settingsOnly: the command reads only the "switchboard" settings and starts no
	// server (sessions): with no config found, the defaults hold, and no demo server
	// is named.
	settingsOnly bool
}

// loadConfigFor is loadConfig with o.
func (a *app) loadConfigFor(o loadOptions) (*host.Config, error) {
	d, err := a.discoverConfig()
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	var cfg *host.Config
	switch {
	case d.Found == nil && o.settingsOnly:
		cfg = &host.Config{Source: "<none>"}
		a.log.Debug("no config found: the default settings hold")
	case d.Found == nil:
		exe, err := os.Executable()
		if err != nil {
			return nil, &exitError{code: exitFailed, err: err}
		}
		cfg = host.DemoConfig(exe)
		a.log.Debug("no config given: using the built-in demo servers", "source", cfg.Source)
		// A newcomer should learn where a config would be found: in the log of a
		// command that runs on, else in what tools, status and check print.
		a.demoNote = demoNotice(d)
		if a.logsDemo {
			a.log.Warn(a.demoNote)
		}
	default:
		cfg, err = host.LoadConfig(d.Found.Path, a.configOptions())
		if err != nil {
			return nil, &exitError{code: exitUsage, err: err}
		}
		if o.report {
			a.log.Info(loadedNotice(d.Found, cfg))
		}
		a.log.Debug("config loaded", "source", d.Found.Path, "servers", len(cfg.Servers))
	}
	if o.report {
		host.RegisterConfig(cfg, a.log, a.red)
	} else {
		a.red.Add(cfg.Secrets()...)
	}
	return cfg, nil
}

// loadedNotice says which file was loaded: "config: .vscode/mcp.json (servers shape, 3
// servers)", naming the host for a user-level file, which may surprise.
func loadedNotice(c *host.ConfigCandidate, cfg *host.Config) string {
	what := cfg.Shape + " shape, " + plural(len(cfg.Servers), "server")
	if c.From == "user" {
		what = c.Host + "'s user config, " + what
	}
	return fmt.Sprintf("config: %s (%s)", tildePath(c.Path), what)
}

// printDemoNote ends a report with a.demoNote, when the demo servers ran.
func (a *app) printDemoNote() {
	if a.demoNote != "" {
		fmt.Fprintf(a.stdout, "\n%s\n", a.demoNote)
	}
}

// demoNotice says that no config was found, where one was looked for, and what to do.
func demoNotice(d *host.Discovery) string {
	looked := make([]string, len(d.Candidates))
	for i, c := range d.Candidates {
		looked[i] = tildePath(c.Path)
	}
	return fmt.Sprintf("no config found (looked in %s); using the built-in demo servers %s — point --config at your mcp.json",
		strings.Join(looked, ", "), strings.Join(host.DemoServers(), " and "))
}

// tildePath shortens a path in the home directory to ~/...
func tildePath(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	if rest, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
		return "~" + string(filepath.Separator) + rest
	}
	return p
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// target describes where a server runs or listens, with secrets masked.
func target(s *host.ConfigServer, red *host.Redactor) string {
	if s.Transport != host.Stdio {
		return red.URL(s.URL)
	}
	parts := append([]string{s.Command}, s.Args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\"'") {
			parts[i] = `"` + strings.ReplaceAll(p, `"`, `\"`) + `"`
		}
	}
	return red.String(strings.Join(parts, " "))
}

// searchPlaces are the files looked for when neither --config nor $SWITCHBOARD_CONFIG
// names one, in order, as this machine has them: "./mcp.json", …,
// "~/.config/Claude/claude_desktop_config.json (Claude Desktop)". host.SearchPlaces
// is the list; help and messages show it, so they cannot fall behind discovery.
func searchPlaces() []string {
	var out []string
	for _, c := range host.SearchPlaces() {
		p := tildePath(c.Path)
		if c.From == "project" {
			p = "." + string(filepath.Separator) + p
		} else if c.Host != "" {
			p += " (" + c.Host + ")"
		}
		out = append(out, p)
	}
	return out
}

// configPlacesHelp is the paragraph of the root command's help on where the config
// comes from, wrapped at width; a place is never broken across lines.
func configPlacesHelp(width int) string {
	units := strings.Fields("The config is --config FILE (or claude, cursor or vscode: that host's config), else $" + host.EnvConfig + ", else the first file found of")
	places := searchPlaces()
	for i, p := range places {
		sep := ","
		if i == len(places)-1 {
			sep = ";"
		}
		// The path stays whole (it may hold a space); the host's name may break.
		path, host, _ := strings.Cut(p+sep, " (")
		units = append(units, path)
		if host != "" {
			units = append(units, strings.Fields("("+host)...)
		}
	}
	units = append(units, strings.Fields("else the built-in demo servers ("+strings.Join(host.DemoServers(), " and ")+"), so that every command works on a fresh machine.")...)
	var b strings.Builder
	line := 0
	for _, u := range units {
		if line > 0 && line+1+len(u) > width {
			b.WriteByte('\n')
			line = 0
		}
		if line > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(u)
		line += len(u)
	}
	return b.String()
}

// configFlagHelp is the --config flag's help: the same places as configPlacesHelp.
func configFlagHelp() string {
	return "config file, or claude, cursor or vscode for that host's config (default $" + host.EnvConfig +
		", then the first of " + strings.Join(searchPlaces(), ", ") + ", else the built-in demo servers)"
}
