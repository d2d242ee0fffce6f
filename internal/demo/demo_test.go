package demo_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/internal/demo"
)

func TestNames(t *testing.T) {
	if got, want := demo.Names(), []string{"clock", "notes"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

func TestNewServerUnknown(t *testing.T) {
	for _, name := range []string{"", "calendar", "Clock"} {
		srv, err := demo.NewServer(name, nil)
		if err == nil {
			t.Errorf("NewServer(%q) = %v, want an error", name, srv)
			continue
		}
		for _, want := range []string{"clock", "notes"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("NewServer(%q) error %q does not list %q", name, err, want)
			}
		}
	}
}

func TestRunUnknown(t *testing.T) {
	err := demo.Run(context.Background(), "calendar", nil)
	if err == nil || !strings.Contains(err.Error(), `"calendar"`) {
		t.Errorf("Run(calendar) = %v, want an unknown-server error", err)
	}
}

// TestServerInfo checks the implementation and instructions each server announces.
func TestServerInfo(t *testing.T) {
	for _, name := range demo.Names() {
		t.Run(name, func(t *testing.T) {
			cs := connect(t, name, &demo.Options{NotesFile: filepath.Join(t.TempDir(), "notes.json")})
			init := cs.InitializeResult()
			if init == nil || init.ServerInfo == nil {
				t.Fatal("no initialize result")
			}
			if got, want := init.ServerInfo.Name, "switchboard-demo-"+name; got != want {
				t.Errorf("server name = %q, want %q", got, want)
			}
			if got := init.ServerInfo.Version; got != "0.1.0" {
				t.Errorf("server version = %q, want 0.1.0", got)
			}
			if init.Instructions == "" {
				t.Error("no instructions")
			}
			if init.Capabilities == nil || init.Capabilities.Tools == nil {
				t.Error("tools capability not announced")
			}
		})
	}
}

func TestDefaultNotesFile(t *testing.T) {
	t.Run("env", func(t *testing.T) {
		want := filepath.Join(t.TempDir(), "mine.json")
		t.Setenv("SWITCHBOARD_NOTES_FILE", want)
		if got := demo.DefaultNotesFile(); got != want {
			t.Errorf("DefaultNotesFile() = %q, want %q", got, want)
		}
	})
	t.Run("config dir", func(t *testing.T) {
		t.Setenv("SWITCHBOARD_NOTES_FILE", "")
		cfg := t.TempDir()
		t.Setenv("XDG_CONFIG_HOME", cfg) // used by os.UserConfigDir on Unix but macOS
		dir, err := os.UserConfigDir()
		if err != nil {
			dir = os.TempDir()
		}
		want := filepath.Join(dir, "switchboard", "notes.json")
		if got := demo.DefaultNotesFile(); got != want {
			t.Errorf("DefaultNotesFile() = %q, want %q", got, want)
		}
	})
	t.Run("no config dir", func(t *testing.T) {
		t.Setenv("SWITCHBOARD_NOTES_FILE", "")
		t.Setenv("XDG_CONFIG_HOME", "")
		t.Setenv("HOME", "")
		t.Setenv("AppData", "")
		if _, err := os.UserConfigDir(); err == nil {
			t.Skip("os.UserConfigDir still succeeds on this platform")
		}
		want := filepath.Join(os.TempDir(), "switchboard", "notes.json")
		if got := demo.DefaultNotesFile(); got != want {
			t.Errorf("DefaultNotesFile() = %q, want %q", got, want)
		}
	})
}

func TestConfig(t *testing.T) {
	const exe = "/opt/switchboard/bin/switchboard"
	cfg := demo.Config(exe)
	if cfg.Source != "<built-in demo>" || cfg.Shape != "demo" {
		t.Errorf("Source, Shape = %q, %q; want <built-in demo>, demo", cfg.Source, cfg.Shape)
	}
	if len(cfg.Servers) != 2 {
		t.Fatalf("got %d servers, want 2: %+v", len(cfg.Servers), cfg.Servers)
	}
	for i, name := range []string{"clock", "notes"} {
		s := cfg.Servers[i]
		if s.Name != name {
			t.Errorf("server %d is %q, want %q", i, s.Name, name)
		}
		if s.Transport != config.Stdio || s.Command != exe || !s.InheritEnv {
			t.Errorf("%s: transport %q, command %q, inheritEnv %v; want stdio, %s, true", name, s.Transport, s.Command, s.InheritEnv, exe)
		}
		if want := []string{"demo-server", name}; !slices.Equal(s.Args, want) {
			t.Errorf("%s: args %q, want %q", name, s.Args, want)
		}
		if s.Description == "" {
			t.Errorf("%s: no description", name)
		}
		if s.Disabled || s.URL != "" || s.Env != nil || s.Prefix != "" || s.Required {
			t.Errorf("%s: unexpected settings %+v", name, s)
		}
	}
	// Each call returns a fresh value that callers may modify.
	cfg.Servers[0].Args[0] = "changed"
	if demo.Config(exe).Servers[0].Args[0] != "demo-server" {
		t.Error("Config shares its slices between calls")
	}
}
