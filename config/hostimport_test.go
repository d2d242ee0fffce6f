package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// hostDirs is a project directory and a home of their own, the hosts' files
// written there.
type hostDirs struct{ dir, home string }

func newHostDirs(t *testing.T) hostDirs {
	t.Helper()
	root := t.TempDir()
	return hostDirs{dir: filepath.Join(root, "project"), home: filepath.Join(root, "home")}
}

func (h hostDirs) write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func (h hostDirs) read(t *testing.T, from string, env map[string]string) (*HostServers, error) {
	t.Helper()
	return ReadHostServers(from, &DiscoverOptions{Dir: h.dir, Home: h.home, GOOS: "linux",
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
}

// entries are the servers as name → entry decoded.
func entries(t *testing.T, servers []HostServer) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, s := range servers {
		var e map[string]any
		if err := json.Unmarshal(s.Entry, &e); err != nil {
			t.Fatalf("%s: entry is not JSON: %v\n%s", s.Name, err, s.Entry)
		}
		out[s.Name] = e
	}
	return out
}

func hostNames(servers []HostServer) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.Name)
	}
	return out
}

// Codex's [mcp_servers.NAME] tables become entries of a Switchboard config, field
// by field, in file order; what has no field of ours is named in the notes.
func TestReadCodexServers(t *testing.T) {
	h := newHostDirs(t)
	h.write(t, filepath.Join(h.home, "codex-home", "config.toml"), `
model = "o3"
# the servers
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env = { API_KEY = "k1" }
env_vars = ["HOME", "API_KEY"]
cwd = "/srv"
startup_timeout_sec = 20
tool_timeout_sec = 1.5

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_TOKEN"
http_headers = { "X-Team" = "a" }
env_http_headers = { "X-Auth" = "FIGMA_AUTH" }
enabled = false
enabled_tools = ["get_file"]
disabled_tools = ["delete_file"]
startup_timeout_ms = 2500
scopes = ["read"]

[mcp_servers.figma.oauth]
client_id = "x"

[mcp_servers.self]
command = "/usr/local/bin/switchboard"
args = ["mcp"]
`)
	got, err := h.read(t, "codex", map[string]string{"CODEX_HOME": filepath.Join(h.home, "codex-home")})
	if err != nil {
		t.Fatal(err)
	}
	if n := hostNames(got.Servers); !reflect.DeepEqual(n, []string{"docs", "figma", "self"}) {
		t.Fatalf("servers %v, want docs, figma, self in file order", n)
	}
	want := map[string]map[string]any{
		"docs": {"command": "npx", "args": []any{"-y", "docs-mcp"}, "cwd": "/srv",
			"env": map[string]any{"API_KEY": "k1", "HOME": "${HOME}"}, "timeout": "20s", "toolTimeout": "1.5s"},
		"figma": {"type": "http", "url": "https://mcp.figma.com/mcp", "disabled": true, "timeout": "2500ms",
			"headers": map[string]any{"Authorization": "Bearer ${FIGMA_TOKEN}", "X-Team": "a", "X-Auth": "${FIGMA_AUTH}"},
			"tools":   map[string]any{"allow": []any{"get_file"}, "deny": []any{"delete_file"}}},
		"self": {"command": "/usr/local/bin/switchboard", "args": []any{"mcp"}},
	}
	if e := entries(t, got.Servers); !reflect.DeepEqual(e, want) {
		t.Errorf("entries:\n got %v\nwant %v", e, want)
	}
	figma := got.Servers[1]
	if notes := strings.Join(figma.Notes, "\n"); !strings.Contains(notes, `"oauth" not imported`) || !strings.Contains(notes, `"scopes" not imported`) {
		t.Errorf("figma's notes do not name oauth and scopes: %q", figma.Notes)
	}
	if got.Servers[0].Skip || figma.Skip || !got.Servers[2].Skip {
		t.Errorf("only the server that runs switchboard itself is to be skipped: %+v", got.Servers)
	}
	for _, s := range got.Servers {
		// Every entry is one the config takes.
		doc, err := AddServer(nil, s.Name, s.Entry)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(doc, "x.json", &Options{LookupEnv: func(string) (string, bool) { return "v", true }}); err != nil {
			t.Errorf("%s: the imported entry does not load: %v\n%s", s.Name, err, doc)
		}
	}
}

