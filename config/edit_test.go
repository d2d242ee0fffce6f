package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// commented is a file the way people keep them: comments everywhere, a trailing
// comma, tabs and odd spacing.
const commented = `// My servers.
{
  /* the gateway's settings */
  "switchboard": { "naming": "auto" },
  "mcpServers": {
    // Files, read-only.
    "files": {
      "command": "npx",   // via npx
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
    },
    "github": {"url": "https://api.example.com/mcp",
        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}, // remote
    "last": { "command": "last-server" } // the end
  }
}
`

// TestAddServer: the entry goes after the last server, in the file's indentation;
// every line of the file before stays as it was, and the result loads.
func TestAddServer(t *testing.T) {
	out, err := AddServer([]byte(commented), "notes", json.RawMessage(`{"command": "notes-server", "args": ["--dir", "${HOME}/notes"], "env": {"TOKEN": "${NOTES_TOKEN}"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(commented, `    "last": { "command": "last-server" } // the end
  }`, `    "last": { "command": "last-server" }, // the end
    "notes": {
      "command": "notes-server",
      "args": ["--dir", "${HOME}/notes"],
      "env": {
        "TOKEN": "${NOTES_TOKEN}"
      }
    }
  }`, 1)
	if string(out) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	cfg := mustParse(t, string(out), map[string]string{"HOME": "/home/u", "NOTES_TOKEN": "t0k"})
	if s := cfg.Servers[len(cfg.Servers)-1]; s.Name != "notes" || s.Args[1] != "/home/u/notes" || s.Env["TOKEN"] != "t0k" {
		t.Errorf("added server = %+v", s)
	}
	if _, err := AddServer(out, "notes", json.RawMessage(`{"command": "x"}`)); !errors.As(err, new(*ExistsError)) {
		t.Errorf("adding notes again: %v, want an ExistsError", err)
	}
	if _, err := AddServer(out, "x", json.RawMessage(`["not", "an", "object"]`)); err == nil || !strings.Contains(err.Error(), "must be a JSON object") {
		t.Errorf("an array entry: %v", err)
	}
}

// TestAddServerShapes: each shape gets the entry where Parse looks for it; a file
// with no servers yet gets "mcpServers".
func TestAddServerShapes(t *testing.T) {
	entry := json.RawMessage(`{"command": "x"}`)
	tests := []struct{ name, in, want string }{
		{"empty", "", "{\n  \"mcpServers\": {\n    \"new\": {\n      \"command\": \"x\"\n    }\n  }\n}\n"},
		{"empty object", "{}\n", "{\n  \"mcpServers\": {\n    \"new\": {\n      \"command\": \"x\"\n    }\n  }\n}\n"},
		{"settings only", "{\n\t\"switchboard\": {}\n}\n", "{\n\t\"switchboard\": {},\n\t\"mcpServers\": {\n\t\t\"new\": {\n\t\t\t\"command\": \"x\"\n\t\t}\n\t}\n}\n"},
		{"vscode", "{\n  \"servers\": {}\n}\n", "{\n  \"servers\": {\n    \"new\": {\n      \"command\": \"x\"\n    }\n  }\n}\n"},
		{"services", "{\"services\": {\"a\": {\"command\": \"a\"}}}", "{\"services\": {\"a\": {\"command\": \"a\"},\n  \"new\": {\n    \"command\": \"x\"\n  }\n}}"},
		{"bare", "{\n  \"a\": {\"command\": \"a\"},\n}\n", "{\n  \"a\": {\"command\": \"a\"},\n  \"new\": {\n    \"command\": \"x\"\n  },\n}\n"},
		{"null group", "{\"mcpServers\": null}", "{\"mcpServers\": {\n  \"new\": {\n    \"command\": \"x\"\n  }\n}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := AddServer([]byte(tt.in), "new", entry)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Fatalf("got:\n%q\nwant:\n%q", out, tt.want)
			}
			if cfg := mustParse(t, string(out), nil); len(cfg.Servers) == 0 || cfg.Servers[len(cfg.Servers)-1].Name != "new" {
				t.Errorf("servers after: %+v", cfg.Servers)
			}
		})
	}
}

// TestPatchServer: a merge patch changes the fields it names, merges env and
// headers key by key, removes what it sets to null, and leaves every other byte.
func TestPatchServer(t *testing.T) {
	out, err := PatchServer([]byte(commented), "files", json.RawMessage(`{"disabled": true, "args": ["-y", "pkg", "/srv"], "env": {"A": "${A}"}, "command": null}`))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(commented, `    "files": {
      "command": "npx",   // via npx
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
    },`, `    "files": {
      "args": ["-y", "pkg", "/srv"],
      "disabled": true,
      "env": {
        "A": "${A}"
      },
    },`, 1)
	if string(out) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}

	out, err = PatchServer([]byte(commented), "github", json.RawMessage(`{"headers": {"X-Team": "blue", "Authorization": null}, "tools": {"allow": ["search_*"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(commented, `    "github": {"url": "https://api.example.com/mcp",
        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}, // remote`, `    "github": {"url": "https://api.example.com/mcp",
        "headers": {
          "X-Team": "blue"
        },
        "tools": {
          "allow": ["search_*"]
        }
    }, // remote`, 1)
	if string(out) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	cfg := mustParse(t, string(out), nil)
	if s := cfg.Servers[1]; s.Headers["X-Team"] != "blue" || len(s.Headers) != 1 || s.Tools.Allow[0] != "search_*" {
		t.Errorf("patched github = %+v", s)
	}

	var nf *NotFoundError
	if _, err := PatchServer([]byte(commented), "nope", json.RawMessage(`{}`)); !errors.As(err, &nf) || strings.Join(nf.Names, ",") != "files,github,last" {
		t.Errorf("patching an unknown server: %v", err)
	}
}

// TestRemoveServer: the entry goes with the comments on its own lines; the rest,
// a comment ending the line before included, stays.
func TestRemoveServer(t *testing.T) {
	tests := []struct{ name, gone, want string }{
		{"first", "files", strings.Replace(commented, `    // Files, read-only.
    "files": {
      "command": "npx",   // via npx
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
    },
`, "", 1)},
		{"middle", "github", strings.Replace(commented, `
    "github": {"url": "https://api.example.com/mcp",
        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}, // remote`, "", 1)},
		{"last", "last", strings.Replace(commented, `, // remote
    "last": { "command": "last-server" } // the end
`, " // remote\n", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := RemoveServer([]byte(commented), tt.gone)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Fatalf("got:\n%s\nwant:\n%s", out, tt.want)
			}
			for _, s := range mustParse(t, string(out), map[string]string{"GITHUB_TOKEN": "x"}).Servers {
				if s.Name == tt.gone {
					t.Errorf("%s still there", tt.gone)
				}
			}
		})
	}
	out, err := RemoveServer([]byte("{\"mcpServers\": {\n  \"a\": {\"command\": \"a\"},\n}}"), "a")
	if err != nil || string(out) != `{"mcpServers": {}}` {
		t.Errorf("removing the only server: %q, %v", out, err)
	}
	if _, err := RemoveServer([]byte(commented), "switchboard"); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("removing the settings: %v, want a NotFoundError", err)
	}
}

// TestEditRoundTrip: add, patch and remove in turn give back the file as it was.
func TestEditRoundTrip(t *testing.T) {
	data := []byte(commented)
	for _, step := range []func([]byte) ([]byte, error){
		func(d []byte) ([]byte, error) { return AddServer(d, "x", json.RawMessage(`{"command": "x"}`)) },
		func(d []byte) ([]byte, error) { return PatchServer(d, "x", json.RawMessage(`{"disabled": true}`)) },
		func(d []byte) ([]byte, error) { return PatchServer(d, "x", json.RawMessage(`{"disabled": null}`)) },
		func(d []byte) ([]byte, error) { return RemoveServer(d, "x") },
	} {
		var err error
		if data, err = step(data); err != nil {
			t.Fatal(err)
		}
	}
	if string(data) != commented {
		t.Fatalf("got:\n%s\nwant:\n%s", data, commented)
	}
}

// TestServerEntryMasked: the entry as the file has it, its secrets masked and its
// references shown.
func TestServerEntryMasked(t *testing.T) {
	data := []byte(`{"mcpServers": {"a": {"command": "a", // c
		"env": {"TOKEN": "${TOKEN}", "PLAIN": "hunter2", "MIXED": "x${Y}", "DEFAULT": "${K:-hunter2}", "ENV": "${env:K}"},
		"headers": {"Authorization": "Bearer ${T}", "X-Key": "Bearer abc"}}}}`)
	e, err := ServerEntry(data, "a")
	if err != nil {
		t.Fatal(err)
	}
	got := string(MaskEntry(e))
	want := `{"command":"a","env":{"TOKEN":"${TOKEN}","PLAIN":"********","MIXED":"********","DEFAULT":"********","ENV":"${env:K}"},"headers":{"Authorization":"Bearer ${T}","X-Key":"********"}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestEntryOf: a server made in code reads back as itself.
func TestEntryOf(t *testing.T) {
	s := Server{Name: "clock", Transport: Stdio, Command: "/bin/sb", Args: []string{"demo-server", "clock"},
		InheritEnv: true, Description: "the time", Disabled: true, Heartbeat: -1,
		Tools: ToolFilter{Deny: []string{"x*"}}, Env: map[string]string{"A": "b"}}
	out, err := AddServer(nil, "clock", EntryOf(s))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse(out, "<built-in demo>", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Servers[0]
	if g, w := string(EntryOf(got)), string(EntryOf(s)); g != w || got.Heartbeat != -1 || !got.InheritEnv {
		t.Errorf("read back %+v\n%s\nwant %s", got, g, w)
	}
}

// TestWriteFileAtomic: the content is replaced, the mode kept, no temporary file
// left behind.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, []byte("{}"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte(commented)); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != commented {
		t.Fatalf("read back %q, %v", got, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory has %d files, want only mcp.json", len(entries))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no", "such", "dir.json"), nil); err == nil {
		t.Error("writing into a missing directory: no error")
	}
}

// TestWithoutMasked: masked values sent back are no change.
func TestWithoutMasked(t *testing.T) {
	var buf bytes.Buffer
	p, err := WithoutMasked(json.RawMessage(`{"env": {"A": "********", "B": "new"}, "headers": {"X": "********"}, "disabled": true}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&buf, p); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), `{"env":{"B":"new"},"headers":{},"disabled":true}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
