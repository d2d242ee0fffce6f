package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// EnvConfig names the environment variable that points at a config file.
const EnvConfig = "SWITCHBOARD_CONFIG"

// Shortcuts are the values of [DiscoverOptions.Flag] that name a host instead of a file.
var Shortcuts = []string{"claude", "cursor", "vscode"}

// Candidate is one place a config may be.
type Candidate struct {
	// Path is the file, as it is opened: relative to the working directory for project
	// files when [DiscoverOptions.Dir] is "".
	Path string
	// From says why it is a candidate: "--config", "$SWITCHBOARD_CONFIG", "project"
	// or "user".
	From string
	// Host names the host that keeps its config there ("Claude Desktop", "Cursor",
	// "VS Code", "Claude Code"), or "" for Switchboard's own places.
	Host string
}

// DiscoverOptions are the inputs of [Discover]. A nil *DiscoverOptions is valid and
// means no --config, the process's environment, working directory, home and OS.
type DiscoverOptions struct {
	// Flag is the --config value: a path, or a shortcut (claude, cursor, vscode) for
	// that host's config. A value with no path separator that exists as a file is taken
	// as that file, so ./claude still wins over the shortcut.
	Flag string
	// Dir is the working directory; "" leaves project paths relative ("mcp.json").
	Dir string
	// Home is the user's home directory; "" means os.UserHomeDir.
	Home string
	// GOOS selects the OS's user config places; "" means runtime.GOOS.
	GOOS string
	// LookupEnv reads SWITCHBOARD_CONFIG, APPDATA and XDG_CONFIG_HOME; nil means
	// os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// Discovery is where a config was looked for, and what was found.
type Discovery struct {
	// Candidates are the places looked at, in order.
	Candidates []Candidate
	// Found is the candidate to load, or nil when there is none: use a built-in config.
	// A --config path or $SWITCHBOARD_CONFIG is Found without checking that it exists,
	// so that loading it reports the problem rather than falling back to another file.
	Found *Candidate
}

// Discover finds the config file to load. The order:
//
//  1. --config (Flag): a path, or a shortcut: claude (Claude Desktop's config), cursor
//     (~/.cursor/mcp.json), vscode (the project's .vscode/mcp.json if present, else the
//     user's VS Code mcp.json);
//  2. $SWITCHBOARD_CONFIG;
//  3. in the working directory only (parents are not searched, so a file from an
//     enclosing project never starts servers unasked): mcp.json, .mcp.json (Claude
//     Code), .vscode/mcp.json (VS Code), .cursor/mcp.json (Cursor);
//  4. the user's Claude Desktop config, then ~/.cursor/mcp.json.
//
// Claude Desktop keeps its config at ~/Library/Application Support/Claude/
// claude_desktop_config.json on macOS, %APPDATA%\Claude\claude_desktop_config.json on
// Windows and $XDG_CONFIG_HOME/Claude/claude_desktop_config.json (~/.config/...) on
// Linux; VS Code its user mcp.json in Code/User under the same directories.
//
// An error means a shortcut whose file does not exist (or an unknown home).
func Discover(o *DiscoverOptions) (*Discovery, error) {
	opts := o.withDefaults()
	d := &Discovery{}
	if f := opts.Flag; f != "" {
		host := strings.ToLower(f)
		if isShortcut(host) && !isFile(opts.project(f)) {
			return d, opts.shortcut(d, host)
		}
		d.Candidates = []Candidate{{Path: opts.rel(f), From: "--config"}}
		d.Found = &d.Candidates[0]
		return d, nil
	}
	if p, ok := opts.LookupEnv(EnvConfig); ok && p != "" {
		d.Candidates = []Candidate{{Path: opts.rel(p), From: "$" + EnvConfig}}
		d.Found = &d.Candidates[0]
		return d, nil
	}
	d.Candidates = opts.searchPlaces()
	for i := range d.Candidates {
		if isFile(d.Candidates[i].Path) {
			d.Found = &d.Candidates[i]
			break
		}
	}
	return d, nil
}

// SearchPlaces are the files [Discover] looks at, in order, when neither --config nor
// $SWITCHBOARD_CONFIG names one: the project files in the working directory, then the
// hosts' user configs (left out when there is no home directory). It is the one list
// that discovery follows and that help texts and messages show.
func SearchPlaces(o *DiscoverOptions) []Candidate {
	opts := o.withDefaults()
	return opts.searchPlaces()
}

// withDefaults is o (nil: the zero options) with its defaults filled in.
func (o *DiscoverOptions) withDefaults() DiscoverOptions {
	var opts DiscoverOptions
	if o != nil {
		opts = *o
	}
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.GOOS == "" {
		opts.GOOS = runtime.GOOS
	}
	return opts
}

func (o *DiscoverOptions) searchPlaces() []Candidate {
	places := o.projectCandidates()
	if user, err := o.userCandidates(); err == nil {
		places = append(places, user...)
	}
	return places
}

func isShortcut(s string) bool { return slices.Contains(Shortcuts, s) }

// shortcut resolves --config claude|cursor|vscode.
func (o *DiscoverOptions) shortcut(d *Discovery, host string) error {
	user, err := o.userPlaces()
	if err != nil {
		return fmt.Errorf("--config %s: %w", host, err)
	}
	switch host {
	case "claude":
		d.Candidates = []Candidate{user.claude}
	case "cursor":
		d.Candidates = []Candidate{user.cursor}
	case "vscode":
		d.Candidates = []Candidate{{Path: o.project(filepath.Join(".vscode", "mcp.json")), From: "project", Host: "VS Code"}, user.vscode}
	}
	var looked []string
	for i, c := range d.Candidates {
		if isFile(c.Path) {
			d.Found = &d.Candidates[i]
			return nil
		}
		looked = append(looked, c.Path)
	}
	return fmt.Errorf("--config %s: no %s config at %s", host, d.Candidates[0].Host, strings.Join(looked, " or "))
}

// project is name in the working directory.
func (o *DiscoverOptions) project(name string) string {
	if o.Dir == "" {
		return name
	}
	return filepath.Join(o.Dir, name)
}

// rel is a path the user gave, relative to the working directory.
func (o *DiscoverOptions) rel(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return o.project(path)
}

func (o *DiscoverOptions) projectCandidates() []Candidate {
	var out []Candidate
	for _, c := range []struct{ name, host string }{
		{"mcp.json", ""},
		{".mcp.json", "Claude Code"},
		{filepath.Join(".vscode", "mcp.json"), "VS Code"},
		{filepath.Join(".cursor", "mcp.json"), "Cursor"},
	} {
		out = append(out, Candidate{Path: o.project(c.name), From: "project", Host: c.host})
	}
	return out
}

func (o *DiscoverOptions) userCandidates() ([]Candidate, error) {
	u, err := o.userPlaces()
	if err != nil {
		return nil, err
	}
	return []Candidate{u.claude, u.cursor}, nil
}

// userPlaces are the hosts' user-level config files on o.GOOS.
type userPlaces struct{ claude, cursor, vscode Candidate }

func (o *DiscoverOptions) userPlaces() (userPlaces, error) {
	home := o.Home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return userPlaces{}, errors.New("no home directory to look in")
		}
		home = h
	}
	// The directory where Electron apps (Claude Desktop, VS Code) keep their settings.
	var appData string
	switch o.GOOS {
	case "darwin":
		appData = filepath.Join(home, "Library", "Application Support")
	case "windows":
		if v, ok := o.LookupEnv("APPDATA"); ok && v != "" {
			appData = v
		} else {
			appData = filepath.Join(home, "AppData", "Roaming")
		}
	default:
		if v, ok := o.LookupEnv("XDG_CONFIG_HOME"); ok && filepath.IsAbs(v) {
			appData = v
		} else {
			appData = filepath.Join(home, ".config")
		}
	}
	return userPlaces{
		claude: Candidate{Path: filepath.Join(appData, "Claude", "claude_desktop_config.json"), From: "user", Host: "Claude Desktop"},
		cursor: Candidate{Path: filepath.Join(home, ".cursor", "mcp.json"), From: "user", Host: "Cursor"},
		vscode: Candidate{Path: filepath.Join(appData, "Code", "User", "mcp.json"), From: "user", Host: "VS Code"},
	}, nil
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// WorkspaceFolder is the project directory of the config file at path: the directory
// that holds .vscode/ or .cursor/ for a file in one (P for P/.vscode/mcp.json), else
// the file's own directory. It is what ${workspaceFolder} means, as VS Code and Cursor
// have it, and where the config's stdio servers run ([Server.ProjectDir]), as those
// hosts and Claude Code run a project's servers. The result is absolute when path can
// be made so.
func WorkspaceFolder(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	dir := filepath.Dir(path)
	if b := filepath.Base(dir); b == ".vscode" || b == ".cursor" {
		return filepath.Dir(dir)
	}
	return dir
}
