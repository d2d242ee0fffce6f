package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDiscover(t *testing.T) {
	// Files named by a key: "P:rel" in the project dir, "H:rel" in home.
	claudeLinux := "H:.config/Claude/claude_desktop_config.json"
	tests := []struct {
		name    string
		flag    string
		env     map[string]string
		goos    string
		files   []string
		want    string // the Found path as a key ("" = nil)
		wantErr string
	}{
		{name: "nothing: the demo", want: ""},
		{name: "mcp.json first", files: []string{"P:mcp.json", "P:.mcp.json", "P:.vscode/mcp.json", claudeLinux}, want: "P:mcp.json"},
		{name: ".mcp.json", files: []string{"P:.mcp.json", "P:.vscode/mcp.json"}, want: "P:.mcp.json"},
		{name: ".vscode before .cursor", files: []string{"P:.vscode/mcp.json", "P:.cursor/mcp.json"}, want: "P:.vscode/mcp.json"},
		{name: ".cursor", files: []string{"P:.cursor/mcp.json", "H:.cursor/mcp.json"}, want: "P:.cursor/mcp.json"},
		{name: "project before user", files: []string{"P:.cursor/mcp.json", claudeLinux}, want: "P:.cursor/mcp.json"},
		{name: "Claude Desktop before user Cursor", files: []string{claudeLinux, "H:.cursor/mcp.json"}, want: claudeLinux},
		{name: "user Cursor", files: []string{"H:.cursor/mcp.json"}, want: "H:.cursor/mcp.json"},
		{name: "XDG_CONFIG_HOME", env: map[string]string{"XDG_CONFIG_HOME": "H:xdg"}, files: []string{"H:xdg/Claude/claude_desktop_config.json", claudeLinux},
			want: "H:xdg/Claude/claude_desktop_config.json"},
		{name: "macOS Claude Desktop", goos: "darwin", files: []string{"H:Library/Application Support/Claude/claude_desktop_config.json", claudeLinux},
			want: "H:Library/Application Support/Claude/claude_desktop_config.json"},
		{name: "Windows Claude Desktop", goos: "windows", env: map[string]string{"APPDATA": "H:AppData/Roaming"},
			files: []string{"H:AppData/Roaming/Claude/claude_desktop_config.json"}, want: "H:AppData/Roaming/Claude/claude_desktop_config.json"},
		{name: "a directory is not a config", files: []string{"P:mcp.json/x", "P:.mcp.json"}, want: "P:.mcp.json"},
		{name: "env over project", env: map[string]string{EnvConfig: "/elsewhere/x.json"}, files: []string{"P:mcp.json"}, want: "/elsewhere/x.json"},
		{name: "flag over env", flag: "/flag.json", env: map[string]string{EnvConfig: "/elsewhere/x.json"}, want: "/flag.json"},
		{name: "shortcut claude", flag: "claude", files: []string{"P:mcp.json", claudeLinux}, want: claudeLinux},
		{name: "shortcut case-insensitive", flag: "Claude", files: []string{claudeLinux}, want: claudeLinux},
		{name: "shortcut cursor", flag: "cursor", files: []string{"P:.cursor/mcp.json", "H:.cursor/mcp.json"}, want: "H:.cursor/mcp.json"},
		{name: "shortcut vscode: project first", flag: "vscode", files: []string{"P:.vscode/mcp.json", "H:.config/Code/User/mcp.json"}, want: "P:.vscode/mcp.json"},
		{name: "shortcut vscode: user", flag: "vscode", files: []string{"H:.config/Code/User/mcp.json"}, want: "H:.config/Code/User/mcp.json"},
		{name: "shortcut vscode on macOS", flag: "vscode", goos: "darwin", files: []string{"H:Library/Application Support/Code/User/mcp.json"},
			want: "H:Library/Application Support/Code/User/mcp.json"},
		{name: "a file named like a shortcut wins", flag: "claude", files: []string{"P:claude", claudeLinux}, want: "P:claude"},
		{name: "shortcut missing", flag: "claude", wantErr: "--config claude: no Claude Desktop config at H:.config/Claude/claude_desktop_config.json"},
		{name: "shortcut vscode missing", flag: "vscode",
			wantErr: "--config vscode: no VS Code config at P:.vscode/mcp.json or H:.config/Code/User/mcp.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir, home := filepath.Join(root, "project"), filepath.Join(root, "home")
			// path turns a key into a real path, and unkey the other way.
			path := func(key string) string {
				switch {
				case strings.HasPrefix(key, "P:"):
					return filepath.Join(dir, filepath.FromSlash(key[2:]))
				case strings.HasPrefix(key, "H:"):
					return filepath.Join(home, filepath.FromSlash(key[2:]))
				}
				return key
			}
			unkey := strings.NewReplacer(dir+string(filepath.Separator), "P:", home+string(filepath.Separator), "H:")
			for _, f := range append(tt.files, "P:.keep", "H:.keep") {
				if err := os.MkdirAll(filepath.Dir(path(f)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path(f), []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = path(v)
			}
			d, err := Discover(&DiscoverOptions{Flag: tt.flag, Dir: dir, Home: home, GOOS: tt.goos,
				LookupEnv: envOf(env).LookupEnv})
			if tt.wantErr != "" {
				if err == nil || unkey.Replace(err.Error()) != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if d.Found != nil {
				got = unkey.Replace(d.Found.Path)
			}
			if got != tt.want {
				t.Errorf("Found = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDiscoverOrder pins the documented order of the places looked in, which
// SearchPlaces (what help texts show) gives too.
func TestDiscoverOrder(t *testing.T) {
	opts := &DiscoverOptions{Home: "/h", GOOS: "linux", LookupEnv: envOf(nil).LookupEnv}
	d, err := Discover(opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range d.Candidates {
		got = append(got, filepath.ToSlash(c.Path)+" ("+c.From+" "+c.Host+")")
	}
	if places := SearchPlaces(opts); !slices.Equal(places, d.Candidates) {
		t.Errorf("SearchPlaces = %+v, want Discover's candidates %+v", places, d.Candidates)
	}
	want := []string{
		"mcp.json (project )",
		".mcp.json (project Claude Code)",
		".vscode/mcp.json (project VS Code)",
		".cursor/mcp.json (project Cursor)",
		"/h/.config/Claude/claude_desktop_config.json (user Claude Desktop)",
		"/h/.cursor/mcp.json (user Cursor)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("candidates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWorkspaceFolder(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{"/p/.vscode/mcp.json", "/p"},
		{"/p/mcp.json", "/p"},
		{"/p/.cursor/mcp.json", "/p"},
		{"/home/u/.cursor/mcp.json", "/home/u"},
		{"/home/u/.config/Code/User/mcp.json", "/home/u/.config/Code/User"},
	} {
		if got := WorkspaceFolder(filepath.FromSlash(tt.path)); filepath.ToSlash(got) != tt.want {
			t.Errorf("WorkspaceFolder(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