// Each host's places, read from the one that wins in the host to the one that
// loses: a name two of them have is taken from the first, the other Shadowed.
func TestReadHostServers(t *testing.T) {
	h := newHostDirs(t)
	project, err := filepath.Abs(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	claudeJSON, _ := json.Marshal(map[string]any{
		"numStartups": 3,
		"mcpServers":  map[string]any{"user-one": map[string]any{"command": "u"}, "shared": map[string]any{"command": "from-user"}},
		"projects": map[string]any{
			project:  map[string]any{"mcpServers": map[string]any{"shared": map[string]any{"type": "http", "url": "https://local.example/mcp"}}},
			"/other": map[string]any{"mcpServers": map[string]any{"elsewhere": map[string]any{"command": "x"}}},
		},
	})
	h.write(t, filepath.Join(h.home, ".claude.json"), string(claudeJSON))
	h.write(t, filepath.Join(h.dir, ".mcp.json"), `{"mcpServers": {"team": {"command": "t"}}}`)
	h.write(t, filepath.Join(h.home, ".config", "Claude", "claude_desktop_config.json"),
		`{"mcpServers": {"desk": {"command": "d", "env": {"K": "v"}}, "user-one": {"command": "other"}}}`)
	h.write(t, filepath.Join(h.home, ".cursor", "mcp.json"), `{"mcpServers": {"cur": {"url": "https://c.example/mcp"}}}`)
	h.write(t, filepath.Join(h.dir, ".vscode", "mcp.json"), `// VS Code
{"servers": {"code": {"type": "stdio", "command": "c",}}, "inputs": []}`)
	file := h.write(t, filepath.Join(h.dir, "bare.json"), `{"one": {"command": "1"}, "switchboard": {"logLevel": "info"}}`)

	cases := []struct {
		from     string
		want     []string
		shadowed []string
	}{
		{"claude", []string{"shared", "team", "user-one", "desk"}, []string{"shared", "user-one"}},
		{"cursor", []string{"cur"}, nil},
		{"vscode", []string{"code"}, nil},
		{file, []string{"one"}, nil},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.from), func(t *testing.T) {
			got, err := h.read(t, c.from, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := hostNames(got.Servers); !reflect.DeepEqual(n, c.want) {
				t.Errorf("servers %v, want %v", n, c.want)
			}
			if n := hostNames(got.Shadowed); !reflect.DeepEqual(n, c.shadowed) {
				t.Errorf("shadowed %v, want %v", n, c.shadowed)
			}
		})
	}
	got, _ := h.read(t, "claude", nil)
	if e := entries(t, got.Servers); e["shared"]["url"] != "https://local.example/mcp" || e["desk"]["env"].(map[string]any)["K"] != "v" {
		t.Errorf("claude's entries: %v", e)
	}

	for _, c := range []struct{ from, want string }{
		{"codex", "no Codex config found (looked in " + filepath.Join(h.dir, ".codex", "config.toml")},
		{filepath.Join(h.dir, "missing.json"), "missing.json: no such file"},
		{h.write(t, filepath.Join(h.dir, "broken.toml"), "[mcp_servers.x\n"), "broken.toml: does not parse as Codex's TOML"},
		{h.write(t, filepath.Join(h.dir, "broken.json"), `{"mcpServers": {`), "broken.json: the config does not parse"},
	} {
		if _, err := h.read(t, c.from, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.from, err, c.want)
		}
	}
}

// ReplaceServer puts an entry in another's place: the comments around it, and the
// rest of the file, keep their bytes.
func TestReplaceServer(t *testing.T) {
	in := `{
  // first
  "mcpServers": {
    "a": {"command": "old"}, // a's comment
    "b": {"command": "b"},
  }
}
`
	out, err := ReplaceServer([]byte(in), "a", json.RawMessage(`{"url": "https://x.example/mcp"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  // first
  "mcpServers": {
    "a": {
      "url": "https://x.example/mcp"
    }, // a's comment
    "b": {"command": "b"},
  }
}
`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if _, err := ReplaceServer([]byte(in), "c", json.RawMessage(`{}`)); err == nil {
		t.Error("replacing a server the file does not have: no error")
	}
}
