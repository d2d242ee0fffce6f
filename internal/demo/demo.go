package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
)

// Version is the implementation version the demo servers report.
const Version = "0.1.0"

// NotesFileEnv names the environment variable that overrides [DefaultNotesFile].
const NotesFileEnv = "SWITCHBOARD_NOTES_FILE"

// Options adjusts a demo server. A nil *Options, or a zero field, selects the default.
type Options struct {
	// NotesFile is the notebook of the notes server; default [DefaultNotesFile]().
	NotesFile string
	// Now is the clock of both servers; default time.Now.
	Now func() time.Time
}

// withDefaults returns a copy of o with every unset field filled in.
func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.NotesFile == "" {
		out.NotesFile = DefaultNotesFile()
	}
	if out.Now == nil {
		out.Now = time.Now
	}
	return out
}

type demoServer struct {
	name        string
	description string
	instr       string
	build       func(*mcp.Server, Options)
}

var servers = []demoServer{
	{
		name:        "clock",
		description: "Built-in demo: current time, time-zone conversion and date arithmetic.",
		instr: "Clock tools over IANA time zones (e.g. \"Europe/Paris\", \"America/New_York\", \"UTC\"). " +
			"Use current_time for the time now, convert_time to move an instant between zones, " +
			"and add_duration for date arithmetic (\"90m\", \"-2h30m\", \"3d\"). Times are RFC 3339.",
		build: addClockTools,
	},
	{
		name:        "notes",
		description: "Built-in demo: a small persistent notebook (put, get, list, delete, search).",
		instr: "A persistent notebook shared by every notes server using the same file. " +
			"Notes are identified by their exact title; put_note creates or replaces one. " +
			"Use list_notes or search_notes to find titles before get_note or delete_note.",
		build: addNotesTools,
	},
}

// Names returns the names of the demo servers, in a stable order: ["clock", "notes"].
func Names() []string {
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.name
	}
	return names
}

func lookup(name string) (demoServer, error) {
	for _, s := range servers {
		if s.name == name {
			return s, nil
		}
	}
	return demoServer{}, fmt.Errorf("unknown demo server %q (valid names: %s)", name, strings.Join(Names(), ", "))
}

// NewServer returns the demo server called name ("clock" or "notes"), ready to be
// connected to a transport. An unknown name is an error that lists the valid names.
func NewServer(name string, opts *Options) (*mcp.Server, error) {
	d, err := lookup(name)
	if err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	s := mcp.NewServer(&mcp.Implementation{
		Name:        "switchboard-demo-" + d.name,
		Title:       "Switchboard demo: " + d.name,
		Description: d.description,
		Version:     Version,
	}, &mcp.ServerOptions{Instructions: d.instr})
	d.build(s, o)
	return s, nil
}

// Run serves the demo server called name over stdin/stdout until the client
// disconnects (closes stdin) or ctx is cancelled, both of which are a clean stop: Run
// then returns nil, after closing the session. Other failures of the connection, and
// an unknown name, are errors.
func Run(ctx context.Context, name string, opts *Options) error {
	s, err := NewServer(name, opts)
	if err != nil {
		return err
	}
	err = s.Run(ctx, &mcp.StdioTransport{})
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil // stopped on request, e.g. by SIGTERM
	}
	return err
}

// DefaultNotesFile returns the notebook used when [Options.NotesFile] is empty:
// $SWITCHBOARD_NOTES_FILE if set, else <user config dir>/switchboard/notes.json, the
// user config dir being each OS's own ([os.UserConfigDir]): $XDG_CONFIG_HOME or
// ~/.config on Linux and the BSDs, ~/Library/Application Support on macOS, %AppData%
// (roaming, as a user's notes should be) on Windows. It falls back to the temporary
// directory when there is no user config directory.
func DefaultNotesFile() string {
	if f := os.Getenv(NotesFileEnv); f != "" {
		return f
	}
	dir, err := os.UserConfigDir()
	if err != nil || dir == "" {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "switchboard", "notes.json")
}

// Config returns the built-in demo configuration: the stdio servers "clock" and
// "notes", each run as `executable demo-server NAME` with the host's environment.
func Config(executable string) *config.Config {
	cfg := &config.Config{
		Source: "<built-in demo>",
		Shape:  "demo",
	}
	for _, d := range servers {
		cfg.Servers = append(cfg.Servers, config.Server{
			Name:        d.name,
			Transport:   config.Stdio,
			Command:     executable,
			Args:        []string{"demo-server", d.name},
			InheritEnv:  true,
			Description: d.description,
		})
	}
	return cfg
}
